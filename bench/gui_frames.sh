#!/usr/bin/env bash
# The GUI benchmark: frame time of the viewport with every overlay on, and the UI's input
# latency (a camera turn each frame, to the end of the frame that shows it) while the
# simulation steps as fast as it can in its worker thread. Runs the program's hidden
# --bench-frames mode REPEATS times per case in a release build, under Xvfb when there is no
# display, and prints the median of each measure over the runs.
# Usage: bench/gui_frames.sh [SCENE (default scenes/penalty-basket.yaml)] [REPEATS (default 5)]
#        [FRAMES (default 120)]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
scene=${1:-$top/scenes/penalty-basket.yaml}
repeats=${2:-5}
frames=${3:-120}
build="$top/build-bench"
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh" "$build" -Dbuildtype=release -Db_ndebug=true >/dev/null
bin="$build/workbench/cli/contact-workbench"
wrap=()
if [ -z "${DISPLAY:-}" ]; then
  wrap=(xvfb-run -a -s "-screen 0 1600x1000x24")
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# "paused": drawing only; "stepping": the worker steps the scene meanwhile (up to 1e6 steps,
# far more than the frames take).
for r in $(seq 1 "$repeats"); do
  "${wrap[@]}" "$bin" "$scene" --bench-frames "$frames" | grep '^bench' >>"$out/paused"
  "${wrap[@]}" "$bin" "$scene" --steps 1000000 --bench-frames "$frames" \
    | grep '^bench' >>"$out/stepping"
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
renderer=$(grep -m1 '^bench-gl:' "$out/paused" | sed 's/^bench-gl: //')
echo "machine: $cpu, $(nproc) cores; OpenGL: ${renderer:-unknown}; scene: $(basename "$scene")"
python3 - "$out" <<'PY'
import statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
keys = ["steps_per_s", "interval_ms", "render_ms", "render_p95_ms", "latency_ms", "latency_p95_ms"]
print("| case | runs | bodies | contacts | " + " | ".join(keys) + " |")
print("|---" * (4 + len(keys)) + "|")
for case in ["paused", "stepping"]:
    rows = []
    for line in (out / case).read_text().splitlines():
        if not line.startswith("bench:"):
            continue
        rows.append(dict(kv.split("=") for kv in line.split()[1:]))
    med = {k: statistics.median(float(r[k]) for r in rows) for k in keys}
    print(f"| {case} | {len(rows)} | {rows[0]['bodies']} | {rows[-1]['contacts']} | "
          + " | ".join(f"{med[k]:.2f}" for k in keys) + " |")
PY
