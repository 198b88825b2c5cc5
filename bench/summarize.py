#!/usr/bin/env python3
"""Medians of benchmark reports (contact-workbench --report JSON), one row per scene."""
import argparse
import collections
import csv
import json
import os
import statistics

PHASES = ["collision_detection", "contact_modeling", "mechanical_motion", "constraint_solver"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--machine", required=True)
    ap.add_argument("--baseline", required=True, help="scene whose step time is the ratio's 1")
    ap.add_argument("--csv", required=True)
    ap.add_argument("reports", nargs="+")
    args = ap.parse_args()

    runs = collections.defaultdict(list)
    for path in args.reports:
        scene = os.path.basename(path).split(".")[0]
        with open(path) as f:
            report = json.load(f)
        contacts = [s["contacts"] for s in report["per_step"]]
        runs[scene].append({
            "step_ms": report["wall_ms"] / max(report["steps"], 1),
            **{p: report["phase_ms"][p] for p in PHASES},
            "contacts": statistics.mean(contacts) if contacts else 0.0,
        })

    rows = []
    for scene, rs in sorted(runs.items()):
        row = {"scene": scene, "runs": len(rs)}
        for key in ["step_ms", *PHASES, "contacts"]:
            row[key] = statistics.median(r[key] for r in rs)
        rows.append(row)
    base = next((r["step_ms"] for r in rows if r["scene"] == args.baseline), None)
    for row in rows:
        row["ratio"] = row["step_ms"] / base if base else float("nan")

    print(f"machine: {args.machine}")
    header = ["scene", "runs", "contacts", "step_ms", *PHASES, "ratio"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        cells = [row["scene"], str(row["runs"]), f"{row['contacts']:.1f}", f"{row['step_ms']:.4f}"]
        cells += [f"{row[p]:.4f}" for p in PHASES]
        cells.append(f"{row['ratio']:.2f}")
        print("| " + " | ".join(cells) + " |")
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["machine", *header])
        w.writeheader()
        for row in rows:
            w.writerow({"machine": args.machine, **{k: row[k] for k in header}})


if __name__ == "__main__":
    main()
