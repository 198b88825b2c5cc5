#!/usr/bin/env python3
"""Prints a short file-name-safe name of this machine for the benchmarks' CSV files: the
processor's first two words and its number of cores, e.g. AMD_EPYC-2c, or CWB_BENCH_MACHINE
where set (to name a GPU the processor's name does not tell)."""
import os
import re

if os.environ.get("CWB_BENCH_MACHINE"):
    print(re.sub(r"[^A-Za-z0-9_-]+", "_", os.environ["CWB_BENCH_MACHINE"]))
    raise SystemExit(0)
name = "unknown"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        name = line.split(":", 1)[1].strip()
        break
words = name.split() + ["", ""]
print(re.sub(r"[^A-Za-z0-9]+", "_", words[0] + "_" + words[1]).strip("_") + f"-{os.cpu_count()}c")
