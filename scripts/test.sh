#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite twice: a normal build and an
# AddressSanitizer + UndefinedBehaviorSanitizer build; then a short seeded run of each fuzz
# target (scripts/fuzz.sh --ci). Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh" || exit 1

status=0
passed=0
failed=0
# meson test writes one JSON object per test to testlog.json; count them from there.
count() {
  local log=$1/meson-logs/testlog.json
  [ -f "$log" ] || return
  local p f
  p=$(grep -cE '"result": "(OK|SKIP|EXPECTEDFAIL)"' "$log")
  f=$(grep -cE '"result": "(FAIL|ERROR|TIMEOUT|UNEXPECTEDPASS)"' "$log")
  passed=$((passed + p)); failed=$((failed + f))
}

for variant in normal sanitize; do
  dir="$top/build-test-$variant"
  opts=()
  [ "$variant" = sanitize ] && opts=(-Db_sanitize=address,undefined -Db_lundef=false)
  echo "== $variant build" >&2
  if ! "$top/scripts/build.sh" "$dir" "${opts[@]}"; then
    echo "build failed ($variant)" >&2
    failed=$((failed + 1)); status=1; continue
  fi
  rm -f "$dir/meson-logs/testlog.json"
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export ASAN_OPTIONS=detect_leaks=1
  # The system's OpenGL stack keeps a few allocations for the process's life (tests/lsan.supp).
  export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp
  # The GTK application tests need a display: without one, run the suite under Xvfb. By
  # default Xvfb resets itself each time its last client leaves, and a test connecting during
  # that reset loses the display and exits (GDK: "Error reading events from display", status
  # 1): -noreset keeps one server for the whole suite.
  display_wrap=()
  if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
    display_wrap=(xvfb-run -a -s "-screen 0 1600x1000x24 -noreset")
  fi
  "${display_wrap[@]}" meson test -C "$dir" --print-errorlogs --num-processes 2 || status=1
  count "$dir"
done

# A short, seeded run of each fuzz target (scripts/fuzz.sh --ci): a parser regression shows
# the day it lands. One result per target.
echo "== fuzz" >&2
fuzz_log=$(mktemp)
"$top/scripts/fuzz.sh" --ci >"$fuzz_log" 2>&1 || status=1
cat "$fuzz_log" >&2
if last=$(tail -1 "$fuzz_log") && [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
  passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
else
  echo "fuzz: no result" >&2
  failed=$((failed + 1)); status=1
fi
rm -f "$fuzz_log"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && exit "$status"
exit 1
