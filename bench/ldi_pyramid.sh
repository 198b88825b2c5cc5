#!/usr/bin/env bash
# The `ldi` contact model on many bodies (issue 16): flush box pyramids of 1 m boxes
# (bench/make_pyramid.py, dt 0.01, mu 0.6) under Allard 2010's Algorithm 1 (velocity rows,
# up to 10 post-stabilization passes), and how the cost scales with bodies (rows), pixels
# (pixels_per_body, or a fixed pixel_size) and triangles (each box a cube subdivided into
# N x N squares per face, two triangles each). Each case runs REPEATS times headless for STEPS
# steps in a release build (build-bench/), the cases interleaved within each repeat; the table
# gives the medians of the step time and phase_ms, the mean contacts and post-stabilization
# passes per step, and, from a run with G_MESSAGES_DEBUG=ldi, the detections per step, the
# LDI regions (pairs) per detection and the fragments per detection. Writes
# bench/results/ldi-pyramid-<machine>.csv. With BACKENDS "cpu gl" each case runs on both LDI
# backends (the OpenGL one on this machine's driver), and the last column gives each case's
# step time against the cpu backend's, measured in the same run.
# Usage: bench/ldi_pyramid.sh [REPEATS (default 3)] [STEPS (default 100)] [BACKENDS (default cpu)]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-3}
steps=${2:-100}
backends=${3:-cpu}
. "$top/bench/release_build.sh"
bin="$build/workbench/cli/contact-workbench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# A unit cube of N x N squares per face, outward counter-clockwise triangles (OBJ).
cube_obj() {
  python3 - "$1" <<'PY'
import sys
n = int(sys.argv[1])
verts, index, faces = [], {}, []
def v(p):
    key = tuple(round(c, 12) for c in p)
    if key not in index:
        index[key] = len(verts)
        verts.append(key)
    return index[key] + 1
for axis in range(3):
    for sign in (-1, 1):
        u, w = (axis + 1) % 3, (axis + 2) % 3
        def point(i, j):
            p = [0.0, 0.0, 0.0]
            p[axis] = 0.5 * sign
            p[u] = -0.5 + i / n
            p[w] = -0.5 + j / n
            return p
        for i in range(n):
            for j in range(n):
                a, b, c, d = (v(point(i, j)), v(point(i + 1, j)), v(point(i + 1, j + 1)),
                              v(point(i, j + 1)))
                quad = [(a, b, c), (a, c, d)] if sign > 0 else [(a, c, b), (a, d, c)]
                faces += quad
for p in verts:
    print("v %.12g %.12g %.12g" % p)
for f in faces:
    print("f %d %d %d" % f)
PY
}

# name|rows|--set options|cube subdivisions (0: the box shape)
cases=(
  "4 rows|4||0"
  "6 rows|6||0"
  "10 rows|10||0"
  "10 rows, 16 px per body|10|contact.pixels_per_body=16|0"
  "10 rows, 64 px per body|10|contact.pixels_per_body=64|0"
  "10 rows, boxes of 96 triangles|10||2"
  "10 rows, boxes of 384 triangles|10||4"
  "10 rows, boxes of 1536 triangles|10||8"
)
i=0
k=0
for c in "${cases[@]}"; do
  IFS='|' read -r name rows sets sub <<<"$c"
  scene="$out/scene-$k.yaml"
  python3 "$top/bench/make_pyramid.py" "$rows" --contact ldi |
    sed 's/^  name: constraint$/  name: constraint\n  normal_constraint: velocity\n  stabilization_iterations: 10/' > "$scene"
  if [ "$sub" != 0 ]; then
    cube_obj "$sub" > "$out/cube-$k.obj"
    sed -i "s|shape: { type: box, size: \[1, 1, 1\] }|shape: { type: mesh, file: cube-$k.obj }|" "$scene"
  fi
  for backend in $backends; do
    echo "$name" > "$out/case-$i.name"
    echo "$backend" > "$out/case-$i.backend"
    args=(--headless "$scene" --steps "$steps" --set "contact.backend=$backend")
    for s in $sets; do args+=(--set "$s"); done
    printf '%s\n' "${args[@]}" > "$out/case-$i.args"
    G_MESSAGES_DEBUG=ldi "$bin" "${args[@]}" 2>&1 | grep "ldi size" > "$out/case-$i.ldi" || true
    i=$((i + 1))
  done
  k=$((k + 1))
done
for r in $(seq 1 "$repeats"); do
  for k in $(seq 0 $((i - 1))); do
    mapfile -t args < "$out/case-$k.args"
    "$bin" "${args[@]}" --report "$out/case-$k-$r.json" >/dev/null 2>&1 ||
      { echo "failed: $(cat "$out/case-$k.name")" >&2; exit 1; }
  done
done

machine=$(python3 "$top/bench/machine_name.py")
python3 - "$out" "$i" "$steps" "$top/bench/results/ldi-pyramid-$machine.csv" <<'PY'
import csv, glob, json, re, statistics, sys
out, n_cases, steps, csv_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
phases = ["collision_detection", "contact_modeling", "mechanical_motion", "constraint_solver"]
size = re.compile(r"ldi size: (\d+) regions, (\d+) triangles, largest image (\d+) x (\d+) "
                  r"pixels, (\d+) layers, (\d+) fragments, (\d+) regions rasterised")
rows = []
base_step = {}
for i in range(n_cases):
    backend = open(f"{out}/case-{i}.backend").read().strip()
    reports = [json.load(open(p)) for p in sorted(glob.glob(f"{out}/case-{i}-*.json"))]
    name = open(f"{out}/case-{i}.name").read().strip()
    step = statistics.median(r["wall_ms"] / r["steps"] for r in reports)
    med = {p: statistics.median(r["phase_ms"][p] for r in reports) for p in phases}
    per = reports[0]["per_step"]
    sizes = [tuple(map(int, m.groups())) for m in size.finditer(open(f"{out}/case-{i}.ldi").read())]
    det = len(sizes)
    if backend == "cpu":
        base_step[name] = step
    rows.append(dict(case=name, backend=backend, bodies=len(reports[0]["bodies"]),
                     contacts=round(statistics.mean(s["contacts"] for s in per), 1),
                     passes=round(statistics.mean(s["stabilization_passes"] or 0 for s in per), 2),
                     detections_per_step=round(det / steps, 2),
                     pairs_per_detection=round(sum(s[0] for s in sizes) / max(det, 1), 1),
                     rasterised_per_detection=round(sum(s[6] for s in sizes) / max(det, 1), 1),
                     triangles_per_detection=round(sum(s[1] for s in sizes) / max(det, 1)),
                     fragments_per_detection=round(sum(s[5] for s in sizes) / max(det, 1)),
                     step_ms=round(step, 2), steps_per_s=round(1000 / step, 1),
                     step_vs_cpu=round(step / base_step[name], 3) if name in base_step else "",
                     runs=len(reports),
                     **{p: round(med[p], 2) for p in phases}))
print("| case | backend | bodies | contacts | passes | detections / step | pairs (rasterised) / detection "
      "| triangles kept / detection | fragments / detection | detection ms | modeling ms "
      "| solver ms | step ms | steps/s | step / cpu |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['case']} | {r['backend']} | {r['bodies']} | {r['contacts']} | {r['passes']} | {r['detections_per_step']} "
          f"| {r['pairs_per_detection']} ({r['rasterised_per_detection']}) | {r['triangles_per_detection']} "
          f"| {r['fragments_per_detection']} | {r['collision_detection']} | {r['contact_modeling']} "
          f"| {r['constraint_solver']} | {r['step_ms']} | {r['steps_per_s']} | {r['step_vs_cpu']} |")
with open(csv_path, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
print(f"\n({csv_path})")
PY
