"""What every benchmark here shares: contenders timed in turns, and an instant stub model.

A row is (benchmark, what it measures, best, median, unit): the best and the median of
several rounds. Noise on a shared machine only ever adds time, so the best says what
the code costs; the median says what a run usually takes there.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable

from teachagent.messages import Response, Text, ToolCall
from teachagent.usage import Usage

Row = tuple[str, str, float, "float | None", str]


def interleaved(contenders: dict[str, Callable[[], object]], rounds: int,
                setup: dict[str, Callable[[], object]] | None = None) -> dict[str, tuple[float, float]]:
    """(best, median) seconds of each contender over `rounds` rounds.

    In every round each contender runs once, taking turns in an order that rotates from
    round to round, so a burst of load elsewhere slows all of them rather than one.
    `setup[name]`, if given, runs before each timed call of `name`, outside the timing.
    """
    setup = setup or {}
    names, times = list(contenders), {name: [] for name in contenders}
    for r in range(rounds):
        for name in names[r % len(names):] + names[: r % len(names)]:
            if name in setup:
                setup[name]()
            gc.collect()
            started = time.perf_counter()
            contenders[name]()
            times[name].append(time.perf_counter() - started)
    return {name: (min(t), statistics.median(t)) for name, t in times.items()}


class InstantModel:
    """A stub model that answers at once: K - 1 calls to `tool`, then a final answer.

    Its replies are built when it is made, and the step it is at is read from the
    length of the conversation, so a call does nothing but index a list: what is timed
    around it is the loop's own work. Its usage is zero (it counts no tokens).
    """

    name = "instant"

    def __init__(self, steps: int, tool: str = "noop") -> None:
        calls = [Response([ToolCall(f"call_{k}", tool, {})], "tool_use", Usage()) for k in range(1, steps)]
        self.replies = [*calls, Response([Text("done")], "end_turn", Usage())]

    def complete(self, system, messages, tools, max_tokens):
        return self.replies[len(messages) // 2]  # the task, then a call and its result per step
