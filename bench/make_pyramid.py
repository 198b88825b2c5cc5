#!/usr/bin/env python3
"""Writes a box pyramid scene: ROWS rows of 1 m boxes on a fixed ground, the scene rigid-body
engines are judged by. Row r (0 at the bottom) holds ROWS - r boxes; a box of row r + 1 stands
centred over the joint between two boxes of row r. Flush (the default): the boxes of a row
touch face to face and every row rests exactly on the one below, so each upper box's bottom
corners lie on the lower boxes' top faces and the lower boxes' top corners on its bottom face.
--gap G leaves G metres between the boxes of a row and between rows (boxes start apart and
fall G); --offset D shifts each row by D along x and y (a diagonal offset: no corner of one
box on an edge of another). --column makes every row a single box: a tower of ROWS boxes,
each face on face with the one below (the redundant contacts of four corners a face, all
the way up).

Usage: bench/make_pyramid.py ROWS [--gap G] [--offset D] [--column] [--mu MU] [--dt DT]
           [--contact MODEL] [--solver NAME] > scene.yaml"""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("rows", type=int)
parser.add_argument("--gap", type=float, default=0.0)
parser.add_argument("--offset", type=float, default=0.0)
parser.add_argument("--column", action="store_true")
parser.add_argument("--mu", type=float, default=0.6)
parser.add_argument("--dt", type=float, default=0.01)
parser.add_argument("--size", type=float, default=1.0)
parser.add_argument("--contact", default="proximity")
parser.add_argument("--solver", default="constraint")
args = parser.parse_args()

s, g = args.size, args.gap
ground = max(40.0, 2.5 * args.rows * s)
shape = (f"A column of {args.rows} {s:g} m boxes" if args.column
         else f"A pyramid of {args.rows} rows of {s:g} m boxes ({args.rows * (args.rows + 1) // 2} boxes)")
print(f"""# {shape},
# {"flush" if g == 0 else f"{g:g} m apart"}{f", rows offset by {args.offset:g} m" if args.offset else ""}, mu {args.mu:g}, dt {args.dt:g}.
# Written by bench/make_pyramid.py {args.rows}{f" --gap {g:g}" if g else ""}{f" --offset {args.offset:g}" if args.offset else ""}{" --column" if args.column else ""}.
world:
  dt: {args.dt:g}
  gravity: [0, 0, -9.81]
contact:
  model: {args.contact}
solver:
  name: {args.solver}
bodies:
  - name: ground
    shape: {{ type: ground, size: [{ground:g}, {ground:g}, 1] }}
    fixed: true
    material: {{ friction: {args.mu:g} }}""")
for r in range(args.rows):
    n = 1 if args.column else args.rows - r
    for i in range(n):
        x = (i - (n - 1) / 2) * (s + g) + r * args.offset
        y = r * args.offset
        z = s / 2 + r * (s + g) + g
        print(f"""  - name: box-{r}-{i}
    shape: {{ type: box, size: [{s:g}, {s:g}, {s:g}] }}
    pose: {{ position: [{x:.9g}, {y:.9g}, {z:.9g}] }}
    material: {{ density: 1000, friction: {args.mu:g} }}""")
