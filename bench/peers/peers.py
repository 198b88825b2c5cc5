#!/usr/bin/env python3
"""Runs contact-workbench, Bullet and MuJoCo on the same scenes, interleaved, and prints their
medians and the ratios of our steps/s to each peer's, taken per repeat (the runs of one repeat
follow each other, so they share the machine's load) and then their median. bench/peers/run.sh
builds everything and calls this; see docs/benchmarks.md, "Peers".

A scene is `pyramid-ROWS` (bench/make_pyramid.py ROWS: flush 1 m boxes, mu 0.6, dt 0.01),
`column-ROWS` (make_pyramid.py ROWS --column: a tower of ROWS such boxes),
`incline` or `incline-DEGREES` (bench/peers/make_incline.py: a 1 m box released on a slope,
mu 0.6, dt 0.01), or the path of one of our YAML scenes made of boxes and grounds. Every
engine reads the same scene: ours the YAML, the peers the box list scene_to_boxes.py makes
of it. Each run is one process under a wall-clock limit; a run past it is reported as
`timeout`, a run that fails as `failed`, and neither stops the others.

Measures per run: steps/s of the stepping alone (each engine's own clock around its steps:
our report's wall_ms, the peers' sum of their step calls) and the whole process's wall time
(load, build, steps, report) taken here; drift, the largest distance of a moving body's final
centre from its start; contacts at the end and on average per step, as each engine counts
them (ours: contact frames; Bullet: manifold points; MuJoCo: contacts in the solve); for an
incline, the box's acceleration 2 d / (T (T + dt)) from its distance d travelled in T (exact
for semi-implicit Euler steps from rest), against Coulomb's g (sin a - mu cos a).

Outcome: `stands` (drift under 1 cm, the issue's test), `moved` (under one box size), `fell`
(more), `exploded` (a non-finite position, or a kinetic energy after some step above what the
start's velocities and gravity can give: every box falling to the floor, plus ENERGY_SLACK);
on an incline `sticks` (under 1 cm),
`slides`, `hops` (sliding, but leaving the slope: its final speed along the slope's normal
over HOP m/s) or `tumbles` (turned by more than TUMBLE degrees: a sliding box keeps its
orientation).
"""
import argparse
import csv
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import scene_to_boxes  # noqa: E402

ENGINES = ["ours", "bullet", "mujoco"]
STANDS = 0.01  # m: the issue's "stands" (drift under 1 cm after 3 s)
HOP = 0.1  # m/s: a box sliding on a slope moves off it no faster (0.1 s of fall: 1 m/s)
TUMBLE = 10.0  # degrees: a sliding box does not turn (mu 0.6 under its tipping value 1)
ENERGY_SLACK = 0.05  # relative: integrators and soft contacts may gain a little, not more


def incline_expected(spec):
    """(Coulomb's acceleration down an incline scene's slope, the slope's normal), None for
    another scene: the box from rest, g (sin a - mu cos a) or 0 where it sticks, with
    make_incline.py's mu (0.6, both bodies, so every engine's combination rule gives 0.6) and
    its rotation by a about y."""
    if spec != "incline" and not spec.startswith("incline-"):
        return None
    a = math.radians(float(spec.split("-", 1)[1]) if "-" in spec else 40.0)
    return max(0.0, 9.81 * (math.sin(a) - 0.6 * math.cos(a))), (math.sin(a), 0.0, math.cos(a))


def make_scene(spec, out_dir):
    """(name, yaml path, incline_expected()) of a scene spec."""
    if spec.startswith(("pyramid-", "column-")):
        shape, rows = spec.split("-", 1)
        cmd = [sys.executable, os.path.join(here, "..", "make_pyramid.py"), str(int(rows))]
        cmd += ["--column"] if shape == "column" else []
        incline = None
    elif spec == "incline" or spec.startswith("incline-"):
        angle = float(spec.split("-", 1)[1]) if "-" in spec else 40.0
        cmd = [sys.executable, os.path.join(here, "make_incline.py"), "--angle", f"{angle:g}"]
        incline = incline_expected(spec)
    else:
        return os.path.splitext(os.path.basename(spec))[0], os.path.abspath(spec), None
    path = os.path.join(out_dir, spec + ".yaml")
    with open(path, "w") as f:
        subprocess.run(cmd, stdout=f, check=True)
    return spec, path, incline


def run_one(cmd, timeout, cwd, report_path=None):
    """Runs CMD in CWD (where MuJoCo leaves its MUJOCO_LOG.TXT); (status, report dict or None,
    process seconds, stderr tail)."""
    t0 = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        return "timeout", None, time.monotonic() - t0, ""
    seconds = time.monotonic() - t0
    tail = proc.stderr.strip().splitlines()[-1:] or [""]
    if proc.returncode != 0:
        return f"failed ({proc.returncode})", None, seconds, tail[0]
    try:
        if report_path:
            with open(report_path) as f:
                report = json.load(f)
        else:
            # the report is the last line: a peer's library may have printed before it
            report = json.loads((proc.stdout.strip().splitlines() or [""])[-1])
    except (OSError, ValueError) as e:
        return "failed (report)", None, seconds, str(e)
    return "ok", report, seconds, tail[0]


def finite(v):
    return v is not None and all(c is not None and math.isfinite(c) for c in v)


def available_energy(bodies, g):
    """The most kinetic energy the scene can hold (J): the start's translational energy plus
    every moving box falling from its lowest corner to the floor, the lowest corner of any
    fixed body's top face (its local +z face: a ground's top)."""
    def z_row(b):  # the world z row of the body's rotation matrix
        w, x, y, z = b["orientation"]
        return (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))

    def lowest(b):
        return b["centre"][2] - sum(abs(r) * s / 2 for r, s in zip(z_row(b), b["size"]))

    def lowest_top(b):
        r, s = z_row(b), b["size"]
        return b["centre"][2] + r[2] * s[2] / 2 - abs(r[0]) * s[0] / 2 - abs(r[1]) * s[1] / 2

    fixed = [lowest_top(b) for b in bodies if b["fixed"]]
    floor = min(fixed) if fixed else -math.inf
    total = 0.0
    for b in bodies:
        if b["fixed"]:
            continue
        mass = b["density"] * b["size"][0] * b["size"][1] * b["size"][2]
        total += mass * (g * (lowest(b) - floor) + 0.5 * sum(v * v for v in b["linear"]))
    return total


def measure(report, start, energy, incline, size):
    """Drift, contacts, outcome (and incline acceleration) from an engine's report; ENERGY is
    available_energy(), INCLINE incline_expected()'s answer."""
    steps = report["steps"]
    duration = steps * report["dt"]
    drift, travel, off_slope, turn, exploded = 0.0, 0.0, 0.0, 0.0, False
    for body in report["bodies"]:
        if body["name"] not in start:
            continue
        c, v = body.get("centroid"), body.get("linear_velocity")
        if not finite(c) or not finite(v):
            exploded = True
            continue
        d = math.dist(c, start[body["name"]][0])
        drift = max(drift, d)
        travel = d  # the incline's single box
        if incline:
            off_slope = abs(sum(a * b for a, b in zip(v, incline[1])))
            q = body.get("orientation")
            if finite(q):
                dot = abs(sum(a * b for a, b in zip(q, start[body["name"]][2])))
                turn = math.degrees(2 * math.acos(min(1.0, dot / math.hypot(*q))))
    if "per_step" in report:  # ours
        energies = [s.get("kinetic_energy") for s in report["per_step"]]
        kinetic = max((e if e is not None else math.inf for e in energies), default=0.0)
    else:
        kinetic = report.get("kinetic_energy_max")
        kinetic = math.inf if kinetic is None else kinetic
    if not kinetic <= (1 + ENERGY_SLACK) * energy + 1.0:  # 1 J: a scene at rest
        exploded = True
    # From rest, n semi-implicit Euler steps of a constant a travel a dt^2 n (n + 1) / 2 (all
    # three engines integrate so): a = 2 d / (T (T + dt)), exact for such an integrator.
    accel = None
    if incline and duration > 0:
        accel = 2 * travel / (duration * (duration + report["dt"]))
    if exploded:
        outcome, drift = "exploded", (drift if drift else float("nan"))
    elif incline:
        outcome = ("tumbles" if turn > TUMBLE else "hops" if off_slope > HOP
                   else "sticks" if drift < STANDS else "slides")
    elif drift < STANDS:
        outcome = "stands"
    elif drift < size:
        outcome = "moved"
    else:
        outcome = "fell"
    if "per_step" in report:  # ours
        counts = [s["contacts"] for s in report["per_step"] if s.get("contacts") is not None]
        contacts_mean = statistics.mean(counts) if counts else float("nan")
        contacts_end = counts[-1] if counts else float("nan")
    else:
        contacts_mean, contacts_end = report["contacts_mean"], report["contacts_end"]
    return {
        "steps_per_s": steps / (report["wall_ms"] / 1e3) if report["wall_ms"] else float("nan"),
        "drift": drift, "contacts_end": contacts_end, "contacts_mean": contacts_mean,
        "accel": accel, "outcome": outcome, "kinetic_max": kinetic,
    }


def median(values):
    values = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return statistics.median(values) if values else float("nan")


def fmt(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, float):
        return f"{x:.0f}" if abs(x) >= 10 ** digits else f"{x:.{digits}g}"
    return str(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="contact-workbench")
    ap.add_argument("--bullet", required=True)
    ap.add_argument("--mujoco", required=True)
    ap.add_argument("--scenes", nargs="+",
                    default=["pyramid-10", "pyramid-20", "pyramid-40", "incline"])
    ap.add_argument("--engines", nargs="+", default=ENGINES, choices=ENGINES)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="passed to contact-workbench (repeatable)")
    ap.add_argument("--bullet-sleep", action="store_true", help="let Bullet's bodies sleep")
    ap.add_argument("--mujoco-option", action="append", default=[], metavar="NAME=VALUE",
                    help="an MJCF <option> attribute for MuJoCo, e.g. cone=elliptic (repeatable)")
    ap.add_argument("--csv", help="write the medians here")
    ap.add_argument("--machine", default="")
    ap.add_argument("--keep", help="keep the scenes and every run's report in this folder")
    args = ap.parse_args()

    # the runs start in out_dir: programs named by a relative path are found from here
    for key in ("bin", "bullet", "mujoco"):
        if os.sep in getattr(args, key):
            setattr(args, key, os.path.abspath(getattr(args, key)))
    out_dir = os.path.abspath(args.keep or tempfile.mkdtemp(prefix="peers-"))
    os.makedirs(out_dir, exist_ok=True)
    runs = []  # dicts: scene, engine, repeat, status, process_s, and measure()'s fields
    settings = {}
    for spec in args.scenes:
        name, yaml_path, incline = make_scene(spec, out_dir)
        with open(yaml_path) as f:
            scene = scene_to_boxes.yaml.safe_load(f)
        dt, gravity, bodies = scene_to_boxes.boxes(scene)
        boxes_path = os.path.join(out_dir, name + ".boxes")
        with open(boxes_path, "w") as f:
            scene_to_boxes.write(dt, gravity, bodies, f)
        moving = [b for b in bodies if not b["fixed"]]
        start = {b["name"]: (b["centre"], b["linear"], b["orientation"]) for b in moving}
        energy = available_energy(bodies, math.hypot(*gravity))
        size = min(min(b["size"]) for b in moving)
        print(f"{name}: {len(moving)} moving boxes, {args.steps} steps of {dt:g} s, "
              f"{args.repeats} repeats", file=sys.stderr)
        for r in range(1, args.repeats + 1):
            for engine in args.engines:
                if engine == "ours":
                    report_path = os.path.join(out_dir, f"{name}.ours.{r}.json")
                    cmd = [args.bin, "--headless", yaml_path, "--steps", str(args.steps),
                           "--report", report_path]
                    for s in args.set:
                        cmd += ["--set", s]
                elif engine == "bullet":
                    report_path = None
                    cmd = [args.bullet, boxes_path, str(args.steps)]
                    if args.bullet_sleep:
                        cmd.append("--sleep")
                else:
                    report_path = None
                    cmd = [args.mujoco, boxes_path, str(args.steps)]
                    for o in args.mujoco_option:
                        cmd += ["--option", o]
                status, report, seconds, tail = run_one(cmd, args.timeout, out_dir, report_path)
                row = {"scene": name, "engine": engine, "repeat": r, "status": status,
                       "process_s": seconds, "steps": args.steps}
                if report is not None:
                    if report_path is None:
                        with open(os.path.join(out_dir, f"{name}.{engine}.{r}.json"), "w") as f:
                            json.dump(report, f)
                    if engine == "mujoco" and report["settings"].get("rows_full_at_step"):
                        row["status"] = "njmax full"
                    row["steps"] = report["steps"]
                    row.update(measure(report, start, energy, incline, size))
                    settings.setdefault(engine, describe(engine, report, args))
                runs.append(row)
                print(f"  {name} #{r} {engine}: {row['status']}"
                      + (f", {row['steps_per_s']:.1f} steps/s, drift {fmt(row['drift'])} m, "
                         f"{row['outcome']}" if "outcome" in row else f" {tail}"),
                      file=sys.stderr)

    table = summarize(runs, args)
    print()
    if args.machine:
        print(f"machine: {args.machine}")
    for engine in args.engines:
        if engine in settings:
            print(f"{engine}: {settings[engine]}")
    header = ["scene", "engine", "runs ok", "steps/s", "process s", "drift m", "outcome",
              "contacts end", "contacts mean", "accel m/s^2", "ours / engine"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in table:
        print("| " + " | ".join([
            row["scene"], row["engine"], f"{row['ok']}/{row['runs']}" + (
                f" ({row['other']})" if row["other"] else ""),
            fmt(row["steps_per_s"]), fmt(row["process_s"]), fmt(row["drift"]), row["outcome"],
            fmt(row["contacts_end"]), fmt(row["contacts_mean"]),
            fmt(row["accel"], 4) + (f" (Coulomb {row['expected']:.4g})"
                                    if row["expected"] is not None else ""),
            fmt(row["ratio"])]) + " |")
    if args.csv:
        os.makedirs(os.path.dirname(os.path.abspath(args.csv)), exist_ok=True)
        with open(args.csv, "w", newline="") as f:
            fields = ["machine", "scene", "engine", "settings", "runs", "ok", "other", "steps",
                      "steps_per_s", "process_s", "drift", "outcome", "contacts_end",
                      "contacts_mean", "accel", "expected", "ratio"]
            w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            for row in table:
                w.writerow({**row, "machine": args.machine,
                            "settings": settings.get(row["engine"], "")})
        print(f"CSV: {args.csv}", file=sys.stderr)
    if not args.keep:
        shutil.rmtree(out_dir)


def describe(engine, report, args):
    """One line of the settings an engine ran with."""
    if engine == "ours":
        sets = " ".join(f"--set {s}" for s in args.set) or "the scene's own"
        return f"contact {report.get('contact_model')}, solver {report.get('solver')} ({sets})"
    s = report["settings"]
    if engine == "bullet":
        return (f"{report['engine']} ({s['precision']}), {s['solver']}, "
                f"{s['iterations']} iterations, "
                f"split impulse {s['split_impulse']}, warm start {s['warmstarting_factor']:g}, "
                f"box margin {s['box_margin']:g} m, friction {s['friction']}, sleep {s['sleep']}")
    options = " ".join(f"--mujoco-option {o}" for o in args.mujoco_option) or "defaults"
    return (f"{report['engine']} ({options}), {s['solver']} {s['iterations']} iterations tol "
            f"{s['tolerance']:g}, {s['cone']} cone, {s['integrator']}, condim {s['condim']}, "
            f"solref {s['solref']}, solimp {s['solimp']}, friction {s['friction']}")


def summarize(runs, args):
    """Per scene and engine: medians over the repeats that ran, and the median over the
    repeats of ours / engine in steps/s, each ratio from the runs of one repeat."""
    table = []
    scenes = list(dict.fromkeys(r["scene"] for r in runs))
    for scene in scenes:
        ours = {r["repeat"]: r for r in runs if r["scene"] == scene and r["engine"] == "ours"}
        for engine in args.engines:
            rs = [r for r in runs if r["scene"] == scene and r["engine"] == engine]
            ok = [r for r in rs if r["status"] == "ok"]
            others = sorted({r["status"] for r in rs if r["status"] != "ok"})
            ratios = [ours[r["repeat"]]["steps_per_s"] / r["steps_per_s"] for r in ok
                      if r["repeat"] in ours and ours[r["repeat"]]["status"] == "ok"]
            outcomes = sorted({r["outcome"] for r in ok})
            table.append({
                "scene": scene, "engine": engine, "runs": len(rs), "ok": len(ok),
                "other": ", ".join(others),
                "steps": median([r["steps"] for r in ok]),
                "steps_per_s": median([r["steps_per_s"] for r in ok]),
                "process_s": median([r["process_s"] for r in ok]),
                "drift": median([r["drift"] for r in ok]),
                "outcome": "/".join(outcomes) if outcomes else "-",
                "contacts_end": median([r["contacts_end"] for r in ok]),
                "contacts_mean": median([r["contacts_mean"] for r in ok]),
                "accel": median([r["accel"] for r in ok]),
                "expected": (incline_expected(scene) or [None])[0],
                "ratio": median(ratios) if ratios else float("nan"),
            })
    return table


if __name__ == "__main__":
    main()
