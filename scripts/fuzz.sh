#!/usr/bin/env bash
# Fuzzes the parsers a user's files and arguments reach (fuzz/: scene text, --set, mesh
# import) with libFuzzer, in a clang build with AddressSanitizer and UndefinedBehaviorSanitizer
# (build-fuzz/). Seeds: the shipped scenes and test data. Findings (crash-*, leak-*, timeout-*)
# go to fuzz-findings/TARGET/; the last line is "N passed, N failed" (one per target).
# Usage: scripts/fuzz.sh [SECONDS per target (60)]
#        scripts/fuzz.sh --ci      a fixed, seeded number of runs per target (CI: repeatable)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh" fuzz || exit 1

limit=(-max_total_time="${1:-60}")
ci=0
if [ "${1:-}" = "--ci" ]; then
  ci=1
fi
build="$top/build-fuzz"
if [ ! -f "$build/build.ninja" ]; then
  CC=clang meson setup "$build" "$top" -Dfuzz=true -Dgui=disabled -Dout_of_tree_test=false \
    -Db_sanitize=address,undefined -Db_lundef=false >/dev/null || exit 1
fi
ninja -C "$build" fuzz/fuzz-scene fuzz/fuzz-set fuzz/fuzz-mesh >/dev/null || exit 1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Seeds, in folders of their own: libFuzzer writes what it finds to its first folder only.
mkdir -p "$work/seed-scene" "$work/seed-set" "$work/seed-mesh"
cp "$top"/scenes/*.yaml "$top"/tests/data/*.yaml "$work/seed-scene/"
n=0
for line in "world.dt=0.005" "world.gravity=[0, 0, -1]" "contact.model=penalty" \
            "contact.margin=0.01" "solver.iterations=20" "solver.name=constraint" \
            "bodies.box.position=[1, 2, 3]" "bodies.ball.shape.resolution=16" \
            "bodies.ball.model_params.stiffness=5" "bodies.Kügel.fixed=false" \
            "bodies.box.shape.type=sphere" "bodies.box.orientation=[1, 0, 0, 0]" \
            "bodies.ball.friction=0.3" "bodies.ball.model=fem"; do
  n=$((n + 1)); printf '%s' "$line" > "$work/seed-set/$n"
done
# A mesh input is one byte choosing the extension (0 obj, 1 ply, 2 stl), then the file.
k=0
for f in "$top"/tests/data/cube.obj "$top"/tests/data/cube.ply "$top"/tests/data/cube.stl; do
  printf "\\x0$k" > "$work/seed-mesh/$(basename "$f")"
  cat "$f" >> "$work/seed-mesh/$(basename "$f")"
  k=$((k + 1))
done

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Leaks inside Assimp 5.2.5 are its own (fuzz/lsan.supp says how they are told apart).
export LSAN_OPTIONS=suppressions=$top/fuzz/lsan.supp
passed=0
failed=0
for target in scene set mesh; do
  runs=()
  if [ $ci = 1 ]; then
    # Seeded and counted, so that a run finds the same inputs on every machine.
    case $target in
      scene) runs=(-runs=30000) ;;
      set) runs=(-runs=30000) ;;
      mesh) runs=(-runs=4000) ;;
    esac
  else
    runs=("${limit[@]}")
  fi
  findings="$top/fuzz-findings/$target"
  mkdir -p "$findings" "$work/corpus-$target"
  log="$work/$target.log"
  "$build/fuzz/fuzz-$target" "${runs[@]}" -seed=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$findings/" -print_final_stats=1 \
    "$work/corpus-$target" "$work/seed-$target" >"$log" 2>&1
  status=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
  found=$(ls "$findings" | wc -l)
  echo "fuzz-$target: ${execs:-?} executions, coverage ${cov:-?} edges, $found findings" \
       "(exit $status)"
  if [ $status -eq 0 ] && [ "$found" -eq 0 ]; then
    passed=$((passed + 1))
    rmdir "$findings" 2>/dev/null
  else
    failed=$((failed + 1))
    tail -30 "$log" >&2
  fi
done
rmdir "$top/fuzz-findings" 2>/dev/null
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
