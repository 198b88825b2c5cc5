#!/usr/bin/env python3
"""Checks, without the peers, that the box lists the peers read are the scenes we run: the
pyramid of bench/make_pyramid.py ROWS (row r holds ROWS - r flush boxes resting on the row
below, the bottom row on the ground's top face at z = 0) and its column (--column: one box a
row), the incline of make_incline.py (the
box's bottom face on the slope, Coulomb's acceleration as stated), the text round trip of
scene_to_boxes.py and the energy bound behind peers.py's "exploded". bench/peers/run.sh runs
it before measuring; `python3 bench/peers/test_scenes.py` runs it alone."""
import io
import math
import os
import subprocess
import sys
import tempfile
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import peers  # noqa: E402
import scene_to_boxes  # noqa: E402

EXACT = 1e-12  # m: positions are written with repr and the generators' 9 digits hold 0.5 m steps


def load(cmd):
    text = subprocess.run([sys.executable, *cmd], capture_output=True, text=True, check=True).stdout
    return scene_to_boxes.boxes(scene_to_boxes.yaml.safe_load(text))


class Pyramid(unittest.TestCase):
    def test_rows_flush_on_the_ground(self):
        rows = 6
        dt, gravity, bodies = load([os.path.join(here, "..", "make_pyramid.py"), str(rows)])
        self.assertEqual((dt, gravity), (0.01, [0.0, 0.0, -9.81]))
        ground = [b for b in bodies if b["fixed"]]
        boxes = [b for b in bodies if not b["fixed"]]
        self.assertEqual(len(ground), 1)
        self.assertEqual(ground[0]["kind"], "ground")
        # the slab's top face is z = 0
        self.assertAlmostEqual(ground[0]["centre"][2] + ground[0]["size"][2] / 2, 0.0, delta=EXACT)
        self.assertEqual(len(boxes), rows * (rows + 1) // 2)
        for r in range(rows):
            row = sorted((b for b in boxes if b["name"].startswith(f"box-{r}-")),
                         key=lambda b: b["centre"][0])
            self.assertEqual(len(row), rows - r)
            for b in row:
                self.assertEqual(b["size"], [1.0, 1.0, 1.0])
                self.assertEqual((b["density"], b["friction"]), (1000.0, 0.6))
                self.assertAlmostEqual(b["centre"][2], 0.5 + r, delta=EXACT)  # on the row below
            for a, b in zip(row, row[1:]):
                self.assertAlmostEqual(b["centre"][0] - a["centre"][0], 1.0, delta=EXACT)  # flush
            # centred over the joints of the row below
            self.assertAlmostEqual(row[0]["centre"][0], -(rows - r - 1) / 2, delta=EXACT)
        # peers.py's bound for "exploded": each box falling to the ground, its bottom from
        # z = r to 0: 1000 kg g sum_r (rows - r) r
        lift = sum((rows - r) * r for r in range(rows))
        self.assertAlmostEqual(peers.available_energy(bodies, 9.81), 1000 * 9.81 * lift, delta=1e-6)


class Column(unittest.TestCase):
    def test_boxes_face_on_face(self):
        rows = 5
        _, _, bodies = load([os.path.join(here, "..", "make_pyramid.py"), str(rows), "--column"])
        boxes = sorted((b for b in bodies if not b["fixed"]), key=lambda b: b["centre"][2])
        self.assertEqual(len(boxes), rows)
        for r, b in enumerate(boxes):
            self.assertEqual(b["size"], [1.0, 1.0, 1.0])
            self.assertAlmostEqual(b["centre"][0], 0.0, delta=EXACT)
            self.assertAlmostEqual(b["centre"][1], 0.0, delta=EXACT)
            self.assertAlmostEqual(b["centre"][2], 0.5 + r, delta=EXACT)  # on the one below
        # every box falling to the ground: 1000 kg g sum_r r
        lift = sum(range(rows))
        self.assertAlmostEqual(peers.available_energy(bodies, 9.81), 1000 * 9.81 * lift, delta=1e-6)
        with tempfile.TemporaryDirectory() as out:
            name, path, incline = peers.make_scene("column-3", out)
            self.assertEqual((name, incline), ("column-3", None))
            with open(path) as f:
                _, _, listed = scene_to_boxes.boxes(scene_to_boxes.yaml.safe_load(f))
            self.assertEqual(len(listed), 4)  # the ground and three boxes


class Incline(unittest.TestCase):
    def test_box_on_the_slope(self):
        angle = 40.0
        _, _, bodies = load([os.path.join(here, "make_incline.py"), "--angle", str(angle)])
        ground, box = bodies
        a = math.radians(angle)
        normal = (math.sin(a), 0.0, math.cos(a))
        # the slope's plane passes through the origin: the box's centre is half its size above
        height = sum(c * n for c, n in zip(box["centre"], normal))
        self.assertAlmostEqual(height, 0.5, delta=1e-9)
        top = sum(c * n for c, n in zip(ground["centre"], normal)) + ground["size"][2] / 2
        self.assertAlmostEqual(top, 0.0, delta=EXACT)
        self.assertEqual(box["orientation"], ground["orientation"])
        # Coulomb: past atan(0.6) = 30.96 degrees the box slides at g (sin a - mu cos a)
        accel, _ = peers.incline_expected(f"incline-{angle:g}")
        self.assertAlmostEqual(accel, 1.7968, delta=1e-4)
        self.assertEqual(peers.incline_expected("incline-20")[0], 0.0)


class Text(unittest.TestCase):
    def test_round_trip(self):
        _, _, bodies = load([os.path.join(here, "make_incline.py")])
        out = io.StringIO()
        scene_to_boxes.write(0.01, [0.0, 0.0, -9.81], bodies, out)
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[:2], ["dt 0.01", "gravity 0.0 0.0 -9.81"])
        for line, b in zip(lines[2:], bodies):
            words = line.split()
            self.assertEqual(len(words), 21)  # peer_scene.h reads 21 words a body
            self.assertEqual(words[:3], [b["kind"], b["name"], str(int(b["fixed"]))])
            self.assertEqual([float(w) for w in words[6:9]], b["centre"])


if __name__ == "__main__":
    unittest.main()
