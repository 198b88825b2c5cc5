#!/usr/bin/env python3
"""Writes a basket scene (Lazarevych et al. fig. 6): N non-convex objects (tori) dropped
into a fixed open box made of five slabs, for the penalty contact model.

Usage: bench/make_basket.py N [--static-friction true|false] > scene.yaml

The tori start on a grid above the basket, each turned by a pseudo-random (seeded, so the
scene is reproducible) orientation; the basket grows with N so that they fit in a few
layers. scenes/penalty-basket.yaml is this script's output for N = 20."""
import argparse
import math
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("--static-friction", default="true", choices=["true", "false"])
    ap.add_argument("--resolution", type=int, default=12)
    args = ap.parse_args()
    n = args.n
    major, minor = 0.06, 0.025
    pitch = 2 * (major + minor) + 0.02          # grid spacing of the drop positions
    per_side = max(2, math.ceil(math.sqrt(n / 3)))  # a few layers of tori
    inner = per_side * pitch                     # inside width of the basket
    wall, height = 0.05, 0.3
    rng = random.Random(2010)
    out = [f"""# Lazarevych et al. fig. 6: {n} non-convex objects (tori) fall into a basket and settle.
# Written by bench/make_basket.py {n}; with static_friction false the settled stack keeps
# sliding at its contacts and its kinetic energy stays far higher.
world:
  dt: 0.004
  gravity: [0, 0, -9.81]
contact:
  model: penalty
  static_friction: {args.static_friction}
solver:
  name: predictor-corrector
bodies:"""]
    half = inner / 2 + wall / 2
    slabs = [("floor", [inner + 2 * wall, inner + 2 * wall, wall], [0, 0, -wall / 2]),
             ("wall-x0", [wall, inner, height], [-half, 0, height / 2]),
             ("wall-x1", [wall, inner, height], [half, 0, height / 2]),
             ("wall-y0", [inner + 2 * wall, wall, height], [0, -half, height / 2]),
             ("wall-y1", [inner + 2 * wall, wall, height], [0, half, height / 2])]
    for name, size, pos in slabs:
        out.append(f"""  - name: {name}
    shape: {{ type: box, size: [{size[0]:.4f}, {size[1]:.4f}, {size[2]:.4f}] }}
    pose: {{ position: [{pos[0]:.4f}, {pos[1]:.4f}, {pos[2]:.4f}] }}
    fixed: true
    material: {{ friction: 0.5 }}""")
    for k in range(n):
        layer, cell = divmod(k, per_side * per_side)
        i, j = divmod(cell, per_side)
        x = (i - (per_side - 1) / 2) * pitch
        y = (j - (per_side - 1) / 2) * pitch
        z = 0.1 + layer * pitch
        # A random unit quaternion (Shoemake's method).
        u1, u2, u3 = rng.random(), rng.random(), rng.random()
        q = (math.sqrt(1 - u1) * math.sin(2 * math.pi * u2),
             math.sqrt(1 - u1) * math.cos(2 * math.pi * u2),
             math.sqrt(u1) * math.sin(2 * math.pi * u3),
             math.sqrt(u1) * math.cos(2 * math.pi * u3))
        out.append(f"""  - name: torus-{k}
    shape: {{ type: torus, major_radius: {major}, minor_radius: {minor}, resolution: {args.resolution} }}
    pose: {{ position: [{x:.4f}, {y:.4f}, {z:.4f}], orientation: [{q[0]:.9f}, {q[1]:.9f}, {q[2]:.9f}, {q[3]:.9f}] }}
    material: {{ density: 800, friction: 0.5 }}""")
    print("\n".join(out))


if __name__ == "__main__":
    main()
