"""d. Start-up: how long a fresh interpreter takes before the course does anything.

`python -c pass`, `python -c 'import teachagent'`, and the terminal demo (`python -m
teachagent`, offline) from its start until it prints its first step, which needs the
tokenizer to count c₁: once with tiktoken's parsed vocabulary kept from an earlier run
(every run after a learner's first), once with an empty cache folder each time (the first
run, which parses the vocabulary and keeps it). The four take turns, round after round.

The children write and read Python's compiled bytecode (in a folder of their own, not in
the repository), as an installed package does, even where PYTHONDONTWRITEBYTECODE is set.
`python benchmarks/run.py start` runs only these rows.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from timing import Row

ROUNDS = 9


def first_step(command: list[str], env: dict[str, str]) -> float:
    """Seconds from starting `command` until it prints a line that starts with 'step 1:'."""
    started = time.perf_counter()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env) as demo:
        assert demo.stdout is not None
        for line in demo.stdout:
            if line.startswith("step 1:"):
                seconds = time.perf_counter() - started
                demo.stdout.read()
                return seconds
    raise RuntimeError(f"{command} printed no 'step 1:'")


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env)
    return time.perf_counter() - started


def rows() -> list[Row]:
    python = sys.executable
    with tempfile.TemporaryDirectory() as scratch:
        env = {key: value for key, value in os.environ.items() if key not in ("PYTHONDONTWRITEBYTECODE", "ANTHROPIC_API_KEY")}
        env.update(TEACHAGENT_MODE="offline", PYTHONPYCACHEPREFIX=str(Path(scratch, "bytecode")),
                   XDG_CACHE_HOME=str(Path(scratch, "cache")))
        first_runs = iter(range(10**6))

        def first_run() -> float:  # a cache folder never used before
            fresh = str(Path(scratch, f"new{next(first_runs)}"))
            return first_step([python, "-m", "teachagent"], {**env, "XDG_CACHE_HOME": fresh})

        jobs: dict[str, Callable[[], float]] = {
            "bare": lambda: timed([python, "-c", "pass"], env),
            "import": lambda: timed([python, "-c", "import teachagent"], env),
            "kept": lambda: first_step([python, "-m", "teachagent"], env),
            "first": first_run,
        }
        jobs["kept"]()  # compiles the bytecode and keeps the vocabulary: what a learner's first run leaves
        times: dict[str, list[float]] = {name: [] for name in jobs}
        names = list(jobs)
        for r in range(ROUNDS):
            for name in names[r % len(names):] + names[: r % len(names)]:
                times[name].append(jobs[name]())
    ms = {name: (1e3 * min(t), 1e3 * statistics.median(t)) for name, t in times.items()}
    group = "d. start-up"
    return [
        (group, "python -c pass", *ms["bare"], "ms"),
        (group, "python -c 'import teachagent'", *ms["import"], "ms"),
        (group, "python -m teachagent (offline): start to first step, vocabulary kept from before", *ms["kept"], "ms"),
        (group, "the same, first run (vocabulary parsed by tiktoken, then kept)", *ms["first"], "ms"),
    ]
