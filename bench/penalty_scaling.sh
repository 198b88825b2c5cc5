#!/usr/bin/env bash
# The penalty model's cost against the number of contacts (the issue's benchmark, and
# Lazarevych et al.'s claim that the cost grows linearly with the collisions): baskets of N
# tori (bench/make_basket.py) for N = 10, 100, 1000, each run REPEATS times for STEPS steps
# in a release build. Prints per N the medians of the step time, the mean number of contacts
# and the time per contact.
# Usage: bench/penalty_scaling.sh [REPEATS (default 3)] [STEPS (default 400)] [N ...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-3}
steps=${2:-400}
shift 2 || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 100 1000)
. "$top/bench/release_build.sh"
bin="$build/workbench/cli/contact-workbench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| bodies | contacts (mean) | step ms (median) | detection ms | modelling ms | us per contact |\n'
printf '|---|---|---|---|---|---|\n'
for n in "${sizes[@]}"; do
  python3 "$top/bench/make_basket.py" "$n" > "$out/basket-$n.yaml"
  for r in $(seq 1 "$repeats"); do
    "$bin" --headless "$out/basket-$n.yaml" --steps "$steps" --report "$out/basket-$n.$r.json"
  done
  python3 - "$n" "$out"/basket-"$n".*.json <<'PY'
import json, statistics, sys
n = sys.argv[1]
rows = []
for path in sys.argv[2:]:
    r = json.load(open(path))
    contacts = statistics.mean(s["contacts"] for s in r["per_step"])
    rows.append((r["wall_ms"] / r["steps"], contacts, r["phase_ms"]["collision_detection"],
                 r["phase_ms"]["contact_modeling"]))
step = statistics.median(x[0] for x in rows)
contacts = statistics.median(x[1] for x in rows)
det = statistics.median(x[2] for x in rows)
mod = statistics.median(x[3] for x in rows)
print(f"| {n} | {contacts:.0f} | {step:.2f} | {det:.2f} | {mod:.2f} | {1000 * step / max(contacts, 1):.1f} |")
PY
done
