#!/usr/bin/env bash
# The GUI benchmark: frame time of the viewport with every overlay on, and the UI's input
# latency (a camera turn each frame, to the end of the frame that shows it) while the
# simulation steps as fast as it can in its worker thread. Runs the program's hidden
# --bench-frames mode REPEATS times per case in a release build, under Xvfb when there is no
# display, and prints the median of each measure over the runs.
#
# Cases: "paused" draws a settled scene (SETTLE_STEPS steps first, so that every overlay has
# contacts to draw) with nothing stepping; "stepping" draws while the worker steps (up to 1e6
# steps, far more than the frames take). Each case runs with the widget renderer the program
# picks ("auto": cairo on a software OpenGL, see workbench/app/widget_renderer.h) and with
# GTK's GL renderer forced ("gl"), the baseline measured in the same run. The stepping rate is
# also compared with the same scene run headless over about as many steps.
# Usage: bench/gui_frames.sh [SCENE (default scenes/penalty-basket.yaml)] [REPEATS (default 5)]
#        [FRAMES (default 120)]; SETTLE_STEPS (default 300)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
scene=${1:-$top/scenes/penalty-basket.yaml}
repeats=${2:-5}
frames=${3:-120}
settle=${SETTLE_STEPS:-300}
. "$top/bench/release_build.sh"
bin="$build/workbench/cli/contact-workbench"
wrap=()
if [ -z "${DISPLAY:-}" ]; then
  wrap=(xvfb-run -a -s "-screen 0 1600x1000x24")
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run_case() {   # widgets case args...
  local widgets=$1 case=$2
  shift 2
  if [ "$widgets" = auto ]; then
    env -u GSK_RENDERER "${wrap[@]}" "$bin" "$scene" "$@" --bench-frames "$frames"
  else
    GSK_RENDERER=$widgets "${wrap[@]}" "$bin" "$scene" "$@" --bench-frames "$frames"
  fi | grep '^bench' >>"$out/$widgets-$case"
}
for r in $(seq 1 "$repeats"); do
  for widgets in auto gl; do
    run_case "$widgets" paused --steps "$settle" --bench-paused
    run_case "$widgets" stepping --steps 1000000
  done
  # Headless baseline over about as many steps as the last stepping run got through.
  n=$(grep '^bench:' "$out/auto-stepping" | tail -1 \
      | sed 's/.*steps_per_s=\([0-9.]*\).*interval_ms=\([0-9.]*\).*/\1 \2/' \
      | awk -v f="$frames" '{ n = int($1 * $2 * f / 1000); print (n < 100 ? 100 : n) }')
  "$bin" --headless "$scene" --steps "$n" --report "$out/report.json" >/dev/null
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["steps"] / r["wall_ms"] * 1e3)' \
    "$out/report.json" >>"$out/headless"
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
renderer=$(grep -m1 '^bench-gl:' "$out/auto-paused" | sed 's/^bench-gl: //')
echo "machine: $cpu, $(nproc) cores; OpenGL: ${renderer:-unknown}; scene: $(basename "$scene")"
python3 - "$out" <<'PY'
import statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
keys = ["steps_per_s", "interval_ms", "interval_p95_ms", "render_ms", "render_p95_ms",
        "latency_ms", "latency_p95_ms"]
print("| case | widgets | runs | bodies | contacts | " + " | ".join(keys) + " |")
print("|---" * (5 + len(keys)) + "|")
rows = {}
for case in ["paused", "stepping"]:
    for widgets in ["auto", "gl"]:
        text = (out / f"{widgets}-{case}").read_text().splitlines()
        name = next((l.split(": ", 1)[1] for l in text if l.startswith("bench-widgets:")), "?")
        runs = [dict(kv.split("=") for kv in l.split()[1:]) for l in text if l.startswith("bench:")]
        rows[widgets, case] = runs
        med = {k: statistics.median(float(r[k]) for r in runs) for k in keys}
        print(f"| {case} | {widgets} ({name}) | {len(runs)} | {runs[0]['bodies']} | "
              f"{runs[-1]['contacts']} | " + " | ".join(f"{med[k]:.2f}" for k in keys) + " |")
def ratio(case, key):
    per_run = [float(a[key]) / float(b[key]) for a, b in zip(rows["auto", case], rows["gl", case])]
    return statistics.median(per_run)
headless = [float(x) for x in (out / "headless").read_text().split()]
stepping = [float(r["steps_per_s"]) for r in rows["auto", "stepping"]]
print(f"frame interval, auto / gl widgets (median of per-run ratios): paused "
      f"{ratio('paused', 'interval_ms'):.2f}, stepping {ratio('stepping', 'interval_ms'):.2f}")
print(f"headless steps_per_s (median of {len(headless)}): {statistics.median(headless):.1f}; "
      f"stepping under the window (auto) / headless, median of per-run ratios: "
      f"{statistics.median(s / h for s, h in zip(stepping, headless)):.2f}")
PY
