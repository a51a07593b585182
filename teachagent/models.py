"""What a model is to our code (introduced in notebooks/01_bare_chat.ipynb).

To the rest of teachagent a model is anything with a `name` and a
`complete(system, messages, tools, max_tokens, tool_choice="auto", answer_form=None) -> Response`
method. It keeps no state between calls: whatever it should know must be in the arguments
of that one call. `tool_choice` says what it may do with the tools ("auto", "any", "none" or
a tool's name, notebooks/02_tools.ipynb); `answer_form`, if given, is the form its final
answer must take (answers.py). A model written with only the first four parameters still
serves every request that leaves those two at their defaults (`call_model`).

Offline, the model is a `ScriptedModel` (scripted.py), which plays a script instead of
thinking; `teachagent.course.modes.select_model` picks a lesson's model from its mode: that
scripted one (the default), the small local model, a live one (Claude or an
OpenAI-compatible server), or a recording of one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .messages import Message, Response
from .requests import ToolChoice

if TYPE_CHECKING:
    from .answers import AnswerForm


@runtime_checkable
class Model(Protocol):
    """Anything that turns one context into one response: a `name` and `complete`.

    A model may also say three things about itself; one that subclasses `Model` inherits
    these defaults, and `is_scripted`, `own_count` and `suggested_steps` read them from any model:
    - `scripted`: it is a stand-in that plays a script, so every run it plays says so (False);
    - `step_budget`: the step budget it suggests for the course's agents, e.g. fewer steps for
      a slow local model (None: the agent's own);
    - `count_tokens(system, messages, tools)`: its own exact count of what a call would read
      (None: it has none, and the budgets estimate, budget.py).
    """

    name: str
    scripted: bool = False
    step_budget: int | None = None

    def count_tokens(self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = ()) -> int | None:
        return None

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> Response: ...


def is_scripted(model: Model) -> bool:
    """Whether `model` is a scripted stand-in: every run, view and budget asks this one question, so that a
    scripted run can never pass for a real model's (a model that does not say is not one)."""
    return getattr(model, "scripted", False) is True


def own_count(model: Model, system: str, messages: list[Message], tools: Sequence[dict[str, Any]]) -> int | None:
    """The model's own count of what this call would read (Claude asks its API), or None if it has none."""
    counter = getattr(model, "count_tokens", None)
    return counter(system, messages, tools) if callable(counter) else None


def suggested_steps(model: Model) -> int | None:
    """The step budget the model suggests for the course's agents, or None if it suggests none."""
    budget = getattr(model, "step_budget", None)
    return budget if isinstance(budget, int) and not isinstance(budget, bool) and budget > 0 else None


def call_model(
    model: Model, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int,
    tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
) -> Response:
    """`model.complete(...)`, with `tool_choice` and `answer_form` passed only when they are not the defaults:
    a model written with four parameters still serves every request that needs neither."""
    settings: dict[str, Any] = {}
    if tool_choice != "auto":
        settings["tool_choice"] = tool_choice
    if answer_form is not None:
        settings["answer_form"] = answer_form
    return model.complete(system, messages, tools, max_tokens, **settings)
