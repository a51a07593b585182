"""The small local model (TEACHAGENT_MODE=local) on this machine, and one such server for a room.

g. SmolLM2-135M-Instruct on llama.cpp (xllamacpp), in this process, on one CPU thread:
   the time to load it; generated tokens per second, free and held to the tools' JSON
   schema (the grammar local mode uses), as the server's own timings count them; seconds
   per step of a real `Agent` run; the process's resident memory with the model loaded.
   Goal (issue 21): at least 25 tokens/s under the grammar, at most 600 MB resident.
h. One server for a room: N learners' agents at once (N = 1, 5, 10, 30, each its own
   thread and conversation) against one local server with 8 slots and both cores. Per
   step: median and 90th-percentile latency; in all: steps and generated tokens per
   second. Each learner runs 2 steps, so a level ends in bounded time.
i. Every lesson under TEACHAGENT_MODE=local, top to bottom, as a learner runs it: seeded
   (TEACHAGENT_LOCAL_SEED=0), default threads, each notebook a copy executed in a fresh
   kernel, timed from the kernel's start to the last cell's end. Goal (issue 30): at most
   120 s each. A lesson whose cell raises says so in its row.

Skipped (one row saying why) without the local extra and the model file.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from timing import Row

from teachagent.agent import Agent
from teachagent.course import local
from teachagent.tools import tool

ROUNDS = 3
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
LESSON_GOAL = 120  # seconds a lesson may take under local mode (issue 30)
LEARNERS = (1, 5, 10, 30)
TASK = "Read the note named plan and do what it says."


@tool
def add(a: float, b: float) -> str:
    """Add two numbers and return the sum."""
    return str(a + b)


@tool
def read_note(name: str) -> str:
    """Read the note with this name."""
    return {"plan": "Add 17 and 25, then answer with the sum."}.get(name, f"there is no note named {name!r}")


TOOLS = [add, read_note]


def resident_mb() -> float:
    """This process's resident memory now, in MB (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024
    except (OSError, StopIteration):
        return 0.0


def generation_speed(server: local.LocalServer, grammar: bool) -> float:
    """Generated tokens per second of one 128-token request, by the server's own timing of the generation."""
    specs = [t.spec for t in TOOLS]
    from teachagent.messages import Message

    body = local.json_tools_request(local.MODEL, "You are a careful assistant.", [Message("user", TASK)], specs, 128)
    if not grammar:
        del body["response_format"]
        body["ignore_eos"] = True  # llama.cpp's own option: write all 128 tokens
    request = urllib.request.Request(f"{server.base_url}/v1/chat/completions", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as reply:
        timings = json.loads(reply.read())["timings"]
    return timings["predicted_n"] / (timings["predicted_ms"] / 1000)


def single(rows: list[Row]) -> None:
    before = resident_mb()
    loads, servers = [], []
    for _ in range(ROUNDS):
        server = local.start_server(threads=1)
        loads.append(server.load_seconds)
        servers.append(server)
        if len(servers) > 1:
            servers.pop(0).stop()
    server = servers[0]
    group = "g. local SmolLM2-135M, 1 thread"
    rows.append((group, "load the model and start the server", min(loads), statistics.median(loads), "s"))
    for grammar, label in ((False, "generated tokens/s, free"), (True, "generated tokens/s, held to the tools' schema")):
        speeds = [generation_speed(server, grammar) for _ in range(ROUNDS)]
        rows.append((group, label, max(speeds), statistics.median(speeds), "tokens/s (best = fastest)"))
    seconds = []
    for _ in range(ROUNDS):
        run = Agent(local.local_model(server), TOOLS, max_steps=3, max_tokens=96).run(TASK)
        seconds += [step.seconds for step in run.steps]
    rows.append((group, f"seconds per agent step ({len(seconds)} steps, max_tokens 96)", min(seconds),
                 statistics.median(seconds), "s"))
    rows.append((group, "resident memory of this process, model loaded", resident_mb(), None,
                 f"MB ({before:.0f} before)"))
    server.stop()


def level(server: local.LocalServer, learners: int) -> tuple[list[float], int, float]:
    """`learners` agents at once on `server`: the seconds of every step, the tokens generated, the wall time."""
    steps: list[float] = []
    tokens = [0]
    lock = threading.Lock()

    def learner() -> None:
        run = Agent(local.local_model(server), TOOLS, max_steps=2, max_tokens=48).run(TASK)
        with lock:
            steps.extend(step.seconds for step in run.steps)
            tokens[0] += sum(step.response.usage.output_tokens for step in run.steps)

    threads = [threading.Thread(target=learner) for _ in range(learners)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    return steps, tokens[0], time.perf_counter() - started


def room(rows: list[Row]) -> None:
    server = local.start_server(threads=min(2, os.cpu_count() or 1), slots=8, context=2048)
    for learners in LEARNERS:
        steps, tokens, wall = level(server, learners)
        group = f"h. one local server, {learners:>2} learners"
        p90 = statistics.quantiles(steps, n=10)[-1] if len(steps) > 1 else steps[0]
        rows += [(group, f"latency per step, median (90th percentile {p90:.2f} s)", statistics.median(steps), None, "s"),
                 (group, f"throughput: steps/s ({len(steps)} steps in {wall:.1f} s)", len(steps) / wall, None, "steps/s"),
                 (group, "throughput: generated tokens/s, all learners", tokens / wall, None, "tokens/s")]
    server.stop()


def lesson_seconds(notebook: Path) -> tuple[float, str | None]:
    """Seconds to execute a copy of `notebook` under local mode, and the error that stopped it (None: it ran to its end)."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder, notebook.name)
        shutil.copy(notebook, copy)
        nb = nbformat.read(copy, as_version=4)
        client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": folder}},
                                store_widget_state=True)
        started = time.perf_counter()
        try:
            client.execute()
        except CellExecutionError as error:
            return time.perf_counter() - started, str(error).strip().splitlines()[-1][:80]
        return time.perf_counter() - started, None


def lessons(rows: list[Row]) -> None:
    settings = {"TEACHAGENT_MODE": "local", "TEACHAGENT_LOCAL_SEED": "0"}
    before = {name: os.environ.get(name) for name in [*settings, "TEACHAGENT_LOCAL_THREADS"]}
    os.environ.update(settings)
    os.environ.pop("TEACHAGENT_LOCAL_THREADS", None)  # the default, as a learner has it
    group = f"i. lessons under local mode, seed 0, {local.default_threads()} thread(s)"
    try:
        for notebook in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
            seconds, failed = lesson_seconds(notebook)
            verdict = f"FAILED: {failed}" if failed else ("within" if seconds <= LESSON_GOAL else "OVER")
            rows.append((group, f"{notebook.stem} top to bottom ({verdict})", seconds, None,
                         f"s (goal: at most {LESSON_GOAL}; load average {os.getloadavg()[0]:.1f} after it)"))
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def rows() -> list[Row]:
    try:
        local.check_installed()
    except local.LocalModelMissing as missing:
        return [("g. local SmolLM2-135M", f"skipped: {missing}", 0.0, None, "")]
    found: list[Row] = []
    single(found)
    room(found)
    lessons(found)
    return found
