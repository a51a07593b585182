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

`json_tools=True` is for a server whose model has no tool calling of its own (llama.cpp
serving SmolLM2, whose chat template knows no tools: `TEACHAGENT_MODE=local`). The tools
are then listed in the system prompt, and a JSON schema, which llama.cpp turns into a
grammar, lets the model write one thing only: a call of one of the tools with input that
matches its schema, or an answer. The conversation goes back to it as the text it wrote.

The transport guards are `Claude`'s (teachagent/base/http.py): a total deadline per call,
a bounded reply body, and a key (`OPENAI_API_KEY`; a local server needs none) that never
reaches an error, a notebook or a cassette.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
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
        json_tools: bool = False,
        name: str | None = None,
    ) -> None:
        secret, api_key = Secret(api_key or os.environ.get("OPENAI_API_KEY") or ""), None  # no frame holds the key itself
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must name the server's model, e.g. 'llama3.2' for Ollama; got {model!r}")
        self.model = model
        self.server = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_SERVER
        self.name = name or f"{model} at {shown_server(self.server)}"
        self.json_tools = json_tools
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
        if self.json_tools:
            return json_tools_request(self.model, system, messages, tools, max_tokens)
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
        return to_response(reply, self.json_tools, self.model)


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


def json_tools_request(
    model: str, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int
) -> dict[str, Any]:
    """One request for a model without tool calling: tools in the prompt, the reply held to a JSON schema."""
    if tools:
        listing = "\n".join(f"- {t['name']}: {t.get('description', '')} Input schema: {json.dumps(t['input_schema'])}"
                            for t in tools)
        system = (f"{system}\n\n" if system else "") + (
            'Reply with one JSON object. To call a tool: {"tool": "<its name>", "arguments": {<its input>}}. '
            'To give your final answer: {"answer": "<the answer>"}.\nThe tools:\n' + listing)
    names = {b.id: b.name for m in messages for b in m.content if isinstance(b, ToolCall)}
    sent: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        if message.role == "assistant":  # what the model wrote, as it wrote it: one JSON object per block
            written = [json.dumps({"answer": b.text}, ensure_ascii=False) if isinstance(b, Text) else
                       (b.unparsed or "") if b.unparsed is not None else
                       json.dumps({"tool": b.name, "arguments": b.input}, ensure_ascii=False)
                       for b in message.content if isinstance(b, (Text, ToolCall))]
            sent.append({"role": "assistant", "content": "\n".join(written)})
            continue
        parts = [f"{'Error from' if b.is_error else 'Result of'} {names.get(b.tool_use_id, 'the tool')}: {b.content}"
                 if isinstance(b, ToolResult) else b.text for b in message.content if isinstance(b, (Text, ToolResult))]
        sent.append({"role": "user", "content": "\n\n".join(parts)})
    choices: list[dict[str, Any]] = [
        {"type": "object", "properties": {"tool": {"const": t["name"]}, "arguments": t["input_schema"]},
         "required": ["tool", "arguments"], "additionalProperties": False} for t in tools]
    choices.append({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
                    "additionalProperties": False})
    schema = {"json_schema": {"name": "step", "schema": {"anyOf": choices}}, "type": "json_schema"}
    return {"model": model, "messages": sent, "max_tokens": max_tokens, "response_format": schema}


def to_response(reply: Any, json_tools: bool = False, model: str = "") -> Response:
    """Our `Response` from the SDK's `ChatCompletion`."""
    choices = getattr(reply, "choices", None)
    if not isinstance(choices, list) or not choices or getattr(choices[0], "message", None) is None:
        raise UnexpectedReply(f"the server answered with something that is not a chat completion: {str(reply)[:200]!r}")
    choice = choices[0]
    message, finish = choice.message, choice.finish_reason
    content: list[Block]
    if json_tools:
        content = json_step(message.content or "", reply.id or "call", finish)
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


def json_step(written: str, reply_id: str, finish: str | None) -> list[Block]:
    """What a model held to the step schema wrote: one call, or an answer (or, cut short, its raw text)."""
    try:
        step = json.loads(written)
    except (ValueError, RecursionError):
        step = None
    if isinstance(step, dict) and isinstance(step.get("tool"), str) and step["tool"]:
        given = step.get("arguments")
        if isinstance(given, dict):
            return [ToolCall(f"{reply_id}-0", step["tool"], given)]
        return [ToolCall(f"{reply_id}-0", step["tool"], {}, unparsed=json.dumps(given))]
    if isinstance(step, dict) and isinstance(step.get("answer"), str):
        return [Text(step["answer"])]
    return [Text(written)] if written else []  # cut by max_tokens mid-object, most often
