"""How long validating the course takes, against the least it could take.

`pytest notebooks` re-executes every notebook under nbval, each in a fresh Jupyter
kernel, on one worker per CPU (pytest-xdist, whole notebooks per worker: see
pyproject.toml). Its floor is what no notebook test can go below when run one after
another: pytest's start-up plus one empty kernel per notebook, started, waited for and
shut down in turn. The two take turns over a few rounds. The whole `pytest` (unit tests
and notebooks, without the `browser` and `local` steps) is timed once, then `pytest -m browser`
once, and the quick tier once: each of the first two takes a minute or two.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from timing import Row, interleaved

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 3
QUICK = "not notebook and not browser and not local and not fuzz and not server"  # the README's quick tier


def run(command: list[str]) -> None:
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=1800)


def empty_kernels(count: int) -> None:
    """Start `count` empty kernels one after another, each waited for and shut down."""
    from jupyter_client.manager import start_new_kernel

    for _ in range(count):
        manager, client = start_new_kernel(kernel_name="python3", stderr=subprocess.DEVNULL)
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def rows() -> list[Row]:
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    pytest = [sys.executable, "-m", "pytest", "-q"]
    t = interleaved({
        "lessons": lambda: run([*pytest, "notebooks"]),
        "floor": lambda: (run([*pytest, "-n", "0", "--collect-only", "tests/test_import.py"]),
                          empty_kernels(len(notebooks))),
    }, ROUNDS)
    started = time.perf_counter()
    done = subprocess.run(pytest, cwd=ROOT, capture_output=True, text=True, timeout=3600)
    whole, status = time.perf_counter() - started, done.returncode
    for line in done.stdout.splitlines():  # a failed suite names what failed, so the run is not wasted
        if line.startswith(("FAILED", "ERROR")):
            print(f"whole suite: {line}", file=sys.stderr)
    started = time.perf_counter()
    browser = subprocess.run([*pytest, "-m", "browser"], cwd=ROOT, capture_output=True, text=True, timeout=3600)
    browser_time = time.perf_counter() - started
    summary = (browser.stdout.strip().splitlines() or [""])[-1].strip("= ")  # e.g. "13 passed, 4 skipped in 98.1s"
    started = time.perf_counter()
    subprocess.run([*pytest, "-m", QUICK], cwd=ROOT, capture_output=True, timeout=3600)
    quick = time.perf_counter() - started
    group = f"e. course, {len(notebooks)} notebooks"
    return [
        (group, "pytest notebooks (nbval, every lesson re-executed, -n auto)", *t["lessons"], "s"),
        (group, f"its floor: pytest start-up + {len(notebooks)} empty kernels, one after another", *t["floor"], "s"),
        (group, "pytest notebooks / floor", t["lessons"][0] / t["floor"][0], t["lessons"][1] / t["floor"][1], "x"),
        (group, "pytest, the whole suite (-n auto; the browser and local steps are apart), one run"
         + (f" (FAILED, exit {status})" if status else ""), whole, None, "s"),
        (group, f"pytest -m browser, the browser step, one run ({summary})", browser_time, None, "s"),
        (group, "the quick tier (README, Tests), one run", quick, None, "s"),
        (group, "the quick tier / the whole suite", quick / whole, None, "x"),
    ]
