"""How long validating the course takes, against the least it could take.

`pytest notebooks` re-executes every notebook under nbval, each in a fresh Jupyter
kernel, on one worker per CPU (pytest-xdist, whole notebooks per worker: see
pyproject.toml). Its floor is what no notebook test can go below when run one after
another: pytest's start-up plus one empty kernel per notebook, started, waited for and
shut down in turn. The two take turns over a few rounds. The whole `pytest` (unit tests
and notebooks, without the steps of their own) is timed once, then `pytest -m browser` and
`pytest -m local` once each, and the quick tier once: each of the first three takes a minute or two.
Last, the course's site is built once (`python -m teachagent site`, docs/site.md), into a
temporary folder.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import Row, interleaved

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 3
QUICK = "not notebook and not browser and not local and not fuzz and not server"  # the quick tier of docs/tests.md


def run(command: list[str]) -> None:
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=1800)


def step(command: list[str]) -> tuple[float, int, str]:
    """One timed pytest run: its seconds, its exit status and its closing line ("13 passed, 4 skipped in 98.1s")."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=3600)
    seconds = time.perf_counter() - started
    for line in done.stdout.splitlines():  # a failed step names what failed, so the run is not wasted
        if line.startswith(("FAILED", "ERROR")):
            print(f"{' '.join(command[3:]) or 'whole suite'}: {line}", file=sys.stderr)
    return seconds, done.returncode, (done.stdout.strip().splitlines() or [""])[-1].strip("= ")


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
    whole, status, _ = step(pytest)
    browser_time, _, browser = step([*pytest, "-m", "browser"])
    local_time, _, local = step([*pytest, "-m", "local"])
    quick, _, _ = step([*pytest, "-m", QUICK])
    with tempfile.TemporaryDirectory() as folder:
        site, built, _ = step([sys.executable, "-m", "teachagent", "site", "--out", str(Path(folder) / "site")])
    group = f"e. course, {len(notebooks)} notebooks"
    return [
        (group, "pytest notebooks (nbval, every lesson re-executed, -n auto)", *t["lessons"], "s"),
        (group, f"its floor: pytest start-up + {len(notebooks)} empty kernels, one after another", *t["floor"], "s"),
        (group, "pytest notebooks / floor", t["lessons"][0] / t["floor"][0], t["lessons"][1] / t["floor"][1], "x"),
        (group, "pytest, the whole suite (-n auto; the browser and local steps are apart), one run"
         + (f" (FAILED, exit {status})" if status else ""), whole, None, "s"),
        (group, f"pytest -m browser, the browser step, one run ({browser})", browser_time, None, "s"),
        (group, f"pytest -m local, the small real model's step, one run ({local})", local_time, None, "s"),
        (group, "the quick tier (docs/tests.md), one run", quick, None, "s"),
        (group, "the quick tier / the whole suite", quick / whole, None, "x"),
        (group, "python -m teachagent site, the course's website built offline, one run"
         + (f" (FAILED, exit {built})" if built else ""), site, None, "s"),
    ]
