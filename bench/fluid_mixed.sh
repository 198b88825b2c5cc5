#!/usr/bin/env bash
# The share of a step in contact on scenes/fluid-mixed.yaml: 21 600 SPH particles, a soft FEM
# ring, a floating box and a sinking ball in a tank (Faure 2007 sec. 7: "collision detection
# and modeling takes less than 25% of the computation time" on its 21 000-particle scene).
# For each repeat and contact model, STEPS steps of the scene from its start (the bodies fall
# into the water and settle on it); the report's phases: collision detection and contact
# modelling (the paper's two), the constraint solve, and the bodies' motion (the SPH step
# with its neighbour search, the FEM and rigid steps), with the SPH step's pressure
# iterations (its debug lines). Prints each model's median shares and milliseconds a step;
# writes bench/results/fluid-mixed-<machine>.csv.
# Usage: bench/fluid_mixed.sh [REPEATS (3)] [STEPS (100)] [MODELS... (eulerian proximity)]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-3}
steps=${2:-100}
shift $(( $# > 2 ? 2 : $# ))
models=("${@:-eulerian proximity}")
. "$top/bench/release_build.sh"
bin="$build/workbench/cli/contact-workbench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
for r in $(seq 1 "$repeats"); do
  for model in ${models[@]}; do
    G_MESSAGES_DEBUG=sph "$bin" --headless "$top/scenes/fluid-mixed.yaml" --steps "$steps" \
      --set "contact.model=$model" --report "$out/$model.$r.json" >"$out/$model.$r.log" 2>&1
  done
done
machine=$(python3 "$top/bench/machine_name.py")
mkdir -p "$top/bench/results"
python3 - "$out" "$top/bench/results/fluid-mixed-$machine.csv" <<'PY'
import glob, json, os, re, statistics as st, sys
out, csv_path = sys.argv[1], sys.argv[2]
table = {}
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    model = os.path.basename(path).split(".")[0]
    report = json.load(open(path))
    if report.get("failure"):
        print(f"{model}: failed: {report['failure']}", file=sys.stderr)
        continue
    phase = report["phase_ms"]
    total = sum(phase.values())
    log = open(path[:-len("json")] + "log").read()
    iterations = [int(k) for k in re.findall(r"(\d+) pressure iterations", log)]
    row = {
        "ms_per_step": total,
        "detection_modelling_share": (phase["collision_detection"] + phase["contact_modeling"])
                                     / total,
        "solve_share": phase["constraint_solver"] / total,
        "motion_share": phase["mechanical_motion"] / total,
        "detection_ms": phase["collision_detection"],
        "modelling_ms": phase["contact_modeling"],
        "solve_ms": phase["constraint_solver"],
        "motion_ms": phase["mechanical_motion"],
        "pressure_iterations": st.mean(iterations),
        "capped_steps_share": sum(k >= 100 for k in iterations) / len(iterations),
    }
    table.setdefault(model, []).append(row)
keys = ["ms_per_step", "detection_modelling_share", "solve_share", "motion_share",
        "detection_ms", "modelling_ms", "solve_ms", "motion_ms", "pressure_iterations",
        "capped_steps_share"]
with open(csv_path, "w") as f:
    f.write("model," + ",".join(keys) + ",repeats\n")
    print("| model | ms a step | detection + modelling | solve | bodies' motion | pressure "
          "iterations a step (steps at the cap of 100) |")
    print("|---|---|---|---|---|---|")
    for model, rows in sorted(table.items()):
        med = {k: st.median(x[k] for x in rows) for k in keys}
        f.write(model + "," + ",".join(f"{med[k]:.6g}" for k in keys) + f",{len(rows)}\n")
        print(f"| {model} | {med['ms_per_step']:.0f} "
              f"| {100 * med['detection_modelling_share']:.1f} % ({med['detection_ms']:.0f} + "
              f"{med['modelling_ms']:.0f} ms) | {100 * med['solve_share']:.1f} % "
              f"({med['solve_ms']:.0f} ms) | {100 * med['motion_share']:.1f} % "
              f"({med['motion_ms']:.0f} ms) | {med['pressure_iterations']:.0f} "
              f"({100 * med['capped_steps_share']:.0f} %) |")
print(f"wrote {csv_path}")
PY
