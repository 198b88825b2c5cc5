#!/usr/bin/env bash
# What drawing a fluid as a surface costs (the View's particle_style=surface,
# workbench/render/fluid_surfaces.h): the build of the surface around the 21 600 particles
# of scenes/fluid-mixed.yaml after STEPS steps, against the mean step of the same run (the
# report's), REPEATS runs in a release build. Each run steps headless, renders one
# screenshot with the surface and prints the build time the renderer logs
# (G_MESSAGES_DEBUG=cwb-render); prints the medians and the median ratio.
# Usage: bench/fluid_surface.sh [REPEATS (5)] [STEPS (40)]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-5}
steps=${2:-40}
. "$top/bench/release_build.sh"
bin="$build/workbench/cli/contact-workbench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq 1 "$repeats"); do
  G_MESSAGES_DEBUG=cwb-render "$bin" --headless "$top/scenes/fluid-mixed.yaml" \
    --steps "$steps" --report "$out/report.$r.json" --screenshot "$out/shot.png" \
    --view particle_style=surface >"$out/log.$r" 2>&1
done
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
echo "machine: $cpu, $(nproc) cores; scene: fluid-mixed.yaml after $steps steps"
python3 - "$out" "$repeats" <<'PY'
import json, re, statistics, sys
out, repeats = sys.argv[1], int(sys.argv[2])
builds, steps, ratios, shape = [], [], [], ""
for r in range(1, repeats + 1):
    log = open(f"{out}/log.{r}").read()
    m = re.search(r"surface of body 'water': (\d+) particles, (\d+) triangles, built in ([0-9.]+) ms", log)
    report = json.load(open(f"{out}/report.{r}.json"))
    step = report["wall_ms"] / report["steps"]
    builds.append(float(m.group(3)))
    steps.append(step)
    ratios.append(float(m.group(3)) / step)
    shape = f"{m.group(1)} particles, {m.group(2)} triangles"
print(f"surface: {shape}")
print(f"build {statistics.median(builds):.1f} ms (median of {repeats}; "
      f"{min(builds):.1f}-{max(builds):.1f}), step {statistics.median(steps):.0f} ms, "
      f"build / step {statistics.median(ratios):.3f}")
PY
