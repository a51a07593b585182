"""Claude as a `Model`: a thin adapter over the official anthropic SDK (notebooks/01_bare_chat.ipynb).

All it does is translate: our `Message`s into the request the Messages API expects, and
the API's reply back into our `Response`, block by block and by type (a reply may begin
with a thinking block, so the answer is never "the first block"). Retries on rate limits
(429), overload (529) and server errors (5xx) are the SDK's own. The SDK is imported only
when a `Claude` is made, so offline lessons never load it.

A request whose context alone is larger than the model's window gets HTTP 400 "prompt is
too long"; it becomes `PromptTooLong`, the error a scripted model raises at its window.

Three guarantees sit on top of the SDK:
- every call ends by its `timeout`, retries included, even when a server sends its reply
  one byte at a time (the SDK's own timeout is per read, not per call);
- a reply body larger than `MAX_REPLY_BYTES` is refused as it arrives, so a broken or
  hostile server cannot fill the memory (we ask for an uncompressed body, so the bytes
  counted are the bytes kept);
- the API key never appears in anything we print, raise or save. A key with whitespace or
  a control character in it (a stray \\r from a Windows .env file is the usual one) is
  refused at once, because the HTTP library would otherwise quote it in an error.
"""

from __future__ import annotations

import json
import os
import re
import threading
import unicodedata
from collections.abc import Sequence
from typing import Any

from .base.errors import CourseError, check_number
from .messages import (
    MAX_TOKENS,
    STOP_REASONS,
    Block,
    Message,
    OtherBlock,
    RedactedThinking,
    Response,
    Text,
    Thinking,
    ToolCall,
    Usage,
    request_body,
)
from .models import PromptTooLong

# One place to change the model every live lesson uses; TEACHAGENT_CLAUDE_MODEL overrides it.
DEFAULT_MODEL = "claude-haiku-5-5"  # the inexpensive tier; checked 2026-11-30
DEFAULT_TIMEOUT = 120.0  # seconds one call may take in all, retries included
MAX_REPLY_BYTES = 16 * 2**20  # 16 MiB; a reply of the largest max_tokens is well under 1 MiB of JSON


class MissingAPIKey(CourseError, RuntimeError):
    """Live mode was asked for but no usable API key is set."""


class UnexpectedReply(RuntimeError):
    """The API answered with something this adapter cannot turn into a `Response`."""


class ReplyTooLarge(UnexpectedReply):
    """The API's reply body was larger than `MAX_REPLY_BYTES`; it was not read to the end."""


class CallTimedOut(RuntimeError):
    """A model call did not finish within its total time allowance."""


def checked_key(key: str | None) -> str:
    """The key, if it can be sent as it is; a `MissingAPIKey` that never quotes it otherwise."""
    if not key:
        raise MissingAPIKey(
            "live mode needs an API key: set ANTHROPIC_API_KEY, or run offline (the default; no key needed)"
        )
    if any(ch.isspace() or unicodedata.category(ch).startswith("C") for ch in key):
        raise MissingAPIKey(
            f"the API key ({len(key)} characters) holds whitespace or a control character, often a stray \\r or "
            "\\n from a .env file saved with Windows line endings. Set ANTHROPIC_API_KEY to the key alone and "
            "start again."
        )
    return key


class Claude:
    """A `Model` backed by Claude through the Messages API.

    `Claude()` reads `ANTHROPIC_API_KEY` (and `ANTHROPIC_BASE_URL`, if set) like the SDK
    does. `max_retries` is passed to the SDK, which does the retrying; `timeout` bounds a
    whole call, retries included.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.name = model or os.environ.get("TEACHAGENT_CLAUDE_MODEL") or DEFAULT_MODEL
        self.timeout = float(check_number("timeout", timeout, above=0, at_most=24 * 3600, unit="seconds"))
        check_number("max_retries", max_retries, whole=True, at_least=0, at_most=10)
        key = checked_key(api_key or os.environ.get("ANTHROPIC_API_KEY"))
        import anthropic

        # the key lives only inside the SDK client, which is made again if a call must be abandoned
        self._connect = lambda: anthropic.Anthropic(
            api_key=key,
            base_url=base_url,
            max_retries=max_retries,
            timeout=self.timeout,
            default_headers={"accept-encoding": "identity"},  # so the body we count is the body we keep
            http_client=anthropic.DefaultHttpxClient(event_hooks={"response": [cap_reply_body]}),
        )
        self._client = self._connect()

    def __repr__(self) -> str:
        return f"Claude(model={self.name!r})"

    def request(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int
    ) -> dict[str, Any]:
        """The keyword arguments of `messages.create` for this call: exactly what is sent."""
        return request_body(self.name, system, messages, tools, max_tokens)

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS
    ) -> Response:
        import anthropic

        params = self.request(system, messages, tools, max_tokens)
        try:
            reply = self._within_timeout(lambda client: client.messages.create(**params))
        except anthropic.BadRequestError as error:
            too_long = re.search(r"prompt is too long(?:: (\d+) tokens > (\d+) maximum)?", str(error))
            if too_long is None:
                raise
            tokens, window = (int(n) if n else None for n in too_long.groups())
            raise PromptTooLong(tokens, window, self.name) from error  # the same error a scripted model raises
        return to_response(reply)

    def count_tokens(self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = ()) -> int:
        """Claude's own count of the tokens this context holds (the API's counting endpoint; free).

        The agent asks for it before a live call when a token or dollar budget is set, because
        our tiktoken estimate counts fewer tokens than Claude's tokenizer does.
        """
        params = self.request(system, messages, tools, 1)
        del params["max_tokens"]
        counted = self._within_timeout(lambda client: client.messages.count_tokens(**params))
        return int(counted.input_tokens)

    def _within_timeout(self, send: Any) -> Any:
        """`send(client)`, run on a helper thread so that it can be abandoned after `timeout` seconds.

        Abandoning closes the client, which ends the stalled connection, and starts a new one
        for the next call. Ctrl-C still reaches the waiting (main) thread.
        """
        client, outcome, done = self._client, {}, threading.Event()

        def attempt() -> None:
            try:
                outcome["reply"] = send(client)
            except BaseException as error:  # handed to the caller's thread below
                outcome["error"] = error
            finally:
                done.set()

        threading.Thread(target=attempt, name="teachagent-claude-call", daemon=True).start()
        if not done.wait(self.timeout):
            self._client = self._connect()
            client.close()
            raise CallTimedOut(f"the call to {self.name} took more than {self.timeout:g} s in all and was abandoned")
        if "error" in outcome:
            error = outcome["error"]
            cause = error
            while cause is not None:  # the SDK wraps what the body cap raised, and retries it like a lost connection
                if isinstance(cause, ReplyTooLarge):
                    raise ReplyTooLarge(str(cause)) from None
                cause = cause.__cause__
            if isinstance(error, json.JSONDecodeError):
                raise UnexpectedReply(f"the API answered with a body that is not JSON ({error})") from None
            raise error
        return outcome["reply"]


def cap_reply_body(response: Any) -> None:
    """The HTTP client's response hook: stop reading a body once it passes `MAX_REPLY_BYTES`.

    It runs before the body is read. A body whose announced length is too large is refused
    at once; any other is counted as it arrives, so a body without a length (or with a
    false one) is cut off at the limit too.
    """
    import httpx2

    limit, inner = MAX_REPLY_BYTES, response.stream
    refusal = f"the API's reply body is larger than {limit:,} bytes; it was not read to the end"
    announced = response.headers.get("content-length", "")
    if announced.isdigit() and int(announced) > limit:
        raise ReplyTooLarge(f"{refusal} (it announced {int(announced):,})")

    class Capped(httpx2.SyncByteStream):
        def __iter__(self):
            seen = 0
            for chunk in inner:
                seen += len(chunk)
                if seen > limit:
                    raise ReplyTooLarge(refusal)
                yield chunk

        def close(self) -> None:
            inner.close()

    response.stream = Capped()


def to_response(reply: Any) -> Response:
    """Our `Response` from the SDK's `Message` object, block by block and by type."""
    if not isinstance(getattr(reply, "content", None), list) or getattr(reply, "usage", None) is None:
        raise UnexpectedReply(f"the API answered with something that is not a message: {str(reply)[:200]!r}")
    content: list[Block] = []
    for block in reply.content:
        kind = getattr(block, "type", None)
        if kind == "text" and isinstance(block.text, str):
            content.append(Text(block.text))
        elif kind == "tool_use":
            if not isinstance(block.input, dict) or not block.name:
                raise UnexpectedReply(f"tool_use block {block.id} has input that is not a JSON object or has no name: {block!r}")
            content.append(ToolCall(block.id, block.name, dict(block.input)))
        elif kind == "thinking" and set(block.to_dict()) == {"type", "thinking", "signature"}:
            content.append(Thinking(block.thinking, block.signature))
        elif kind == "redacted_thinking" and set(block.to_dict()) == {"type", "data"}:
            content.append(RedactedThinking(block.data))
        elif isinstance(kind, str) and hasattr(block, "to_dict"):
            content.append(OtherBlock(block.to_dict()))  # exactly the fields that came, to go back as they came
        else:
            raise UnexpectedReply(f"the reply holds a content block with no type: {str(block)[:200]!r}")
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
