#!/usr/bin/env bash
# The FEM body's free-motion solve: CHOLMOD's sparse Cholesky against conjugate gradients
# (block-Jacobi preconditioned, relative tolerance 1e-10), on one deformable torus spinning
# and deforming in free flight (no contact model) at several grid resolutions. Each case runs
# REPEATS times for STEPS steps (h = 5 ms) in a release build; prints the medians of the
# mechanical-motion phase per step and the ratio CG / Cholesky measured in the same run.
# Usage: bench/fem_solvers.sh [REPEATS (default 5)] [STEPS (default 100)] [RESOLUTION ...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-5}
steps=${2:-100}
shift 2 || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(6 10 16 24)
. "$top/bench/release_build.sh"
bin="$build/workbench/cli/contact-workbench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat > "$out/torus.yaml" <<'YAML'
world: { dt: 0.005, gravity: [0, 0, -9.81] }
bodies:
  - name: ring
    model: fem
    mapping: barycentric
    shape: { type: torus, major_radius: 0.1, minor_radius: 0.025, resolution: 32 }
    velocity: { linear: [0, 0, 1], angular: [2, 5, 1] }
    material: { density: 1100 }
    model_params: { young_modulus: 1.0e5, poisson_ratio: 0.35, warped_compliance: false }
YAML
printf '| resolution | nodes | tetrahedra | Cholesky ms | CG ms | CG / Cholesky |\n|---|---|---|---|---|---|\n'
for res in "${sizes[@]}"; do
  for solver in cholesky cg; do
    for r in $(seq 1 "$repeats"); do
      G_MESSAGES_DEBUG=fem "$bin" --headless "$out/torus.yaml" --steps "$steps" \
        --set bodies.ring.resolution="$res" --set bodies.ring.linear_solver="$solver" \
        --report "$out/$res-$solver-$r.json" > "$out/$res-$solver-$r.log" 2>&1
    done
  done
  python3 - "$res" "$out" "$repeats" <<'PY'
import json, re, statistics, sys
res, out, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
def median(solver):
    return statistics.median(
        json.load(open(f"{out}/{res}-{solver}-{r}.json"))["phase_ms"]["mechanical_motion"]
        for r in range(1, repeats + 1))
log = open(f"{out}/{res}-cholesky-1.log").read()
m = re.search(r"(\d+) nodes, (\d+) tetrahedra", log)
nodes, tets = (m.group(1), m.group(2)) if m else ("?", "?")
ch, cg = median("cholesky"), median("cg")
print(f"| {res} | {nodes} | {tets} | {ch:.3f} | {cg:.3f} | {cg / ch:.2f} |")
PY
done
