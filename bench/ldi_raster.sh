#!/usr/bin/env bash
# The LDI rasterisers against each other: the CPU reference on 1 and 2 threads and the OpenGL
# backend (on this machine's driver: Mesa's llvmpipe where there is no GPU), on two spheres, a
# torus and a box overlapping (16140 triangles; the scene of /ldi/gl/fragments/several-bodies)
# at pixel sizes giving a few hundred thousand to a million fragments. Each backend's time is
# one whole call (rasterise, read back, fill and sort the three images) after a warm-up call;
# the test program runs REPEATS times and the table gives the medians and the ratios to the
# CPU on one thread, measured in the same run. The GL backend sorts on one thread per
# processor. Writes bench/results/ldi-raster-<machine>.csv beside the table.
# Usage: bench/ldi_raster.sh [REPEATS (default 5)] [PIXEL_SIZE ... (default 0.01 0.005)]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-5}
shift || true
pixels="$*"
[ -n "$pixels" ] || pixels="0.01 0.005"
. "$top/bench/release_build.sh"
bin="$build/tests/ldi/test-ldi-gl"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
machine=$(python3 "$top/bench/machine_name.py")
for r in $(seq 1 "$repeats"); do
  CWB_BENCH_PIXELS="$pixels" "$bin" -m perf -p /ldi/gl/perf/raster > "$out/run-$r.log" 2>&1
done
python3 - "$out" "$top/bench/results/ldi-raster-$machine.csv" <<'PY'
import collections, csv, glob, re, statistics, sys
out, csv_path = sys.argv[1], sys.argv[2]
times = collections.defaultdict(list)
fragments, triangles = {}, {}
pattern = re.compile(r"ldi-raster h=(\S+) fragments=(\d+) triangles=(\d+) backend=(\S+) ms=(\S+)")
for path in sorted(glob.glob(f"{out}/run-*.log")):
    for m in pattern.finditer(open(path).read()):
        h, n, t, backend, ms = m.groups()
        fragments[h], triangles[h] = int(n), int(t)
        times[(h, backend)].append(float(ms))
backends = ["cpu-1", "cpu-2", "gl"]
print("| pixel | triangles | fragments | cpu 1 thread ms | cpu 2 threads ms | gl ms "
      "| cpu 2 / cpu 1 | gl / cpu 1 |")
print("|---|---|---|---|---|---|---|---|")
rows = []
for h in fragments:
    med = {b: statistics.median(times[(h, b)]) for b in backends}
    print(f"| {h} | {triangles[h]} | {fragments[h]} | {med['cpu-1']:.1f} | {med['cpu-2']:.1f} "
          f"| {med['gl']:.1f} | {med['cpu-2'] / med['cpu-1']:.2f} | {med['gl'] / med['cpu-1']:.2f} |")
    rows.append([h, triangles[h], fragments[h], len(times[(h, "gl")])]
                + [f"{med[b]:.3f}" for b in backends])
with open(csv_path, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["pixel_size", "triangles", "fragments", "repeats", "cpu_1_thread_ms",
                "cpu_2_threads_ms", "gl_ms"])
    w.writerows(rows)
PY
