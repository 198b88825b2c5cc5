#!/usr/bin/env python3
"""Translates one of our YAML scenes into the peers' box list, so that Bullet and MuJoCo build
exactly the scene contact-workbench loads. Only boxes and grounds are accepted (the pyramids
and the incline); a ground, a slab whose top face is the body's z = 0, is written as the box
it is, centred half its thickness below that face, and marked `ground` (MuJoCo makes it a
plane through its top face, Bullet a static box). The list is plain text, one line each:

    dt DT
    gravity GX GY GZ
    box|ground NAME FIXED SX SY SZ PX PY PZ QW QX QY QZ VX VY VZ WX WY WZ DENSITY MU

with full extents S, the centre P, the orientation Q (w, x, y, z), the linear and angular
velocity V, W (world frame), DENSITY in kg/m^3 and MU the body's own Coulomb coefficient, as
the scene gives it; each peer program applies its own engine's combination rule to it.

Usage: bench/peers/scene_to_boxes.py SCENE.yaml > scene.boxes"""
import math
import sys

import yaml

# The scene format's defaults (docs/scene-format.md).
DEFAULT_DT = 0.01
DEFAULT_GRAVITY = [0.0, 0.0, -9.81]
DEFAULT_DENSITY = 1000.0
DEFAULT_FRICTION = 0.5
DEFAULT_GROUND_SIZE = [20.0, 20.0, 1.0]


def rotate(q, v):
    """v rotated by the unit quaternion q = (w, x, y, z)."""
    w, x, y, z = q
    # t = 2 (q_v x v); v' = v + w t + q_v x t
    t = [2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])]
    return [v[0] + w * t[0] + (y * t[2] - z * t[1]),
            v[1] + w * t[1] + (z * t[0] - x * t[2]),
            v[2] + w * t[2] + (x * t[1] - y * t[0])]


def boxes(scene):
    """The scene's (dt, gravity, [box dicts]); raises ValueError on a shape the peers lack."""
    world = scene.get("world") or {}
    dt = float(world.get("dt", DEFAULT_DT))
    gravity = [float(g) for g in world.get("gravity", DEFAULT_GRAVITY)]
    out = []
    for body in scene.get("bodies") or []:
        shape = body.get("shape") or {}
        kind = shape.get("type")
        pose = body.get("pose") or {}
        pos = [float(c) for c in pose.get("position", [0, 0, 0])]
        q = [float(c) for c in pose.get("orientation", [1, 0, 0, 0])]
        norm = math.sqrt(sum(c * c for c in q))
        q = [c / norm for c in q]
        vel = body.get("velocity") or {}
        material = body.get("material") or {}
        if kind == "box":
            size = [float(c) for c in shape["size"]]
            centre = pos
        elif kind == "ground":
            size = [float(c) for c in shape.get("size", DEFAULT_GROUND_SIZE)]
            drop = rotate(q, [0.0, 0.0, -size[2] / 2])
            centre = [p + d for p, d in zip(pos, drop)]
        else:
            raise ValueError(f"body {body.get('name')}: shape {kind!r} has no peer "
                             "(box and ground only)")
        out.append({
            "kind": kind,
            "name": str(body["name"]),
            "fixed": bool(body.get("fixed", False)),
            "size": size,
            "centre": centre,
            "orientation": q,
            "linear": [float(c) for c in vel.get("linear", [0, 0, 0])],
            "angular": [float(c) for c in vel.get("angular", [0, 0, 0])],
            "density": float(material.get("density", DEFAULT_DENSITY)),
            "friction": float(material.get("friction", DEFAULT_FRICTION)),
        })
    return dt, gravity, out


def write(dt, gravity, bodies, f):
    # repr: the shortest text that reads back as the same double
    num = lambda values: " ".join(repr(float(v)) for v in values)
    f.write(f"dt {dt!r}\ngravity {num(gravity)}\n")
    for b in bodies:
        f.write(f"{b['kind']} {b['name']} {int(b['fixed'])} {num(b['size'])} {num(b['centre'])} "
                f"{num(b['orientation'])} {num(b['linear'])} {num(b['angular'])} "
                f"{b['density']!r} {b['friction']!r}\n")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        scene = yaml.safe_load(f)
    try:
        dt, gravity, bodies = boxes(scene)
    except (ValueError, KeyError) as e:
        sys.exit(f"{sys.argv[1]}: {e}")
    write(dt, gravity, bodies, sys.stdout)


if __name__ == "__main__":
    main()
