"""A time limit on a call: what the dispatcher (notebooks/02_tools.ipynb) uses to stop waiting for a tool.

`call_within(fn, seconds, kwargs)` runs `fn(**kwargs)` on a worker thread and waits at most that long.
Python cannot kill a thread, so a call that hangs is simply abandoned: its worker goes on
until the call ends, and the next call takes another worker. Workers are daemon threads,
so a hung one does not keep the program from exiting (a `concurrent.futures` pool would:
it joins its threads at exit, and it stalls once every worker hangs).

Starting a thread for every call costs about as much as a small tool itself, so finished
workers wait in `_idle` for the next call, at most `MAX_IDLE_WORKERS` of them. At most
`MAX_RUNNING` calls run at once: past that (a model that calls a hanging tool 300 times),
a call is refused with `TooManyRunning` at once rather than given a 65th thread.
"""

from __future__ import annotations

import collections
import queue
import threading
from collections.abc import Callable
from typing import Any

MAX_IDLE_WORKERS = 4  # a worker beyond these ends when its job is done
MAX_RUNNING = 64  # calls running at once, hung ones included: each holds a thread
Outcome = tuple[bool, Any]  # (True, what the call returned) or (False, what it raised, SystemExit and Ctrl-C included)
Inbox = queue.SimpleQueue[tuple[Callable[..., Any], dict[str, Any], queue.SimpleQueue[Outcome]]]  # a worker's next job
_idle: collections.deque[Inbox] = collections.deque()  # last in, first out: the worker that just finished goes next
_running = [0]  # calls handed to a worker and not yet finished
_counting = threading.Lock()


class TooManyRunning(RuntimeError):
    """So many earlier calls still run past their time limit that no thread is started for another."""


def call_within(fn: Callable[..., Any], seconds: float | None, kwargs: dict[str, Any]) -> Outcome | None:
    """What `fn(**kwargs)` returned or raised, as (returned, value); None if it did not finish within `seconds`.

    With `seconds=None` the call runs right here, with no thread and no limit. What it
    raised is handed back, never raised, so the caller decides what each exception means.
    """
    if seconds is None:
        return _attempt(fn, kwargs)
    with _counting:
        if _running[0] >= MAX_RUNNING:
            return False, TooManyRunning(f"{_running[0]} earlier calls are still running past their time limit; "
                                         "this one was not started (a call starts again once one of them ends)")
        _running[0] += 1
    reply: queue.SimpleQueue[Outcome] = queue.SimpleQueue()  # one per call: a late reply lands nowhere
    try:
        inbox = _idle.pop()  # deque's append and pop are atomic: no lock needed
    except IndexError:
        inbox = queue.SimpleQueue()
        threading.Thread(target=_work, args=(inbox,), name="teachagent tool worker", daemon=True).start()
    inbox.put((fn, kwargs, reply))
    try:
        return reply.get(timeout=seconds)
    except queue.Empty:
        return None


def _attempt(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Outcome:
    try:
        return True, fn(**kwargs)
    except BaseException as exc:  # sorted out by the caller, on the caller's thread
        return False, exc


def _work(inbox: Inbox) -> None:
    """A worker's life: run each job it is handed, rejoin the idle ones, and only then hand back
    the result, so the caller's next call finds this worker waiting instead of starting another."""
    while True:
        fn, kwargs, reply = inbox.get()
        result = _attempt(fn, kwargs)
        with _counting:
            _running[0] -= 1
        stays = len(_idle) < MAX_IDLE_WORKERS
        if stays:
            _idle.append(inbox)
        reply.put(result)
        if not stays:
            return
