#!/usr/bin/env bash
# The eulerian contact model (docs/plugins/eulerian.md) on its scenes against the grid step:
# steps/s, the share of the step in collision detection and contact modelling (Faure 2007
# reports under 25 % on its mixed stack), contacts, and the kinetic energy at the end, medians
# of REPEATS runs of STEPS steps, the steps interleaved within each repeat. The step is the
# scene's automatic one (0) and the multiples of it given. Writes
# bench/results/eulerian-step-<machine>.csv for the default scene,
# bench/results/eulerian-step-<scene>-<machine>.csv for another.
# Usage: bench/eulerian_step.sh [REPEATS (3)] [STEPS (200)] [SCENE (scenes/eulerian-mixed-stack.yaml)]
#        [CELL_SIZES... (0 0.0075 0.01)]
# SET="key=value ..." in the environment adds those --set overrides to every run (the paper's
# own configuration: SET="contact.response=penalty solver.name=predictor-corrector
# solver.implicit_contacts=true"), and TAG names the CSV's variant (...-<scene>-<TAG>-...).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-3}
steps=${2:-200}
scene=${3:-$top/scenes/eulerian-mixed-stack.yaml}
shift $(( $# > 3 ? 3 : $# ))
sizes=("${@:-0 0.0075 0.01}")
. "$top/bench/release_build.sh"
bin="$build/workbench/cli/contact-workbench"
overrides=()
for kv in ${SET:-}; do overrides+=(--set "$kv"); done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq 1 "$repeats"); do
  for size in ${sizes[@]}; do
    "$bin" --headless "$scene" --steps "$steps" --set contact.cell_size="$size" \
      ${overrides[@]+"${overrides[@]}"} --report "$out/$size.$r.json" >/dev/null
  done
done
machine=$(python3 "$top/bench/machine_name.py")
mkdir -p "$top/bench/results"
stem=$(basename "$scene" .yaml)
csv="$top/bench/results/eulerian-step-$machine.csv"
[ -z "${TAG:-}" ] || stem="$stem-$TAG"
[ "$stem" = eulerian-mixed-stack ] || csv="$top/bench/results/eulerian-step-$stem-$machine.csv"
python3 - "$out" "$csv" "$(basename "$scene")" <<'PY'
import glob, json, os, statistics as st, sys
out, csv_path, scene = sys.argv[1], sys.argv[2], sys.argv[3]
runs = {}
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    size = os.path.basename(path).rsplit(".", 2)[0]
    r = json.load(open(path))
    steps = len(r["per_step"])
    phase = r["phase_ms"]
    total = r["wall_ms"] / steps
    runs.setdefault(size, []).append({
        "steps_per_s": 1000 * steps / r["wall_ms"],
        "detect_share": (phase["collision_detection"] + phase["contact_modeling"]) / total,
        "contacts": r["per_step"][-1]["contacts"],
        "kinetic_energy": r["per_step"][-1]["kinetic_energy"],
        "cell_size": r.get("derived_params", {}).get("contact.cell_size", float(size)),
    })
rows = ["scene,cell_size_m,steps_per_s,detection_share,contacts,kinetic_energy_J,repeats"]
print("| cell size m | steps/s | detection + modelling | contacts | kinetic energy at the end J |")
print("|---|---|---|---|---|")
for size, rs in runs.items():
    med = {k: st.median(x[k] for x in rs) for k in rs[0]}
    cell = med["cell_size"] if float(size) == 0 else float(size)
    print("| %.4g%s | %.3g | %.0f %% | %d | %.2g |" % (cell, " (automatic)" if float(size) == 0 else "",
          med["steps_per_s"], 100 * med["detect_share"], med["contacts"], med["kinetic_energy"]))
    rows.append("%s,%.6g,%.4g,%.4f,%d,%.3g,%d" % (scene, cell, med["steps_per_s"],
                med["detect_share"], med["contacts"], med["kinetic_energy"], len(rs)))
open(csv_path, "w").write("\n".join(rows) + "\n")
PY
