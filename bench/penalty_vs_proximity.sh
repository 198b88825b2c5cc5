#!/usr/bin/env bash
# Cost per contact per step of the `penalty` model (predictor-corrector solver) against the
# `proximity` model (constraint solver, margin 2 mm) on one scene, run interleaved so that
# both see the same machine load: the 10-row box pyramid of bench/make_pyramid.py with 1 cm
# gaps and 1 cm offsets (the scene today's point detection handles), 300 steps.
# Usage: [PYRAMID=flush] bench/penalty_vs_proximity.sh [REPEATS (3)] [DT (0.002)] [BIN ...]
# PYRAMID=flush runs the flush pyramid instead (boxes face to face, corners on the edges
# below: make_pyramid.py 10 --gap 0 --offset 0), the scene the convex manifolds hold.
# Each BIN (default: a release build of this tree) runs both models; give an older build's
# contact-workbench as a second BIN for before/after (its plugins load from its build tree).
# Prints per binary and model the medians of the step time, the mean contacts per step and
# the time per contact per step.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-3}
dt=${2:-0.002}
shift 2 || true
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  "$top/scripts/build.sh" "$top/build-bench" -Dbuildtype=release -Db_ndebug=true >/dev/null
  bins=("$top/build-bench/workbench/cli/contact-workbench")
fi
case ${PYRAMID:-gap} in
  flush) layout=(--gap 0 --offset 0) ;;
  gap) layout=(--gap 0.01 --offset 0.01) ;;
  *) echo "PYRAMID must be gap or flush" >&2; exit 2 ;;
esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 "$top/bench/make_pyramid.py" 10 "${layout[@]}" --dt "$dt" \
  --contact penalty --solver predictor-corrector > "$out/penalty.yaml"
python3 "$top/bench/make_pyramid.py" 10 "${layout[@]}" --dt "$dt" \
  --contact proximity --solver constraint > "$out/proximity.yaml"
for r in $(seq 1 "$repeats"); do
  for b in "${!bins[@]}"; do
    "${bins[$b]}" --headless "$out/penalty.yaml" --steps 300 --report "$out/$b.penalty.$r.json"
    "${bins[$b]}" --headless "$out/proximity.yaml" --steps 300 --set contact.margin=0.002 \
      --report "$out/$b.proximity.$r.json"
  done
done
python3 - "$out" "${bins[@]}" <<'PY'
import glob, json, statistics, sys
out, bins = sys.argv[1], sys.argv[2:]
print("| binary | model | contacts (mean) | step ms (median) | us per contact per step |")
print("|---|---|---|---|---|")
for b, path in enumerate(bins):
    for model in ("penalty", "proximity"):
        rows = []
        for f in sorted(glob.glob(f"{out}/{b}.{model}.*.json")):
            r = json.load(open(f))
            contacts = statistics.mean(s["contacts"] for s in r["per_step"])
            rows.append((r["wall_ms"] / r["steps"], contacts))
        step = statistics.median(x[0] for x in rows)
        contacts = statistics.median(x[1] for x in rows)
        print(f"| {path} | {model} | {contacts:.0f} | {step:.2f} | {1000 * step / contacts:.1f} |")
PY
