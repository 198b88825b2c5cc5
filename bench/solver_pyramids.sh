#!/usr/bin/env bash
# The constraint solver on the box pyramids of issue 16 (bench/make_pyramid.py, 1 cm gaps,
# proximity with a 2 mm margin): sweeps per step, steps/s, steps that ended at the sweep cap
# and the top box's height, medians of REPEATS runs. With BASE_BUILD (a release build of
# another checkout), runs it interleaved with this tree's release build, in the same run.
# Usage: [BASE_BUILD=DIR] bench/solver_pyramids.sh [REPEATS (3)] [STEPS (300)] [ROWS... (10 20)]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-3}
steps=${2:-300}
shift $(( $# > 2 ? 2 : $# ))
rows=("${@:-10 20}")
build="$top/build-bench"
"$top/scripts/build.sh" "$build" -Dbuildtype=release -Db_ndebug=true >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
builds=(new)
[ -n "${BASE_BUILD:-}" ] && builds=(base new)
for n in ${rows[@]}; do
  for kind in gap offset; do
    args=(--gap 0.01)
    [ $kind = offset ] && args+=(--offset 0.01)
    python3 "$top/bench/make_pyramid.py" "$n" "${args[@]}" > "$out/p$n-$kind.yaml"
    for r in $(seq 1 "$repeats"); do
      for b in "${builds[@]}"; do
        dir=$build; [ $b = base ] && dir=$BASE_BUILD
        "$dir/workbench/cli/contact-workbench" --headless "$out/p$n-$kind.yaml" --steps "$steps" \
          --set contact.model=proximity --set contact.margin=0.002 \
          --report "$out/$b.p$n-$kind.$r.json" >/dev/null
      done
    done
  done
done
python3 - "$out" <<'PY'
import glob, json, os, statistics as st, sys
out = sys.argv[1]
runs = {}
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    build, scene, _, _ = os.path.basename(path).split(".")
    r = json.load(open(path))
    ps = r["per_step"]
    it = [s["solver_iterations"] or 0 for s in ps]
    runs.setdefault((scene, build), []).append((
        len(ps) * 1000 / r["wall_ms"], st.mean(it),
        sum(1 for s in ps if s.get("solver_converged") is False),
        max(b["centroid"][2] for b in r["bodies"] if b["name"] != "ground"), len(ps)))
print("| pyramid | build | runs | steps/s | sweeps per step | capped steps | top box z (m) |")
print("|---|---|---|---|---|---|---|")
for (scene, build), v in sorted(runs.items()):
    med = lambda k: st.median(x[k] for x in v)
    print(f"| {scene} | {build} | {len(v)} | {med(0):.1f} | {med(1):.1f} | {med(2):.0f} / {v[0][4]} | {med(3):.3f} |")
PY
