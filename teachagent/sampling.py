"""A scripted model that samples its next step (introduced in notebooks/07_reliability.ipynb).

A language model does not compute one reply: it computes a probability for every next
token and draws one. Run the same task twice and the runs can part ways: one reads a
file more, another answers sooner. The formal model, v_k = M(c_k), describes one run,
so the K and Z of a run are one sample of what the task costs, not the cost.

`SampledScriptedModel` shows this offline. It plays a policy, as `ScriptedModel` does,
but at a step where several replies are plausible the policy returns
`one_of((0.6, reply_a), (0.4, reply_b))` and the model draws one with its own random
generator, seeded. The same seed gives the same run; another seed may give another.
It is scripted, and its name and repr say so.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .base.errors import SettingError, check_number
from .messages import Message
from .scripted import Reply, ScriptedModel, ScriptStep


@dataclass(frozen=True)
class Choices:
    """Several plausible replies, each with its probability; made by `one_of`."""

    options: tuple[tuple[float, Reply], ...]

    def __repr__(self) -> str:
        return "one_of(" + ", ".join(f"{p:g}: {reply!r:.40}" for p, reply in self.options) + ")"

    def draw(self, rng: random.Random) -> Reply:
        """One of the replies, each as often as its probability says."""
        x, total = rng.random(), 0.0
        for probability, reply in self.options:
            total += probability
            if x < total:
                return reply
        return self.options[-1][1]  # x fell in the rounding gap just below 1


def one_of(*options: tuple[float, Reply]) -> Choices:
    """A step at which the model may write any of several replies: `one_of((0.7, a), (0.3, b))`.

    The probabilities must each lie in [0, 1] and add up to 1.
    """
    if not options:
        raise SettingError("one_of needs at least one (probability, reply) pair")
    for option in options:
        if not (isinstance(option, tuple) and len(option) == 2):
            raise SettingError(f"one_of takes (probability, reply) pairs, got {option!r:.60}")
        check_number("a probability in one_of", option[0], at_least=0, at_most=1)
    total = sum(p for p, _ in options)
    if not math.isclose(total, 1.0, abs_tol=1e-9):
        raise SettingError(f"the probabilities in one_of must add up to 1, got {total:g}")
    return Choices(tuple(options))


@dataclass(repr=False)
class SampledScriptedModel(ScriptedModel):
    """A ScriptedModel whose steps may be `one_of(...)`: it draws one reply, with a generator seeded by `seed`.

    A fresh model (or one after `.reset()`) with the same seed plays the same run on the same task.
    """

    seed: int = 0
    name: str = ""  # by default "scripted, sampled with seed <seed>"
    _rng: random.Random = field(init=False)
    _plays: str = field(init=False)  # what it plays, for describe()

    def __post_init__(self) -> None:
        check_number("seed", self.seed, whole=True, at_least=0)
        self.name = self.name or f"scripted, sampled with seed {self.seed}"
        if isinstance(self.script, Choices):
            self.script = [self.script]
        super().__post_init__()
        self._plays = super().describe()
        steps = self.script
        self.script = self._sampled(steps) if callable(steps) else [self._sampled(s) for s in steps]
        self._rng = random.Random(self.seed)

    def _sampled(self, step: ScriptStep) -> Callable[[list[Message]], Reply]:
        """The script step as a function of the conversation that draws among its choices."""

        def play(messages: list[Message]) -> Reply:
            reply: Reply | Choices = step(messages) if callable(step) else step  # a step may be one_of(...)
            while isinstance(reply, Choices):  # a chosen option may itself offer choices
                reply = reply.draw(self._rng)
            return reply

        return play

    def describe(self) -> str:
        return f"{self._plays}, sampled with seed {self.seed}"

    def reset(self) -> None:
        """Start again from the first step, with the generator back at its seed."""
        super().reset()
        self._rng = random.Random(self.seed)

    def __repr__(self) -> str:
        return f"SampledScriptedModel(name={self.name!r}, {self._plays}, seed={self.seed}, played={self.played})"
