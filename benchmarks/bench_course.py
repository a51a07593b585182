"""How long validating the course takes, against the least it could take.

`pytest` re-executes every notebook under nbval, and each notebook needs a fresh
Jupyter kernel. Starting that many empty kernels, one after another, is the floor no
notebook test can go below; the ratio says how much of the validation time is the
lessons' own work. The whole `pytest` (unit tests included) is timed too.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=900)
    return time.perf_counter() - started


def empty_kernels(count: int) -> float:
    """Seconds to start `count` empty kernels one after another, each waited for and shut down."""
    from jupyter_client.manager import start_new_kernel

    started = time.perf_counter()
    for _ in range(count):
        manager, client = start_new_kernel(kernel_name="python3", stderr=subprocess.DEVNULL)
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return time.perf_counter() - started


def rows() -> list[tuple]:
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly"]
    startup = timed([*pytest, "--collect-only", "tests/test_import.py"])  # pytest and its plugins loading
    lessons = timed([*pytest, "notebooks"])
    whole = timed(pytest)
    floor = startup + empty_kernels(len(notebooks))
    group = f"d. course, {len(notebooks)} notebooks"
    return [
        (group, "pytest notebooks (nbval, every lesson re-executed)", lessons, "s"),
        (group, f"floor: pytest start-up + {len(notebooks)} empty kernels", floor, "s"),
        (group, "validation / floor", lessons / floor, "x"),
        (group, "pytest, the whole suite", whole, "s"),
    ]
