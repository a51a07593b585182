"""Any server that speaks OpenAI's chat completions, as a `Model` (notebooks/01_bare_chat.ipynb).

Ollama (`http://localhost:11434/v1`), LM Studio, llama.cpp's `llama-server`, vLLM, OpenAI
itself and many hosted open-model services all answer the same HTTP API. This adapter
translates, over the official `openai` SDK, exactly as `Claude` does over anthropic's:

- our request: the system prompt as the first `system` message; a `ToolCall` as an
  entry of the assistant's `tool_calls`, its input a JSON string; a `ToolResult` as a
  `tool` message for its `tool_call_id` (an error result says so in its text); tool specs
  as `{"type": "function", "function": {name, description, parameters}}`;
- the reply: `finish_reason` `stop` → `end_turn`, `tool_calls` → `tool_use`, `length` →
  `max_tokens`, `content_filter` → `refusal`; every one of several parallel calls becomes
  a `ToolCall`; usage's `prompt_tokens_details.cached_tokens` are the cache reads, so
  input + cache reads = the prompt's tokens.

Arguments that are not a JSON object (small models write those often) do not end the run:
the `ToolCall` keeps them as written (`unparsed`) and the dispatcher answers with an error
the model can read.

A model with no tool calling of its own (SmolLM2, local mode's model) is held to the
tools' schemas by a grammar instead: `GrammarModel` in teachagent/course/local.py, a
subclass that overrides `request` and `response`.

The transport guards are `Claude`'s (teachagent/base/http.py): a total deadline per call,
a bounded reply body, and a key (`OPENAI_API_KEY`; a local server needs none) that never
reaches an error, a notebook or a cassette.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from .base.errors import A_DAY, check_number
from .base.http import DEFAULT_TIMEOUT, IDENTITY, STAND_IN_KEY, Guarded, Secret, UnexpectedReply, capped_http_client, checked_key
from .messages import MAX_TOKENS, Block, Message, Response, StopReason, Text, ToolCall, ToolResult, Usage
from .models import PromptTooLong

DEFAULT_SERVER = "https://api.openai.com/v1"  # the SDK's own default, named so the banner can say it

# finish_reason → our stop reason. "function_call" is the API's older name for a tool call.
FINISH_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}

# what servers say when the context alone is too long (OpenAI, vLLM, llama.cpp)
TOO_LONG = re.compile(r"context[_ ]length[_ ]exceeded|maximum context length|exceeds? the available context size", re.I)


class OpenAICompatible:
    """A `Model` backed by any server that speaks OpenAI's chat completions.

    `model` is the server's name for it; `base_url` the server (its `/v1` address), or else
    `OPENAI_BASE_URL`, or else OpenAI. `api_key` (or `OPENAI_API_KEY`) is needed only by a
    server that asks for one. `timeout` bounds a whole call, retries included; `name` is
    what runs and banners call it (by default the model and the server).
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = 2,
        name: str | None = None,
    ) -> None:
        secret, api_key = Secret(api_key or os.environ.get("OPENAI_API_KEY") or ""), None  # no frame holds the key itself
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must name the server's model, e.g. 'llama3.2' for Ollama; got {model!r}")
        self.model = model
        self.server = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_SERVER
        self.name = name or f"{model} at {shown_server(self.server)}"
        self.timeout = float(check_number("timeout", timeout, above=0, at_most=A_DAY, unit="seconds"))
        check_number("max_retries", max_retries, whole=True, at_least=0, at_most=10)
        if secret.reveal():
            checked_key(secret, "OPENAI_API_KEY")
        import openai

        build = lambda: openai.OpenAI(  # noqa: E731
            api_key=STAND_IN_KEY, base_url=self.server, max_retries=max_retries, timeout=self.timeout,
            default_headers=IDENTITY, http_client=capped_http_client(openai),
        )
        self._guarded = Guarded(build, secret if secret.reveal() else None, self.timeout, self.name)

    def __repr__(self) -> str:
        return f"OpenAICompatible(model={self.model!r}, server={shown_server(self.server)!r})"

    def request(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int
    ) -> dict[str, Any]:
        """The keyword arguments of `chat.completions.create` for this call: exactly what is sent."""
        return chat_request(self.model, system, messages, tools, max_tokens)

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS
    ) -> Response:
        import openai

        params = self.request(system, messages, tools, max_tokens)
        try:
            reply = self._guarded.call(lambda client: client.chat.completions.create(**params))
        except openai.BadRequestError as error:
            if not TOO_LONG.search(str(error)):
                raise
            body = error.body if isinstance(error.body, dict) else {}
            tokens, window = body.get("n_prompt_tokens"), body.get("n_ctx")  # llama.cpp says both
            raise PromptTooLong(tokens if isinstance(tokens, int) else None, window if isinstance(window, int) else None,
                                self.name) from error  # the same error a scripted model raises
        return self.response(reply)

    def response(self, reply: Any) -> Response:
        """Our `Response` from the SDK's reply."""
        return to_response(reply, model=self.model)


def shown_server(url: str) -> str:
    """The server's address without any user name or password it may carry."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", scheme
    where, slash, path = rest.partition("/")
    return f"{scheme}{sep}{where.rpartition('@')[2]}{slash}{path}"


def tool_specs(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Our tool specs (name, description, input_schema) in the chat API's shape."""
    return [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                              "parameters": t["input_schema"]}} for t in tools]


def chat_request(
    model: str, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int
) -> dict[str, Any]:
    """One chat-completions request with native tool calls."""
    sent: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        text = "".join(b.text for b in message.content if isinstance(b, Text))
        if message.role == "assistant":  # thinking blocks are Claude's; this API has no place for them
            calls = [b for b in message.content if isinstance(b, ToolCall)]
            turn: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                turn["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments(c)}}
                                      for c in calls]
            sent.append(turn)
            continue
        sent += [{"role": "tool", "tool_call_id": r.tool_use_id, "content": result_text(r)}
                 for r in message.content if isinstance(r, ToolResult)]
        if text or not any(isinstance(b, ToolResult) for b in message.content):
            sent.append({"role": "user", "content": text})
    body: dict[str, Any] = {"model": model, "messages": sent, "max_tokens": max_tokens}
    if tools:
        body["tools"] = tool_specs(tools)
    return body


def arguments(call: ToolCall) -> str:
    """A call's input as the JSON string the API carries: as the model wrote it, if that was not JSON."""
    return call.unparsed if call.unparsed is not None else json.dumps(call.input, ensure_ascii=False)


def result_text(result: ToolResult) -> str:
    """A tool result as text: the API has no error flag, so an error says it is one."""
    return f"Error: {result.content}" if result.is_error else result.content


def to_response(reply: Any, written: Callable[[Any, str, Any], list[Block]] | None = None, model: str = "") -> Response:
    """Our `Response` from the SDK's `ChatCompletion`; `written(content, reply_id, finish_reason)` reads the
    blocks from the message's content, for a model that writes its calls as text."""
    choices = getattr(reply, "choices", None)
    if not isinstance(choices, list) or not choices or getattr(choices[0], "message", None) is None:
        raise UnexpectedReply(f"the server answered with something that is not a chat completion: {str(reply)[:200]!r}")
    choice = choices[0]
    message, finish = choice.message, choice.finish_reason
    content: list[Block]
    if written is not None:
        content = written(message.content, reply.id or "call", finish)
    else:
        content = [Text(message.content)] if isinstance(message.content, str) and message.content else []
        for n, call in enumerate(message.tool_calls or []):
            function = getattr(call, "function", None)
            if function is None or not isinstance(function.name, str) or not function.name:
                raise UnexpectedReply(f"the reply holds a tool call without a function name: {str(call)[:200]!r}")
            content.append(parsed_call(call.id or f"call_{n}", function.name, function.arguments))
    calls = any(isinstance(b, ToolCall) for b in content)
    if finish == "stop" and calls:
        finish = "tool_calls"  # some servers (Ollama among them) end a turn of calls with "stop"
    if finish not in FINISH_REASONS:
        raise UnexpectedReply(f"the reply has finish_reason {finish!r}, not one of {', '.join(FINISH_REASONS)}")
    u = getattr(reply, "usage", None)
    prompt = (getattr(u, "prompt_tokens", None) or 0) if u is not None else 0
    details = getattr(u, "prompt_tokens_details", None)
    cached = min(getattr(details, "cached_tokens", None) or 0, prompt)
    usage = Usage(input_tokens=prompt - cached, output_tokens=(getattr(u, "completion_tokens", None) or 0) if u else 0,
                  cache_read_input_tokens=cached)
    return Response(content, FINISH_REASONS[finish], usage, reply.model or model)


def parsed_call(call_id: str, name: str, written: Any) -> ToolCall:
    """A `ToolCall` from the arguments string the model wrote; kept `unparsed` if it is not a JSON object."""
    if not isinstance(written, str):
        return ToolCall(call_id, name, {}, unparsed=repr(written))
    try:
        value = json.loads(written) if written.strip() else {}  # no arguments at all: a tool that takes none
    except (ValueError, RecursionError):
        value = None
    return ToolCall(call_id, name, value) if isinstance(value, dict) else ToolCall(call_id, name, {}, unparsed=written)
