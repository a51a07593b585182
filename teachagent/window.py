"""The context window: the most a model can hold at once (introduced in notebooks/04_memory.ipynb).

Working memory is the context c_k, and it is bounded: a model holds at most its
*context window* of tokens, the context and its reply together. `WithWindow(model, W)`
gives any model a window of W tokens and meets it the two ways the Messages API does:
- a context larger than the window cannot be read at all: the call is refused with
  `PromptTooLong` (the API's HTTP 400, "prompt is too long"), and the model writes nothing;
- a context that fits leaves room for a reply of W − c_k tokens; a reply that runs out of
  room stops there, with stop reason `model_context_window_exceeded`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .base.errors import PromptTooLong, check_number
from .base.growing import GrowingCount
from .messages import MAX_TOKENS, Message, Response
from .models import Model, call_model, is_scripted
from .requests import ToolChoice
from .tokens import context_tokens, message_tokens
from .usage import Usage

if TYPE_CHECKING:
    from .answers import AnswerForm


@dataclass(repr=False)
class WithWindow:
    """`model`, able to hold at most `window` tokens: its context and its reply together."""

    model: Model
    window: int
    _counted: GrowingCount = field(default_factory=GrowingCount, init=False, compare=False)  # c_k, counted as it grows

    def __post_init__(self) -> None:
        check_number("window", self.window, whole=True, at_least=0, unit="tokens")

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def scripted(self) -> bool:
        """A window changes nothing about who answers: a scripted model stays scripted."""
        return is_scripted(self.model)

    def __repr__(self) -> str:
        return f"WithWindow({self.model!r}, window={self.window})"

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> Response:
        check_number("max_tokens", max_tokens, whole=True, at_least=1)
        read = self._counted.count((system, list(tools)), messages, lambda: context_tokens(system, (), tools), message_tokens)
        if read > self.window:
            raise PromptTooLong(read, self.window, self.name)  # as the API refuses it: the model reads nothing
        room = self.window - read
        if room >= max_tokens:
            return call_model(self.model, system, messages, tools, max_tokens, tool_choice, answer_form)
        if room == 0:  # the context fills the window: not one token of reply fits
            return Response([], "model_context_window_exceeded", Usage(read, 0), self.name)
        response = call_model(self.model, system, messages, tools, room, tool_choice, answer_form)
        if response.stop_reason == "max_tokens":  # cut where the window ends, not at the caller's max_tokens
            response = dataclasses.replace(response, stop_reason="model_context_window_exceeded")
        return response
