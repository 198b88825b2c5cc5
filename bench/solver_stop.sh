#!/usr/bin/env bash
# The constraint solver's stop on the laws (docs/plugins/constraint.md, "Convergence and its
# report") against a baseline revision built beside it (default 291f7c2, the last one whose
# solves stopped on the sweeps' change at 1e-8 m, sweeps only): the flush box pyramids of 10,
# 20 and 40 rows under `proximity` (bench/make_pyramid.py) and the 10-row pyramid offset by
# 1 cm under `ldi` (cells of 0.3 m, the 0.02 px layer, Algorithm 1's ten stabilization
# passes), each at the solver's defaults of its revision. Per case: steps/s, velocity sweeps
# per step, steps ended at the cap, the largest drift of a box and the kinetic energy at the
# end, medians of REPEATS runs of STEPS steps (the two builds interleaved within each repeat,
# the ratio taken per repeat); and, from one more run with G_MESSAGES_DEBUG=constraint, the
# laws' violation the velocity solves left (the post-solve check: the largest of the
# penetration, the gap under force and the slip error), median and largest over the steps.
# Writes bench/results/solver-stop-<machine>.csv (with TAG=T in the environment,
# solver-stop-T-<machine>.csv).
# GRAVITIES="9.81 9.80 9.82" (environment) runs repeat r under the r-th of these gravities
# (cycling), both builds alike: which settled steps of a tall pyramid need a direct solve
# hangs on the trajectory's round-off, so one trajectory's rate can be a quarter off
# (docs/benchmarks.md); default 9.81 only.
# Usage: bench/solver_stop.sh [REPEATS (3)] [STEPS (300)] [BASE_REVISION (291f7c2)]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-3}
steps=${2:-300}
base_rev=${3:-291f7c2}
. "$top/bench/release_build.sh"
base_name=solver-stop-base
. "$top/bench/baseline_build.sh"
declare -A bin=([current]="$build/workbench/cli/contact-workbench"
                [base]="$base_bin")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for n in 10 20 40; do
  python3 "$top/bench/make_pyramid.py" "$n" > "$out/proximity-$n.yaml"
done
python3 "$top/bench/make_pyramid.py" 10 --offset 0.01 --contact "ldi
  multi_volume: true
  cell_size: 0.3
  target_depth: 0.02" --solver "constraint
  normal_constraint: velocity
  stabilization_iterations: 10" > "$out/ldi-offset-10.yaml"
cases=(proximity-10 proximity-20 proximity-40 ldi-offset-10)
read -r -a gravities <<< "${GRAVITIES:-9.81}"
for r in $(seq 1 "$repeats"); do
  g=${gravities[$(( (r - 1) % ${#gravities[@]} ))]}
  for c in "${cases[@]}"; do
    for b in base current; do
      "${bin[$b]}" --headless "$out/$c.yaml" --steps "$steps" --report "$out/$c.$b.$r.json" \
        --set "world.gravity=[0, 0, -$g]" >/dev/null
    done
  done
done
for c in "${cases[@]}"; do
  for b in base current; do
    # GLib writes debug messages to standard output.
    G_MESSAGES_DEBUG=constraint "${bin[$b]}" --headless "$out/$c.yaml" --steps "$steps" \
      2>/dev/null | grep "post-solve check" > "$out/$c.$b.check" || true
  done
done
machine=$(python3 "$top/bench/machine_name.py")
mkdir -p "$top/bench/results"
python3 - "$out" "$top/bench/results/solver-stop-${TAG:+$TAG-}$machine.csv" "$base_rev" \
  "$top/bench" "${GRAVITIES:-9.81}" <<'PY'
import glob, os, re, statistics as st, sys
out, csv_path, base_rev = sys.argv[1:4]
sys.path.insert(0, sys.argv[4])
from solver_run import measure
runs = {}
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    case, build, rep, _ = os.path.basename(path).split(".")
    m = measure(path, os.path.join(out, case + ".yaml"))
    runs.setdefault((case, build), {})[rep] = (
        m["steps_per_s"], m["sweeps"], m["capped"], m["drift"], m["final_ke"], m["steps"])
def law_errors(case, build):
    errors = []
    for line in open(os.path.join(out, f"{case}.{build}.check")):
        m = re.search(r"penetration ([^ ]+) m, gap under force ([^ ]+) m, .* slip error ([^ ]+) m", line)
        if m:
            errors.append(max(float(x) for x in m.groups()))
    return errors
order = {"proximity-10": 0, "proximity-20": 1, "proximity-40": 2, "ldi-offset-10": 3}
rows = []
print(f"base: {base_rev}; gravity per repeat, cycling: {sys.argv[5]} m/s^2")
print("| case | build | runs | steps/s | sweeps per step | capped steps | drift (m) | KE at the end (J) | laws' violation left, median / largest (m) | steps/s over base |")
print("|---|---|---|---|---|---|---|---|---|---|")
for (case, build), v in sorted(runs.items(), key=lambda kv: (order[kv[0][0]], kv[0][1] != "base")):
    med = lambda k: st.median(x[k] for x in v.values())
    base = runs[(case, "base")]
    ratio = st.median(v[rep][0] / base[rep][0] for rep in v if rep in base)
    errors = law_errors(case, build)
    law_med = st.median(errors) if errors else float("nan")
    law_max = max(errors) if errors else float("nan")
    print(f"| {case} | {build} | {len(v)} | {med(0):.1f} | {med(1):.1f} | "
          f"{med(2):.0f} / {next(iter(v.values()))[5]} | {med(3):.2e} | {med(4):.2e} | "
          f"{law_med:.2e} / {law_max:.2e} | {ratio:.2f} |")
    rows.append((case, build, len(v), med(0), med(1), med(2), med(3), med(4), law_med, law_max, ratio))
with open(csv_path, "w") as f:
    f.write("case,build,runs,steps_per_s,sweeps_per_step,capped_steps,drift_m,final_ke_j,"
            "law_error_median_m,law_error_max_m,ratio\n")
    for row in rows:
        f.write(",".join(str(x) for x in row) + "\n")
PY
