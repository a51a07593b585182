"""Each step of a task measured alone, their product beside the task's rate (introduced in notebooks/07_reliability.ipynb).

qⁿ says that a task of n steps succeeds as often as the product of its steps' rates, if
each step goes right or wrong regardless of the others. On a real model that is a claim to
test: measure each step on its own, multiply, and set the product beside the task's rate
measured end to end, over other runs.

To measure step k alone, the model must be where a run that did steps 1 to k - 1 right
would be. `AfterRightSteps` puts it there: a reference policy (a scripted reader that does
each step right) plays the first k - 1 replies of the run, and the real model writes the
k-th, which is judged. The model reads exactly what it would have read after right steps of
its own, since a conversation holds the calls and results, not who wrote them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .base.errors import check_number
from .estimate import Estimate
from .measurement import WrappedSeed
from .messages import MAX_TOKENS, Message, Response
from .models import Model, call_model
from .requests import ToolChoice
from .scripted import Policy, ScriptedModel

if TYPE_CHECKING:
    from .answers import AnswerForm


class AfterRightSteps:
    """A `Model` whose first `k` replies in a run are those of `reference`, a policy that does each step
    right; every later reply is `model`'s. A run starts afresh with each conversation of one message."""

    def __init__(self, model: Model, reference: Policy, k: int) -> None:
        check_number("k, the steps played right before the model's", k, whole=True, at_least=0, at_most=1000)
        self.model, self.reference, self.k = model, reference, k
        self.name = model.name
        self._script = ScriptedModel(reference, name=f"reference ({getattr(reference, '__name__', 'policy')})")

    def __repr__(self) -> str:
        return f"AfterRightSteps({self.model.name!r}, after {self.k} right steps of {self._script.describe()})"

    seed = WrappedSeed()  # the measured model's sampling seed (None if it has none)

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> Response:
        done = sum(message.role == "assistant" for message in messages)  # the steps of this run so far
        if done == 0:  # a new run: the reference's call ids start again, so every run's requests are the same
            self._script = ScriptedModel(self.reference, name=self._script.name)
        if done < self.k:
            return self._script.complete(system, messages, tools, max_tokens, tool_choice, answer_form)
        return call_model(self.model, system, messages, tools, max_tokens, tool_choice, answer_form)


def product(rates: Sequence[Estimate]) -> tuple[float, tuple[float, float]]:
    """The product of measured rates, and the range their 95 % intervals allow: from the product of their
    low ends to the product of their high ends. It is a range, not a 95 % interval: each end has every rate
    at the same end of its interval at once."""
    if not rates:
        raise ValueError("a product of rates needs at least one rate")
    return (math.prod(r.rate for r in rates),
            (math.prod(r.interval[0] for r in rates), math.prod(r.interval[1] for r in rates)))
