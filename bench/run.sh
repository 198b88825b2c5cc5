#!/usr/bin/env bash
# Benchmarks: runs each scene of bench/scenes REPEATS times headless in a release build and
# prints the medians of the per-step wall time and of the four phases of Allard 2010
# Table 1, with each scene's ratio to the baseline scene measured in the same run.
# Usage: bench/run.sh [REPEATS (default 5)] [STEPS (default 400)]
# Writes bench/results/MACHINE.csv (MACHINE: CPU model and core count).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-5}
steps=${2:-400}
. "$top/bench/release_build.sh"
bin="$build/workbench/cli/contact-workbench"
# The half-space is a test-only contact model: its folder is added explicitly.
plugins=(--plugin-path "$build/tests/plugins/halfspace")

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for scene in "$top"/bench/scenes/*.yaml; do
  name=$(basename "$scene" .yaml)
  for r in $(seq 1 "$repeats"); do
    "$bin" --headless "$scene" "${plugins[@]}" --steps "$steps" --report "$out/$name.$r.json"
  done
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
machine="$cpu, $(nproc) cores"
mkdir -p "$top/bench/results"
csv="$top/bench/results/$(echo "$cpu-$(nproc)c" | tr -c 'A-Za-z0-9.\n-' '_').csv"
python3 "$top/bench/summarize.py" --machine "$machine" --baseline boxes-free --csv "$csv" "$out"/*.json
echo "CSV: $csv"
