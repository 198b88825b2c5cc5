#!/usr/bin/env python3
"""Writes the peers' incline scene: a box resting flush on a plane tilted by ANGLE degrees
about y, released from rest. Steeper than the critical angle atan(mu) (the default 40 degrees
against atan(0.6) = 30.96 degrees), it slides down at Coulomb's acceleration
a = g (sin ANGLE - mu cos ANGLE) (1.797 m/s^2 with the defaults); shallower, it stays. The
plane is a fixed ground slab 40 m long, the box starts 10 m up the slope from its centre, so
it stays on the slab for about 4.5 s at the default angle. mu is both bodies' friction, so
every engine's combination rule (geometric mean, product of square roots, maximum) gives mu.

Usage: bench/peers/make_incline.py [--angle DEG] [--mu MU] [--size S] [--dt DT]
           [--contact MODEL] [--solver NAME] > scene.yaml"""
import argparse
import math

parser = argparse.ArgumentParser()
parser.add_argument("--angle", type=float, default=40.0, help="slope in degrees")
parser.add_argument("--mu", type=float, default=0.6)
parser.add_argument("--size", type=float, default=1.0)
parser.add_argument("--dt", type=float, default=0.01)
parser.add_argument("--contact", default="proximity")
parser.add_argument("--solver", default="constraint")
args = parser.parse_args()

UPSLOPE = 10.0  # m from the slab's centre to the box's start, along the slope
a = math.radians(args.angle)
q = [math.cos(a / 2), 0.0, math.sin(a / 2), 0.0]  # rotation by a about y
down = (math.cos(a), 0.0, -math.sin(a))  # the slab's x axis, rotated: down the slope
normal = (math.sin(a), 0.0, math.cos(a))  # the slab's z axis, rotated
centre = [-UPSLOPE * d + args.size / 2 * n for d, n in zip(down, normal)]
accel = 9.81 * (math.sin(a) - args.mu * math.cos(a))
quat = ", ".join(f"{c:.12g}" for c in q)
critical = math.degrees(math.atan(args.mu))
expected = f"g (sin a - mu cos a) = {accel:.4f} m/s^2" if accel > 0 else "0 (it sticks)"
print(f"""# A {args.size:g} m box released on a plane tilted by {args.angle:g} degrees, mu {args.mu:g}
# (critical angle atan(mu) = {critical:.2f} degrees): expected acceleration down the slope
# {expected}, dt {args.dt:g}.
# Written by bench/peers/make_incline.py --angle {args.angle:g} --mu {args.mu:g}.
world:
  dt: {args.dt:g}
  gravity: [0, 0, -9.81]
contact:
  model: {args.contact}
solver:
  name: {args.solver}
bodies:
  - name: ground
    shape: {{ type: ground, size: [40, 10, 1] }}
    pose: {{ orientation: [{quat}] }}
    fixed: true
    material: {{ friction: {args.mu:g} }}
  - name: box
    shape: {{ type: box, size: [{args.size:g}, {args.size:g}, {args.size:g}] }}
    pose: {{ position: [{", ".join(f"{c:.12g}" for c in centre)}], orientation: [{quat}] }}
    material: {{ density: 1000, friction: {args.mu:g} }}""")
