"""Claude as a `Model`: a thin adapter over the official anthropic SDK (notebooks/01_bare_chat.ipynb).

All it does is translate: our `Message`s into the request the Messages API expects, and
the API's reply back into our `Response`, block by block and by type (a reply may begin
with a thinking block, so the answer is never "the first block"). Retries on rate limits
(429), overload (529) and server errors (5xx) are the SDK's own. The SDK is imported only
when a `Claude` is made, so offline lessons never load it.

A request whose context alone is larger than the model's window gets HTTP 400 "prompt is
too long"; it becomes `PromptTooLong`, the error a scripted model raises at its window.

The transport guards sit in teachagent/base/http.py, shared with `OpenAICompatible`: a
total deadline per call, a bounded reply body, and an API key that reaches no output.
The request it sends is `requests.request_body`, the Messages API's shape (a cassette
records the same shape for any model).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .base.errors import A_DAY, PromptTooLong, SettingError, check_number, checked_name
from .base.http import (
    DEFAULT_TIMEOUT,
    IDENTITY,
    STAND_IN_KEY,
    CallTimedOut,
    Connection,
    Guarded,
    MissingAPIKey,
    ReplyTooLarge,
    Secret,
    UnexpectedReply,
    as_sent,
    capped_http_client,
    reply_count,
    reply_text,
    sendable,
    sent_field,
)
from .messages import MAX_TOKENS, STOPS, Block, Message, Response, Text, ToolCall
from .models import Model
from .requests import ToolChoice, request_body, unwrapped_answer
from .thinking import OtherBlock, RedactedThinking, Thinking
from .usage import Usage

if TYPE_CHECKING:
    from .answers import AnswerForm

# One place to change the model every live lesson uses; TEACHAGENT_CLAUDE_MODEL overrides it.
DEFAULT_MODEL = "claude-haiku-5-5"  # the inexpensive tier; checked 2026-11-30
__all__ = ["DEFAULT_MODEL", "CallTimedOut", "Claude", "MissingAPIKey", "ReplyTooLarge", "UnexpectedReply"]


class Claude(Model):
    """A `Model` backed by Claude through the Messages API.

    `Claude()` reads `ANTHROPIC_API_KEY` (and `ANTHROPIC_BASE_URL`, if set) like the SDK
    does. `max_retries` is passed to the SDK, which does the retrying; `timeout` bounds a
    whole call, retries included. `thinking` is sent as the API's thinking setting: None
    leaves it to the model (Claude Haiku 5.5 may think before it answers), True asks for
    adaptive thinking, False turns it off. The API refuses to force a tool call
    (tool_choice "any" or a tool's name) while the model may think, so such a request is
    refused here, before the call, unless thinking is False.
    """

    name = "(not set yet)"  # what the repr of one that could not be made shows: safe to print half-built

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
        timeout: float = DEFAULT_TIMEOUT,
        thinking: bool | None = None,
    ) -> None:
        self.name = (checked_name("model", model) or checked_name("TEACHAGENT_CLAUDE_MODEL", os.environ.get(
            "TEACHAGENT_CLAUDE_MODEL")) or DEFAULT_MODEL)  # blank is unset
        if thinking not in (None, True, False):
            raise SettingError(f"thinking must be True, False or None (the model's own default), got {thinking!r}")
        self.thinking = thinking
        key, api_key = Secret(api_key or ""), None  # no frame holds the key itself
        connection, base_url = Connection.read(key, "ANTHROPIC_API_KEY", base_url, "ANTHROPIC_BASE_URL"), None
        self.timeout = float(check_number("timeout", timeout, above=0, at_most=A_DAY, unit="seconds"))
        check_number("max_retries", max_retries, whole=True, at_least=0, at_most=10)
        import anthropic

        address = connection.address
        build = lambda: anthropic.Anthropic(  # noqa: E731
            api_key=STAND_IN_KEY, base_url=address.base if address else None, max_retries=max_retries,
            timeout=self.timeout, default_headers=IDENTITY, http_client=capped_http_client(anthropic, address),
        )
        self._guarded = Guarded(build, connection.secret, self.timeout, self.name, address)

    def __repr__(self) -> str:
        return f"Claude(model={self.name!r})"

    def request(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> dict[str, Any]:
        """The keyword arguments of `messages.create` for this call: exactly what is sent."""
        body = request_body(self.name, system, messages, tools, max_tokens, tool_choice, answer_form)
        if body.get("tool_choice", {}).get("type") in ("any", "tool") and self.thinking is not False:
            raise SettingError(f"Claude refuses tool_choice {tool_choice!r} while it may think before it answers: "
                               "make the model with Claude(thinking=False) to force a call, or leave tool_choice 'auto'")
        if self.thinking is not None:
            body["thinking"] = {"type": "adaptive" if self.thinking else "disabled"}
        return body

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> Response:
        import anthropic

        params = sendable(self.request(system, messages, tools, max_tokens, tool_choice, answer_form))
        try:
            reply, sent = self._guarded.call(lambda client: as_sent(client.messages.with_raw_response.create(**params)))
        except anthropic.BadRequestError as error:
            too_long = re.search(r"prompt is too long(?:: (\d+) tokens > (\d+) maximum)?", str(error))
            if too_long is None:
                raise
            tokens, window = (int(n) if n else None for n in too_long.groups())
            raise PromptTooLong(tokens, window, self.name) from error  # the same error a scripted model raises
        usage = sent.get("usage") if isinstance(sent, dict) else None
        response = Response.from_dict(self._guarded.scrub(to_response(reply, usage).to_dict()))  # an echoed key: HIDDEN
        if answer_form is not None and response.stop_reason != "tool_use":  # the answer came as {"answer": ...}
            response.content = [Text(unwrapped_answer(b.text)) if isinstance(b, Text) else b for b in response.content]
        return response

    def count_tokens(self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = ()) -> int:
        """Claude's own count of the tokens this context holds (the API's counting endpoint; free).

        The agent asks for it before a live call when a token or dollar budget is set, because
        our tiktoken estimate counts fewer tokens than Claude's tokenizer does.
        """
        params = sendable(self.request(system, messages, tools, 1))
        del params["max_tokens"]
        counted = self._guarded.call(lambda client: client.messages.count_tokens(**params))
        return reply_count(getattr(counted, "input_tokens", None), "input_tokens")


def to_response(reply: Any, usage: Any = None) -> Response:
    """Our `Response` from the SDK's `Message` object, block by block and by type; its counts from `usage`, the
    reply's usage as the server sent it, when given (the SDK would read a count of "12" as 12)."""
    if not isinstance(getattr(reply, "content", None), list) or getattr(reply, "usage", None) is None:
        raise UnexpectedReply(f"the API answered with something that is not a message: {str(reply)[:200]!r}")
    content = [block_of(block) for block in reply.content]
    stop = reply_text(reply.stop_reason, "stop_reason")
    if stop not in STOPS:
        raise UnexpectedReply(f"the reply has stop_reason {stop!r}, not one of {', '.join(STOPS)}")
    u = usage if usage is not None else reply.usage
    counted = Usage(**{name: reply_count(sent_field(u, name), f"usage.{name}") for name in Usage().to_dict()})
    return Response(content, stop, counted, reply_text(reply.model, "model"))


def block_of(block: Any) -> Block:
    """One of the SDK's content blocks as ours: by its type, never by its place (a reply may start with thinking)."""
    kind = getattr(block, "type", None)
    if kind == "text" and isinstance(block.text, str):
        return Text(block.text)
    if kind == "tool_use":
        if not isinstance(block.input, dict) or not block.name:
            raise UnexpectedReply(f"tool_use block {block.id} has input that is not a JSON object or has no name: {block!r}")
        return ToolCall(block.id, block.name, dict(block.input))
    if kind == "thinking" and set(block.to_dict()) == {"type", "thinking", "signature"}:
        return Thinking(block.thinking, block.signature)
    if kind == "redacted_thinking" and set(block.to_dict()) == {"type", "data"}:
        return RedactedThinking(block.data)
    if isinstance(kind, str) and hasattr(block, "to_dict"):
        return OtherBlock(block.to_dict())  # exactly the fields that came, to go back as they came
    raise UnexpectedReply(f"the reply holds a content block with no type: {str(block)[:200]!r}")
