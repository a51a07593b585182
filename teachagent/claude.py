"""Claude as a `Model`: a thin adapter over the official anthropic SDK (notebooks/01_bare_chat.ipynb).

All it does is translate: our `Message`s into the request the Messages API expects, and
the API's reply back into our `Response`. Retries on rate limits (429), overload (529)
and server errors (5xx) are the SDK's own. The SDK is imported only when a `Claude` is
made, so offline lessons never load it.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .errors import CourseError
from .messages import STOP_REASONS, Message, Response, Text, ToolCall, Usage, request_body

# One place to change the model every live lesson uses; TEACHAGENT_CLAUDE_MODEL overrides it.
DEFAULT_MODEL = "claude-haiku-5-5"  # the inexpensive tier; checked 2026-11-30


class MissingAPIKey(CourseError, RuntimeError):
    """Live mode was asked for but no API key is set."""


class UnexpectedReply(RuntimeError):
    """The API answered with something this adapter cannot turn into a `Response`."""


class Claude:
    """A `Model` backed by Claude through the Messages API.

    `Claude()` reads `ANTHROPIC_API_KEY` (and `ANTHROPIC_BASE_URL`, if set) like the SDK
    does. `max_retries` and `timeout` are passed to the SDK, which does the retrying.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
        timeout: float = 120.0,
    ) -> None:
        self.name = model or os.environ.get("TEACHAGENT_CLAUDE_MODEL") or DEFAULT_MODEL
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise MissingAPIKey(
                "live mode needs an API key: set ANTHROPIC_API_KEY, or run offline (the default; no key needed)"
            )
        import anthropic

        self._client = anthropic.Anthropic(api_key=key, base_url=base_url, max_retries=max_retries, timeout=timeout)

    def __repr__(self) -> str:
        return f"Claude(model={self.name!r})"

    def request(
        self, system: str, messages: list[Message], tools: list[dict[str, Any]], max_tokens: int
    ) -> dict[str, Any]:
        """The keyword arguments of `messages.create` for this call: exactly what is sent."""
        return request_body(self.name, system, messages, tools, max_tokens)

    def complete(
        self, system: str, messages: list[Message], tools: list[dict[str, Any]] = (), max_tokens: int = 1024
    ) -> Response:
        try:
            reply = self._client.messages.create(**self.request(system, messages, tools, max_tokens))
        except json.JSONDecodeError as error:
            raise UnexpectedReply(f"the API answered with a body that is not JSON ({error})") from error
        return to_response(reply)


def to_response(reply: Any) -> Response:
    """Our `Response` from the SDK's `Message` object."""
    if not isinstance(getattr(reply, "content", None), list) or getattr(reply, "usage", None) is None:
        raise UnexpectedReply(f"the API answered with something that is not a message: {str(reply)[:200]!r}")
    content = []
    for block in reply.content:
        if block.type == "text":
            content.append(Text(block.text))
        elif block.type == "tool_use":
            if not isinstance(block.input, dict) or not block.name:
                raise UnexpectedReply(f"tool_use block {block.id} has input that is not a JSON object or has no name: {block!r}")
            content.append(ToolCall(block.id, block.name, dict(block.input)))
        else:
            raise UnexpectedReply(f"the reply holds a {block.type!r} block, which teachagent does not handle")
    if reply.stop_reason not in STOP_REASONS:
        raise UnexpectedReply(f"the reply has stop_reason {reply.stop_reason!r}, not one of {', '.join(STOP_REASONS)}")
    u = reply.usage
    usage = Usage(
        input_tokens=u.input_tokens or 0,
        output_tokens=u.output_tokens or 0,
        cache_read_input_tokens=getattr(u, "cache_read_input_tokens", None) or 0,
        cache_creation_input_tokens=getattr(u, "cache_creation_input_tokens", None) or 0,
    )
    return Response(content, reply.stop_reason, usage, reply.model)
