#!/usr/bin/env bash
# The constraint solver's direct start (solver parameter direct_start, docs/plugins/constraint.md)
# against the sweeps alone on the flush box pyramids (bench/make_pyramid.py, proximity and
# solver defaults): steps/s, velocity sweeps per step, steps that ended at the sweep cap and
# the largest drift of a box, medians of REPEATS runs of STEPS steps, the two settings
# interleaved within each repeat (the ratio is taken per repeat, in the same run). Writes
# bench/results/direct-start-<machine>.csv.
# Usage: bench/direct_start.sh [REPEATS (3)] [STEPS (300)] [ROWS... (10 20 40)]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-3}
steps=${2:-300}
shift $(( $# > 2 ? 2 : $# ))
rows=("${@:-10 20 40}")
. "$top/bench/release_build.sh"
bin="$build/workbench/cli/contact-workbench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for n in ${rows[@]}; do
  python3 "$top/bench/make_pyramid.py" "$n" > "$out/p$n.yaml"
done
for r in $(seq 1 "$repeats"); do
  for n in ${rows[@]}; do
    for direct in false true; do
      "$bin" --headless "$out/p$n.yaml" --steps "$steps" --set solver.direct_start=$direct \
        --report "$out/p$n.$direct.$r.json" >/dev/null
    done
  done
done
machine=$(python3 "$top/bench/machine_name.py")
mkdir -p "$top/bench/results"
python3 - "$out" "$top/bench/results/direct-start-$machine.csv" "$top/bench" <<'PY'
import glob, os, statistics as st, sys
out, csv_path = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
from solver_run import measure
runs = {}
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    scene, direct, rep, _ = os.path.basename(path).split(".")
    m = measure(path, os.path.join(out, scene + ".yaml"))
    runs.setdefault((scene, direct), {})[rep] = (
        m["steps_per_s"], m["sweeps"], m["capped"], m["drift"], m["steps"])
rows = []
print("| pyramid | direct_start | runs | steps/s | sweeps per step | capped steps | drift (m) | steps/s over the sweeps alone |")
print("|---|---|---|---|---|---|---|---|")
for (scene, direct), v in sorted(runs.items(), key=lambda kv: (int(kv[0][0][1:]), kv[0][1])):
    med = lambda k: st.median(x[k] for x in v.values())
    base = runs[(scene, "false")]
    ratio = st.median(v[rep][0] / base[rep][0] for rep in v if rep in base)
    print(f"| {scene[1:]} rows | {direct} | {len(v)} | {med(0):.1f} | {med(1):.1f} | "
          f"{med(2):.0f} / {next(iter(v.values()))[4]} | {med(3):.2e} | {ratio:.2f} |")
    rows.append((scene, direct, len(v), med(0), med(1), med(2), med(3), ratio))
with open(csv_path, "w") as f:
    f.write("pyramid,direct_start,runs,steps_per_s,sweeps_per_step,capped_steps,drift_m,ratio\n")
    for row in rows:
        f.write(",".join(str(x) for x in row) + "\n")
PY
