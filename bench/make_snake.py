#!/usr/bin/env python3
"""Writes data/meshes/snake.obj: the snake of Allard et al. 2010 fig. 7, a closed tube 1 m
long with an elliptic cross-section 6 cm wide and 4 cm high and half-ellipsoid ends, finely
tessellated along its length so that its surface bends with the deformable body it is
embedded in (the barycentric mapping moves vertices, not faces): 200 rings of 16 vertices,
6 400 triangles (the paper's snake: 7K). Counter-clockwise seen from outside, welded.
Usage: bench/make_snake.py > data/meshes/snake.obj"""
import math

LENGTH, WIDTH, HEIGHT = 1.0, 0.06, 0.04
RINGS, AROUND, CAP_RINGS = 200, 16, 6
half_body = LENGTH / 2 - WIDTH / 2          # the ends are half-ellipsoids of depth WIDTH / 2

vertices = []
rings = []


def ring(x, scale):
    start = len(vertices)
    for k in range(AROUND):
        t = 2 * math.pi * k / AROUND
        vertices.append((x, scale * WIDTH / 2 * math.cos(t), scale * HEIGHT / 2 * math.sin(t)))
    rings.append(start)


# From the tip at -x to the tip at +x: cap rings, body rings, cap rings.
for i in range(1, CAP_RINGS):
    a = math.pi / 2 * (1 - i / CAP_RINGS)
    ring(-half_body - WIDTH / 2 * math.sin(a), math.cos(a))
for i in range(RINGS):
    ring(-half_body + 2 * half_body * i / (RINGS - 1), 1.0)
for i in range(1, CAP_RINGS):
    a = math.pi / 2 * i / CAP_RINGS
    ring(half_body + WIDTH / 2 * math.sin(a), math.cos(a))
tip_minus = len(vertices)
vertices.append((-LENGTH / 2, 0.0, 0.0))
tip_plus = len(vertices)
vertices.append((LENGTH / 2, 0.0, 0.0))

triangles = []
for r in range(len(rings) - 1):
    a, b = rings[r], rings[r + 1]
    for k in range(AROUND):
        k1 = (k + 1) % AROUND
        # The ring's angle runs from +y towards +z: seen from outside, (a_k, b_k, b_k1) turns
        # counter-clockwise.
        triangles.append((a + k, a + k1, b + k1))
        triangles.append((a + k, b + k1, b + k))
first, last = rings[0], rings[-1]
for k in range(AROUND):
    k1 = (k + 1) % AROUND
    triangles.append((tip_minus, first + k1, first + k))
    triangles.append((tip_plus, last + k, last + k1))

print("# The snake of Allard et al. 2010 fig. 7, written by bench/make_snake.py")
for v in vertices:
    print("v %.9g %.9g %.9g" % v)
for t in triangles:
    print("f %d %d %d" % (t[0] + 1, t[1] + 1, t[2] + 1))
