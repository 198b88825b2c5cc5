#!/usr/bin/env bash
# Penalty forces integrated implicitly (predictor-corrector, `implicit_contacts`;
# docs/plugins/penalty.md) against a baseline revision built beside it (default 18b185a:
# the bodies already coupled by Gauss-Seidel sweeps, each body's contact blocks walked
# through its mapping at every application): two boxes stacked at 1e6 Pa
# (bench/scenes/implicit-two-boxes.yaml) and the eulerian mixed stack at 1e4 Pa
# (scenes/eulerian-mixed-stack.yaml under predictor-corrector). Per case and build: ms a step,
# the share of it in mechanical motion (the bodies' implicit steps), sweeps a step and the
# kinetic energy at the end, medians of REPEATS runs of STEPS steps of the boxes and
# MIXED_STEPS of the mixed stack (its bodies meet from the 8th step; the baseline takes
# seconds a step there), the two builds interleaved within each repeat, the ratio taken per
# repeat. Writes bench/results/implicit-contacts-<machine>.csv.
# Usage: bench/implicit_contacts.sh [REPEATS (3)] [STEPS (100)] [MIXED_STEPS (20)]
#        [BASE_REVISION (18b185a)]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-3}
steps=${2:-100}
mixed_steps=${3:-20}
base_rev=${4:-18b185a}
. "$top/bench/release_build.sh"
base_name=implicit-contacts-base
. "$top/bench/baseline_build.sh"
declare -A bin=([current]="$build/workbench/cli/contact-workbench"
                [base]="$base_bin")
declare -A scene=([two-boxes]="$top/bench/scenes/implicit-two-boxes.yaml"
                  [mixed-stack]="$top/scenes/eulerian-mixed-stack.yaml")
declare -A steps_of=([two-boxes]="$steps" [mixed-stack]="$mixed_steps")
declare -A sets=([two-boxes]=""
                 [mixed-stack]="solver.name=predictor-corrector solver.implicit_contacts=true contact.stiffness=1e4")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq 1 "$repeats"); do
  for c in two-boxes mixed-stack; do
    args=()
    for s in ${sets[$c]}; do args+=(--set "$s"); done
    for b in base current; do
      "${bin[$b]}" --headless "${scene[$c]}" --steps "${steps_of[$c]}" \
        --report "$out/$c.$b.$r.json" "${args[@]}" >/dev/null
    done
  done
done
machine=$(python3 "$top/bench/machine_name.py")
mkdir -p "$top/bench/results"
python3 - "$out" "$top/bench/results/implicit-contacts-$machine.csv" "$base_rev" <<'PY'
import glob, json, os, statistics as st, sys
out, csv_path, base_rev = sys.argv[1:4]
runs = {}
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    case, build, rep, _ = os.path.basename(path).split(".")
    r = json.load(open(path))
    steps = r["per_step"]
    ms = r["wall_ms"] / len(steps)
    sweeps = [s.get("solver_iterations") or 0 for s in steps]
    runs.setdefault((case, build), {})[rep] = (
        ms, r["phase_ms"]["mechanical_motion"] / ms, st.mean(sweeps),
        steps[-1]["kinetic_energy"], len(steps))
print(f"base: {base_rev}")
print("| case | build | runs | ms a step | mechanical motion share | sweeps a step | KE at the end (J) | time over base |")
print("|---|---|---|---|---|---|---|---|")
rows = []
for (case, build), v in sorted(runs.items(), key=lambda kv: (kv[0][0] != "two-boxes", kv[0][1] != "base")):
    med = lambda k: st.median(x[k] for x in v.values())
    base = runs[(case, "base")]
    ratio = st.median(v[rep][0] / base[rep][0] for rep in v if rep in base)
    print(f"| {case} | {build} | {len(v)} | {med(0):.1f} | {med(1):.0%} | {med(2):.1f} | "
          f"{med(3):.2e} | {ratio:.3f} |")
    rows.append((case, build, len(v), med(0), med(1), med(2), med(3), ratio))
with open(csv_path, "w") as f:
    f.write("case,build,runs,ms_per_step,motion_share,sweeps_per_step,final_ke_j,time_over_base\n")
    for row in rows:
        f.write(",".join(str(x) for x in row) + "\n")
PY
