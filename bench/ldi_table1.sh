#!/usr/bin/env bash
# Allard 2010 Table 1 for this project's LDI scenes: objects, triangles, LDI pixels and layers,
# contacts, the four phase times and iterations per second, for both backends (cpu, and gl on
# this machine's OpenGL: Mesa's llvmpipe where there is no GPU). Each case runs REPEATS times
# headless for STEPS steps in a release build (build-bench/) and the table gives the medians
# of the report's phase_ms and step time; a separate run with G_MESSAGES_DEBUG=ldi reads the
# LDI sizes the model logs (largest image, layers: most fragments on one pixel, triangles
# rasterised). The ratio column is each case's step time against the same scene on the cpu
# backend, measured in the same run. Writes bench/results/ldi-table1-<machine>.csv.
# Usage: bench/ldi_table1.sh [REPEATS (default 3)] [STEPS (default 200)] [BACKENDS (default "cpu gl")]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-3}
steps=${2:-200}
backends=${3:-cpu gl}
. "$top/bench/release_build.sh"
bin="$build/workbench/cli/contact-workbench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# name|scene|--set options (space-separated)
cases=(
  "torus stack (fig. 1)|scenes/ldi-torus-stack.yaml|"
  "snake, one volume (fig. 7)|scenes/ldi-snake.yaml|"
  "snake, 20 cm cells|scenes/ldi-snake.yaml|contact.multi_volume=true contact.cell_size=0.2"
  "snake, 10 cm cells|scenes/ldi-snake.yaml|contact.multi_volume=true contact.cell_size=0.1"
  "snake, 5 cm cells|scenes/ldi-snake.yaml|contact.multi_volume=true contact.cell_size=0.05"
)
cases+=(
  "grasp (fig. 2b)|scenes/ldi-grasp.yaml|"
  "detailed rigids (fig. 8)|scenes/ldi-detailed-rigids.yaml|"
)

i=0
for c in "${cases[@]}"; do
  IFS='|' read -r name scene sets <<<"$c"
  for backend in $backends; do
    args=(--headless "$top/$scene" --steps "$steps" --set "contact.backend=$backend")
    for s in $sets; do args+=(--set "$s"); done
    echo "$name" > "$out/case-$i-$backend.name"
    for r in $(seq 1 "$repeats"); do
      "$bin" "${args[@]}" --report "$out/case-$i-$backend-$r.json" >/dev/null 2>&1 ||
        { echo "failed: $name ($backend)" >&2; exit 1; }
    done
    G_MESSAGES_DEBUG=ldi "$bin" "${args[@]}" 2>&1 | grep "ldi size" \
      > "$out/case-$i-$backend.ldi" || true
  done
  i=$((i + 1))
done

machine=$(python3 "$top/bench/machine_name.py")
python3 - "$out" "$i" "$backends" "$top/bench/results/ldi-table1-$machine.csv" <<'PY'
import csv, glob, json, re, statistics, sys
out, n_cases, backends, csv_path = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4]
phases = ["collision_detection", "contact_modeling", "mechanical_motion", "constraint_solver"]
size = re.compile(r"ldi size: (\d+) regions, (\d+) triangles, largest image (\d+) x (\d+) "
                  r"pixels, (\d+) layers, (\d+) fragments")
rows = []
for i in range(n_cases):
    base_step = None
    for backend in backends:
        reports = [json.load(open(p)) for p in sorted(glob.glob(f"{out}/case-{i}-{backend}-*.json"))]
        if not reports:
            continue
        name = open(f"{out}/case-{i}-{backend}.name").read().strip()
        step = statistics.median(r["wall_ms"] / r["steps"] for r in reports)
        med = {p: statistics.median(r["phase_ms"][p] for r in reports) for p in phases}
        contacts = [s["contacts"] for s in reports[0]["per_step"]]
        sizes = [tuple(map(int, m.groups())) for m in size.finditer(open(f"{out}/case-{i}-{backend}.ldi").read())]
        tri = max((s[1] for s in sizes), default=0)
        w, h = max(((s[2], s[3]) for s in sizes), key=lambda wh: wh[0] * wh[1], default=(0, 0))
        layers = max((s[4] for s in sizes), default=0)
        if backend == backends[0]:
            base_step = step
        rows.append(dict(scene=name, backend=backend, bodies=len(reports[0]["bodies"]),
                         triangles=tri, pixels=f"{w}x{h}", layers=layers,
                         contacts_mean=round(statistics.mean(contacts), 1), contacts_max=max(contacts),
                         step_ms=round(step, 3), iterations_per_s=round(1000 / step, 1),
                         ratio=round(step / base_step, 2), runs=len(reports),
                         **{p: round(med[p], 3) for p in phases}))
print("| simulation | backend | bodies | triangles | LDI pixels | layers | contacts (mean / max) "
      "| collision detection ms | contact modeling ms | mechanical motion ms | constraint solver ms "
      "| iterations/s | step / cpu |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['scene']} | {r['backend']} | {r['bodies']} | {r['triangles']} | {r['pixels']} "
          f"| {r['layers']} | {r['contacts_mean']} / {r['contacts_max']} | {r['collision_detection']} "
          f"| {r['contact_modeling']} | {r['mechanical_motion']} | {r['constraint_solver']} "
          f"| {r['iterations_per_s']} | {r['ratio']} |")
with open(csv_path, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
print(f"\n({csv_path})")
PY
