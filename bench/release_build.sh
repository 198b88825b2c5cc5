# Sourced by the benchmarks after they set $top: sets $build to a release build of this tree,
# installing the project's dependencies and building it first. CWB_BENCH_BUILD names a
# release build made elsewhere and skips both, for a machine with no package registry (a
# lent GPU machine, which gets the binaries and their libraries carried to it).
if [ -n "${CWB_BENCH_BUILD:-}" ]; then
  build=$(cd "$CWB_BENCH_BUILD" && pwd)
else
  build="$top/build-bench"
  "$top/scripts/install-deps.sh"
  "$top/scripts/build.sh" "$build" -Dbuildtype=release -Db_ndebug=true >/dev/null
fi
