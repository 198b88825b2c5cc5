#!/usr/bin/env bash
# The Eulerian grid's hierarchy (Faure 2007 sec. 6, docs/plugins/eulerian.md) against its
# depth and the grid step: steps/s and the milliseconds a step spends in collision
# detection, medians of REPEATS runs of STEPS steps, the levels interleaved within each
# repeat, with each run's state hash (the hierarchy must not change the motion: one hash
# per scene and step). Levels 1 is the flat grid, the baseline of the ratios. Writes
# bench/results/eulerian-levels-<machine>.csv.
# Usage: bench/eulerian_levels.sh [REPEATS (3)] [STEPS (60)]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-3}
steps=${2:-60}
. "$top/bench/release_build.sh"
bin="$build/workbench/cli/contact-workbench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# scene:cell size (0: the scene's automatic step)
cases="scenes/eulerian-mixed-stack.yaml:0 scenes/eulerian-mixed-stack.yaml:0.0075
bench/scenes/eulerian-mixed-stack-particles.yaml:0
bench/scenes/eulerian-ring-on-ball.yaml:0 bench/scenes/eulerian-ring-on-ball.yaml:0.008
bench/scenes/eulerian-ring-on-ball.yaml:0.004"
for r in $(seq 1 "$repeats"); do
  for c in $cases; do
    scene=${c%%:*}
    size=${c##*:}
    for levels in 1 2 3 4; do
      "$bin" --headless "$top/$scene" --steps "$steps" --set contact.cell_size="$size" \
        --set contact.levels="$levels" \
        --report "$out/$(basename "$scene" .yaml)@$size@$levels@$r.json" >/dev/null
    done
  done
done
machine=$(python3 "$top/bench/machine_name.py")
mkdir -p "$top/bench/results"
python3 - "$out" "$top/bench/results/eulerian-levels-$machine.csv" <<'PY'
import glob, json, os, statistics as st, sys
out, csv_path = sys.argv[1], sys.argv[2]
runs = {}
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    scene, size, levels, _ = os.path.basename(path)[:-5].split("@")
    r = json.load(open(path))
    steps = len(r["per_step"])
    runs.setdefault((scene, size), {}).setdefault(int(levels), []).append({
        "steps_per_s": 1000 * steps / r["wall_ms"],
        "detection_ms": r["phase_ms"]["collision_detection"],
        "cell_size": r.get("derived_params", {}).get("contact.cell_size", float(size)),
        "hash": r["state_hash"],
    })
rows = ["scene,cell_size_m,levels,steps_per_s,detection_ms,detection_vs_flat,same_motion,repeats"]
print("| scene | cell size m | levels | steps/s | detection ms/step | detection / flat | same motion |")
print("|---|---|---|---|---|---|---|")
for (scene, size), by_levels in runs.items():
    hashes = {x["hash"] for rs in by_levels.values() for x in rs}
    flat = st.median(x["detection_ms"] for x in by_levels[1])
    for levels in sorted(by_levels):
        rs = by_levels[levels]
        sps = st.median(x["steps_per_s"] for x in rs)
        det = st.median(x["detection_ms"] for x in rs)
        cell = st.median(x["cell_size"] for x in rs)
        same = "yes" if len(hashes) == 1 else "NO"
        print("| %s | %.4g%s | %d | %.3g | %.3g | %.2f | %s |" % (scene, cell,
              " (automatic)" if float(size) == 0 else "", levels, sps, det, det / flat, same))
        rows.append("%s,%.6g,%d,%.4g,%.4g,%.3f,%s,%d" % (scene, cell, levels, sps, det,
                    det / flat, same, len(rs)))
open(csv_path, "w").write("\n".join(rows) + "\n")
PY
