#!/usr/bin/env bash
# The SPH step per core: our sph body (PCISPH) against PySPH's PCISPH (Debian's
# python3-pysph, installed here when missing) on cubes of water of CELLS^3 particles 1 cm
# apart, one thread each, STEPS steps of 2 ms; for each repeat and size, ours then PySPH.
# Ours is bench/scenes/sph-block.yaml (turning, free surface, no contact) timed by the
# report's mechanical motion phase (the step with its neighbour search); PySPH's is
# bench/peers/pysph_pcisph.py (periodic: its PCISPH takes no free surface), timed around its
# solve. Per real particle: particles x steps / seconds, and per pressure iteration, since
# the two stop their iterations differently; and ours's neighbour search alone (the grid and
# its lists, timed inside the step and printed with G_MESSAGES_DEBUG=sph). Prints medians and the median of the per-repeat
# ratios; writes bench/results/sph-step-<machine>.csv.
# Usage: bench/sph_step.sh [REPEATS (5)] [STEPS (20)] [CELLS... (10 20 30)]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-5}
steps=${2:-20}
shift $(( $# > 2 ? 2 : $# ))
cells=("${@:-10 20 30}")
. "$top/bench/release_build.sh"
if ! dpkg-query -W -f='${Status}' python3-pysph 2>/dev/null | grep -q "install ok installed"; then
  as_root=()
  [ "$(id -u)" -ne 0 ] && as_root=(sudo)
  "${as_root[@]}" apt-get install -y -q --no-install-recommends python3-pysph >&2
fi
bin="$build/workbench/cli/contact-workbench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
# PySPH generates and compiles its kernels on first use (into ~/.pysph): once, untimed.
(cd "$out" && /usr/bin/python3 "$top/bench/peers/pysph_pcisph.py" --cells 4 --steps 2 \
   -d "$out/pysph" >/dev/null 2>&1)
for r in $(seq 1 "$repeats"); do
  for n in ${cells[@]}; do
    side=$(python3 -c "print($n * 0.01)")
    G_MESSAGES_DEBUG=sph "$bin" --headless "$top/bench/scenes/sph-block.yaml" --steps "$steps" \
      --set "bodies.water.shape.size=[$side,$side,$side]" --report "$out/ours.$n.$r.json" \
      >"$out/ours.$n.$r.log" 2>&1
    (cd "$out" && /usr/bin/python3 "$top/bench/peers/pysph_pcisph.py" --cells "$n" \
       --steps "$steps" -d "$out/pysph" 2>/dev/null | tail -1) >"$out/pysph.$n.$r.json"
  done
done
machine=$(python3 "$top/bench/machine_name.py")
mkdir -p "$top/bench/results"
python3 - "$out" "$top/bench/results/sph-step-$machine.csv" "$repeats" <<'PY'
import glob, json, os, re, statistics as st, sys
out, csv_path, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows, table = [], {}
for path in sorted(glob.glob(os.path.join(out, "ours.*.json"))):
    _, n, r, _ = os.path.basename(path).split(".")
    ours = json.load(open(path))
    steps = len(ours["per_step"])
    particles = int(n) ** 3
    seconds = ours["phase_ms"]["mechanical_motion"] * steps / 1000
    log = open(os.path.join(out, f"ours.{n}.{r}.log")).read()
    iterations = sum(int(k) for k in re.findall(r"(\d+) pressure iterations", log))
    search = sum(float(k) for k in re.findall(r"neighbour search ([0-9.]+) ms", log)) / 1000
    peer = json.load(open(os.path.join(out, f"pysph.{n}.{r}.json")))
    assert peer["steps"] == steps, (peer, steps)
    row = {
        "particles": particles,
        "ours_particles_per_s": particles * steps / seconds,
        "ours_particle_iterations_per_s": particles * iterations / seconds,
        "ours_iterations_per_step": iterations / steps,
        "ours_search_particles_per_s": particles * steps / search,
        "ours_search_share": search / seconds,
        "pysph_particles_per_s": particles * steps / peer["wall_s"],
        "pysph_particle_iterations_per_s": particles * peer["iterations"] / peer["wall_s"],
        "pysph_iterations_per_step": peer["iterations"] / steps,
    }
    row["ratio_step"] = row["ours_particles_per_s"] / row["pysph_particles_per_s"]
    row["ratio_iteration"] = (row["ours_particle_iterations_per_s"]
                              / row["pysph_particle_iterations_per_s"])
    table.setdefault(particles, []).append(row)
keys = list(next(iter(table.values()))[0].keys())
with open(csv_path, "w") as f:
    f.write(",".join(keys + ["repeats"]) + "\n")
    print("| particles | ours: particles/s (iterations a step) | ours: neighbour search alone, "
          "particles/s (share of the step) | PySPH PCISPH: particles/s "
          "(iterations a step) | ratio a step | ratio a pressure iteration |")
    print("|---|---|---|---|---|---|")
    for particles, rs in sorted(table.items()):
        med = {k: st.median(x[k] for x in rs) for k in keys}
        f.write(",".join(f"{med[k]:.6g}" for k in keys) + f",{len(rs)}\n")
        print(f"| {particles} | {med['ours_particles_per_s']:.3g} "
              f"({med['ours_iterations_per_step']:.1f}) "
              f"| {med['ours_search_particles_per_s']:.3g} "
              f"({100 * med['ours_search_share']:.1f} %) | {med['pysph_particles_per_s']:.3g} "
              f"({med['pysph_iterations_per_step']:.1f}) | {med['ratio_step']:.2f} "
              f"| {med['ratio_iteration']:.2f} |")
print(f"wrote {csv_path}")
PY
