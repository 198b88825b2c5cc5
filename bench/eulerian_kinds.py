#!/usr/bin/env python3
"""Issue 20's table of every geometry kind on every other, under a chosen response of the
eulerian model (tests/eulerian/test_eulerian_scenes.c asserts it under the constraint
response, /eulerian/kinds/table; the penalty response's 16 runs under the implicit
predictor-corrector take about 10 minutes in a release build, too long for the suite).

A block on the ground and a smaller cube, turned about the vertical, dropped on it, each a
rigid or an FEM body shown to the model as its surface or as volume particles: the same
scene as the test's. Per case: both bodies' heights after 2 s against where they touch
(0.05 and 0.16 m), the grid step, the kinetic energy at the end, the wall time, and whether
it holds as the test asks (each body within a grid step, under 1e-6 J). Prints a markdown
table.

Usage: bench/eulerian_kinds.py --bin BUILD/workbench/cli/contact-workbench
           [--response penalty|constraint (penalty)] [--steps N (400)]"""
import argparse
import json
import os
import subprocess
import tempfile

FEM = ("model: fem\n    mapping: barycentric\n    model_params: { young_modulus: 2.0e6, "
       "poisson_ratio: 0.3, resolution: 4, rayleigh_stiffness: 0.01 }")
PARTICLES = "mapping_params: { sample: volume }"
KINDS = [("rigid surface", ""), ("fem surface", FEM), ("rigid particles", PARTICLES),
         ("fem particles", FEM + "\n    " + PARTICLES)]
SOLVERS = {"penalty": "predictor-corrector", "constraint": "constraint"}


def scene(response, lower, upper):
    return f"""world: {{ dt: 0.005, gravity: [0, 0, -9.81] }}
contact: {{ model: eulerian, response: {response} }}
solver: {{ name: {SOLVERS[response]} }}
bodies:
  - name: ground
    shape: {{ type: ground, size: [1, 1, 0.2] }}
    fixed: true
    material: {{ friction: 0.6 }}
  - name: block
    {lower}
    shape: {{ type: box, size: [0.24, 0.24, 0.1] }}
    pose: {{ position: [0.003, -0.002, 0.053] }}
    material: {{ density: 700, friction: 0.6 }}
  - name: cube
    {upper}
    shape: {{ type: box, size: [0.12, 0.12, 0.12] }}
    pose: {{ position: [0.011, 0.007, 0.175], orientation: [0.9888, 0, 0, 0.1494] }}
    material: {{ density: 500, friction: 0.6 }}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--response", choices=sorted(SOLVERS), default="penalty")
    parser.add_argument("--steps", type=int, default=400)
    args = parser.parse_args()
    print("| cube | block | block z (0.05) | cube z (0.16) | grid step | kinetic energy J "
          "| wall s | |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for lower_name, lower in KINDS:
            for upper_name, upper in KINDS:
                path = os.path.join(work, "kinds.yaml")
                report = os.path.join(work, "report.json")
                with open(path, "w") as f:
                    f.write(scene(args.response, lower, upper))
                done = subprocess.run([args.bin, "--headless", path, "--steps",
                                       str(args.steps), "--report", report],
                                      capture_output=True, text=True, timeout=3600)
                with open(report) as f:
                    r = json.load(f)
                bodies = {b["name"]: b for b in r["bodies"]}
                block = bodies["block"]["centroid"][2]
                cube = bodies["cube"]["centroid"][2]
                step = r["derived_params"]["contact.cell_size"]
                energy = r["per_step"][-1]["kinetic_energy"] if r["per_step"] else float("nan")
                holds = (done.returncode == 0 and abs(block - 0.05) < step
                         and abs(cube - 0.16) < step and energy < 1e-6)
                print(f"| {upper_name} | {lower_name} | {block:.4f} | {cube:.4f} | "
                      f"{step:.4f} | {energy:.2g} | {r['wall_ms'] / 1000:.0f} | "
                      f"{'holds' if holds else 'FAILS: ' + (r['failure'] or 'bounds')} |",
                      flush=True)


if __name__ == "__main__":
    main()
