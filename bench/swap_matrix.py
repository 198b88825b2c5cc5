#!/usr/bin/env python3
"""The swap matrix (issue 18; tests/swap/test_swap.c asserts it on every scene but rain):
every shipped scene settles under its own contact model and solver, then is swapped (--at)
to every other pair the host offers, with the new pair's defaults, and runs on. Per swap:
the kinetic energy at the swap, its peak and final values after it, the deepest penetration
the new model reports at the end of each step after it (the report's max_penetration; the
test bounds the energy by the deeper overlap its velocity pass finds), the moving mass, the
steps until the energy is back under twice its value at the swap (or "no"), and whether the
run failed. Prints a markdown table and writes a CSV.

--pair MODEL/SOLVER[/KEY=VALUE...] (repeatable) swaps into those pairs only, each with the
given values set at the swap (e.g. eulerian/predictor-corrector/solver.implicit_contacts=true);
without it, every pair the host offers at its defaults.

Usage: bench/swap_matrix.py --bin BUILD/workbench/cli/contact-workbench [--scenes S ...]
           [--pair MODEL/SOLVER[/KEY=VALUE...] ...] [--settle SECONDS (0.5)]
           [--after STEPS (25)] [--csv FILE]"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

import yaml

PAIRS = [("ldi", "constraint"), ("proximity", "constraint"), ("penalty", "constraint"),
         ("penalty", "predictor-corrector"), ("eulerian", "constraint"),
         ("eulerian", "predictor-corrector")]


def run(binary, scene, steps, changes, report):
    args = [binary, "--headless", scene, "--steps", str(steps), "--report", report]
    for c in changes:
        args += ["--at", c]
    done = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    with open(report) as f:
        return json.load(f), done.returncode, done.stderr.strip().splitlines()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--scenes", nargs="*")
    parser.add_argument("--settle", type=float, default=0.5)
    parser.add_argument("--after", type=int, default=25)
    parser.add_argument("--csv")
    parser.add_argument("--pair", action="append", default=[])
    o = parser.parse_args()
    pairs = [(p[0], p[1], p[2:]) for p in (q.split("/") for q in o.pair)] if o.pair else \
        [(m, s, []) for m, s in PAIRS]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    scenes = o.scenes or sorted(os.path.join(top, "scenes", f)
                                for f in os.listdir(os.path.join(top, "scenes"))
                                if f.endswith(".yaml"))
    rows = []
    print("| scene | from | to | KE at swap J | peak KE after J | KE at end J "
          "| deepest at step ends m | moving mass kg | steps to 2x KE | outcome |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for scene in scenes:
            with open(scene) as f:
                desc = yaml.safe_load(f)
            dt = (desc.get("world") or {}).get("dt", 0.01)
            own = ((desc.get("contact") or {}).get("model"),
                   (desc.get("solver") or {}).get("name", "constraint"))
            settle = max(1, round(o.settle / dt))
            after = o.after
            fixed = {b["name"] for b in desc.get("bodies") or [] if b.get("fixed")}
            for model, solver, values in pairs:
                if (model, solver) == own and not values:
                    continue
                changes = [f"{settle}:contact.model={model}"]
                if solver != own[1]:
                    changes.append(f"{settle}:solver.name={solver}")
                changes += [f"{settle}:{v}" for v in values]
                report_path = os.path.join(tmp, "r.json")
                try:
                    report, status, err = run(o.bin, scene, settle + after, changes, report_path)
                except (subprocess.TimeoutExpired, FileNotFoundError, json.JSONDecodeError) as e:
                    report, status, err = None, -1, [str(e)]
                name = os.path.basename(scene)
                frm = f"{own[0]} / {own[1]}"
                to = " ".join([f"{model} / {solver}"] + values)
                if report is None or len(report["per_step"]) < settle:
                    outcome = (err[-1] if err else f"exit {status}")[:120]
                    rows.append(dict(scene=name, frm=frm, to=to, outcome=outcome))
                    print(f"| {name} | {frm} | {to} | | | | | | | {outcome} |")
                    sys.stdout.flush()
                    continue
                steps = report["per_step"]
                ke0 = steps[settle - 1]["kinetic_energy"]
                tail = steps[settle:]
                peak = max((s["kinetic_energy"] for s in tail), default=float("nan"))
                end = tail[-1]["kinetic_energy"] if tail else float("nan")
                deep = max((s["max_penetration"] for s in tail
                            if s["max_penetration"] is not None), default=float("nan"))
                back = next((k + 1 for k, s in enumerate(tail)
                             if s["kinetic_energy"] <= 2 * ke0 + 1e-12), None)
                mass = sum(b["mass"] for b in report["bodies"] if b["name"] not in fixed)
                outcome = "ok" if report["failure"] is None else report["failure"][:120]
                row = dict(scene=name, frm=frm, to=to, ke_swap=ke0, ke_peak=peak, ke_end=end,
                           deepest=deep, mass=mass,
                           steps_back=back if back is not None else "no", outcome=outcome)
                rows.append(row)
                print(f"| {name} | {frm} | {to} | {ke0:.3g} | {peak:.3g} | {end:.3g} | {deep:.3g} "
                      f"| {mass:.4g} | {row['steps_back']} | {outcome} |")
                sys.stdout.flush()
    if o.csv:
        with open(o.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["scene", "frm", "to", "ke_swap", "ke_peak", "ke_end",
                                              "deepest", "mass", "steps_back", "outcome"])
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
