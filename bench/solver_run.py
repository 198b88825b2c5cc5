"""What one headless run of a box scene measured, for the solver benchmarks
(bench/direct_start.sh, bench/solver_stop.sh): read from its --report JSON and the scene it
ran."""
import json
import math
import statistics

import yaml


def measure(report_path, scene_path):
    """steps/s, velocity sweeps per step, steps ended at the cap, the largest distance of a
    body (the ground left out) from where the scene placed it, the kinetic energy after the
    last step, and the steps run."""
    with open(report_path) as f:
        report = json.load(f)
    with open(scene_path) as f:
        placed = {b["name"]: b["pose"]["position"]
                  for b in yaml.safe_load(f)["bodies"] if "pose" in b}
    steps = report["per_step"]
    drift = max(math.dist(b["centroid"], placed[b["name"]])
                for b in report["bodies"] if b["name"] in placed and b["name"] != "ground")
    return {
        "steps_per_s": len(steps) * 1000 / report["wall_ms"],
        "sweeps": statistics.mean(s["solver_iterations"] or 0 for s in steps),
        "capped": sum(1 for s in steps if s.get("solver_converged") is False),
        "drift": drift,
        "final_ke": steps[-1]["kinetic_energy"],
        "steps": len(steps),
    }
