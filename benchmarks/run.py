"""Run every benchmark in this folder and print one table: `python benchmarks/run.py`.

A benchmark is a module `bench_*.py` here with a function `rows()` that returns
(benchmark, what it measures, best, median, unit) tuples (see timing.py); a median of
None is a value measured once. `python benchmarks/run.py loop compare` runs only
bench_loop.py and bench_compare.py.
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
    known = sorted(path.stem.removeprefix("bench_") for path in HERE.glob("bench_*.py"))
    chosen = set(sys.argv[1:])
    if chosen - set(known):
        # also the answer to --help: say what can be run instead of running nothing
        sys.exit(f"usage: python benchmarks/run.py [{' '.join(known)}]  (none named: all of them)")
    sys.path.insert(0, str(HERE))
    print(f"Python {platform.python_version()} on {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs")
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.1f}; best and median of the rounds")
    started = time.perf_counter()
    rows = []
    for path in sorted(HERE.glob("bench_*.py")):
        if not chosen or path.stem.removeprefix("bench_") in chosen:
            rows += importlib.import_module(path.stem).rows()

    rows.sort(key=lambda row: row[0][:2])  # by the benchmark's letter, keeping each one's own order
    widths = [max(len(str(r[i])) for r in rows) for i in (0, 1)]
    print(f"{'benchmark':<{widths[0]}}  {'what is measured':<{widths[1]}}  {'best':>10} {'median':>10}")
    for group, measurement, best, median, unit in rows:
        shown = "" if median is None else f"{median:,.2f}"
        print(f"{group:<{widths[0]}}  {measurement:<{widths[1]}}  {best:>10,.2f} {shown:>10} {unit}")
    print(f"({time.perf_counter() - started:.0f} s in all, load average {os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
