"""Run every benchmark in this folder and print one table: `python benchmarks/run.py`.

A benchmark is a module `bench_*.py` here with a function `rows()` that returns
(benchmark, measurement, value, unit) tuples.
"""

from __future__ import annotations

import importlib
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    sys.path.insert(0, str(HERE))
    print(f"Python {platform.python_version()} on {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs")
    started = time.perf_counter()
    rows = []
    for path in sorted(HERE.glob("bench_*.py")):
        rows += importlib.import_module(path.stem).rows()

    rows.sort(key=lambda row: row[0][:2])  # by the benchmark's letter, keeping each one's own order
    widths = [max(len(str(r[i])) for r in rows) for i in (0, 1)]
    for group, measurement, value, unit in rows:
        print(f"{group:<{widths[0]}}  {measurement:<{widths[1]}}  {value:>10,.2f} {unit}")
    print(f"({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main()
