#!/usr/bin/env python3
"""Writes scenes/rain.yaml: Saupin et al. 2008 fig. 4's "dinosaur waterfall" with the Spot
cow for the dinosaur: 40 deformable bodies of about 1000 tetrahedra each (1008: Spot scaled
to 0.21 m at resolution 8) falling into a fixed box and piling up, about 2000 friction
contacts once they have landed. Positions on a 4 x 4 x 3 lattice 0.4 m apart (more than
twice the farthest vertex from Spot's origin, 0.18 m: no body starts in contact) filled to 40, orientations
random, from a fixed seed so that the scene is reproducible.
Usage: bench/make_rain.py > scenes/rain.yaml"""
import math
import random

rng = random.Random(2008)


def quaternion():
    """A uniformly random unit quaternion (Shoemake 1992)."""
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    return (b * math.cos(2 * math.pi * u3), a * math.sin(2 * math.pi * u2),
            a * math.cos(2 * math.pi * u2), b * math.sin(2 * math.pi * u3))


print("""# Saupin et al. 2008 fig. 4 (the dinosaur waterfall), with the Spot cow: 40 deformable
# bodies of 1008 tetrahedra each (Spot scaled to 0.21 m, resolution 8) fall into a fixed box
# and pile up; about 2000 friction contacts once they have landed. Every body shares one
# mesh and material, so the rest compliance C0 is computed once and the others load it from
# the cache (docs/plugins/fem.md). Written by bench/make_rain.py.
world:
  dt: 0.005
  gravity: [0, 0, -9.81]
contact:
  model: proximity
solver:
  name: constraint
  # Saupin 2008 eq. 19: position-level normal rows, no post-stabilization
  normal_constraint: position
  stabilization_iterations: 0
  compliance: warped
  friction: cone
  iterations: 100
  tolerance: 1.0e-8
bodies:
  - name: floor
    shape: { type: box, size: [1.8, 1.8, 0.1] }
    pose: { position: [0, 0, -0.05] }
    fixed: true
    material: { friction: 0.4 }""")
for name, x, y, sx, sy in (("wall-x-", -0.95, 0, 0.1, 2.0), ("wall-x+", 0.95, 0, 0.1, 2.0),
                           ("wall-y-", 0, -0.95, 1.8, 0.1), ("wall-y+", 0, 0.95, 1.8, 0.1)):
    print(f"""  - name: {name}
    shape: {{ type: box, size: [{sx}, {sy}, 0.8] }}
    pose: {{ position: [{x}, {y}, 0.4] }}
    fixed: true
    material: {{ friction: 0.4 }}""")
n = 0
for layer in range(3):
    for i in range(4):
        for j in range(4):
            if n == 40:
                break
            n += 1
            x = -0.6 + 0.4 * i
            y = -0.6 + 0.4 * j
            z = 0.35 + 0.4 * layer
            q = ", ".join(f"{c:.6f}" for c in quaternion())
            print(f"""  - name: cow-{n:02d}
    model: fem
    mapping: barycentric
    shape: {{ type: mesh, file: ../data/meshes/spot.obj, scale: 0.12 }}
    pose: {{ position: [{x:.4f}, {y:.4f}, {z:.4f}], orientation: [{q}] }}
    material: {{ density: 1000, friction: 0.4 }}
    model_params: {{ young_modulus: 5.0e4, poisson_ratio: 0.3, resolution: 8,
                    rayleigh_stiffness: 0.005 }}""")
