"""Any server that speaks OpenAI's chat completions, as a `Model` (notebooks/01_bare_chat.ipynb).

Ollama (`http://localhost:11434/v1`), LM Studio, llama.cpp's `llama-server`, vLLM, OpenAI
itself and many hosted open-model services all answer the same HTTP API. This adapter
translates, over the official `openai` SDK, exactly as `Claude` does over anthropic's:

- our request: the system prompt as the first `system` message; a `ToolCall` as an
  entry of the assistant's `tool_calls`, its input a JSON string; a `ToolResult` as a
  `tool` message for its `tool_call_id` (an error result says so in its text); tool specs
  as `{"type": "function", "function": {name, description, parameters}}`;
- `tool_choice` "any" as "required", "none" as "none", a tool's name as a named function;
  an answer's form as `response_format` (a JSON schema, `{"answer": ...}` at its top);
- the reply: `finish_reason` `stop` → `end_turn`, `tool_calls` → `tool_use`, `length` →
  `max_tokens`, `content_filter` → `refusal`; every one of several parallel calls becomes
  a `ToolCall`; usage's `prompt_tokens_details.cached_tokens` are the cache reads, so
  input + cache reads = the prompt's tokens.

Arguments that are not a JSON object (small models write those often) do not end the run:
the `ToolCall` keeps them as written (`unparsed`) and the dispatcher answers with an error
the model can read.

A model with no tool calling of its own (SmolLM2, local mode's model) is held to the
tools' schemas by a grammar instead: `GrammarModel` in teachagent/course/local.py, a
subclass that overrides `request` and `written` (how blocks are read from the reply's text).

The transport guards are `Claude`'s (teachagent/base/http.py): a total deadline per call,
a bounded reply body, and a key (`OPENAI_API_KEY`; a local server needs none) that never
reaches an error, a notebook or a cassette; nor does a password or a key written into the
server's address, which is taken out of it (`Address`) and sent with each request only.

A reply is read as the API documents it, and anything else is an `UnexpectedReply`
rather than a value the loop or a saved run would choke on later: `model` and
`finish_reason` are text, usage counts whole numbers. Content given as a list of text
parts (some servers send that) is joined. Every tool call gets an id no other call of
this adapter has had: a server's own, or a new one if it sent none or repeated one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from .base.display import one_line
from .base.errors import A_DAY, PromptTooLong, SettingError, check_number
from .base.http import (
    DEFAULT_TIMEOUT,
    IDENTITY,
    STAND_IN_KEY,
    Address,
    Connection,
    Guarded,
    Secret,
    UnexpectedReply,
    as_sent,
    capped_http_client,
    reply_count,
    reply_text,
    sendable,
    sent_field,
)
from .messages import MAX_TOKENS, Block, Message, Response, StopReason, Text, ToolCall, ToolResult
from .models import Model
from .requests import ToolChoice, check_tool_choice, unwrapped_answer
from .usage import Usage

if TYPE_CHECKING:
    from .answers import AnswerForm

DEFAULT_SERVER = "https://api.openai.com/v1"  # the SDK's own default, named so the banner can say it

# finish_reason → our stop reason. "function_call" is the API's older name for a tool call.
FINISH_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}

# tool_choice in the chat API's words; a tool's name becomes {"type": "function", "function": {"name": ...}}
CHAT_TOOL_CHOICES = {"any": "required", "none": "none"}

# what servers say when the context alone is too long (OpenAI, vLLM, llama.cpp)
TOO_LONG = re.compile(r"context[_ ]length[_ ]exceeded|maximum context length|exceeds? the available context size", re.I)


class OpenAICompatible(Model):
    """A `Model` backed by any server that speaks OpenAI's chat completions.

    `model` is the server's name for it; `base_url` the server (its `/v1` address), or else
    `OPENAI_BASE_URL`, or else OpenAI. `api_key` (or `OPENAI_API_KEY`) is needed only by a
    server that asks for one. `timeout` bounds a whole call, retries included; `name` is
    what runs and banners call it (by default the model and the server, on one line, with
    any credential of the address left out). `seed`, if set, goes with every request, so a
    server that samples with it (llama.cpp, vLLM) writes the same reply to the same request;
    change `model.seed` between runs to sample each run afresh, yet repeatably.
    """

    model = server = "(not set yet)"  # what the repr of one that could not be made shows: safe to print half-built

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = 2,
        name: str | None = None,
        seed: int | None = None,
    ) -> None:
        key, api_key = Secret(api_key or ""), None  # no frame holds the key itself
        connection, base_url = Connection.read(
            key, "OPENAI_API_KEY", base_url, "OPENAI_BASE_URL", default_url=DEFAULT_SERVER, key_required=False,
            url_setting="base_url (TEACHAGENT_BASE_URL and --base-url in the course, else OPENAI_BASE_URL)"), None
        secret, address = connection.secret, cast(Address, connection.address)  # there is always one: DEFAULT_SERVER
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must name the server's model, e.g. 'llama3.2' for Ollama; got {one_line(repr(model))}")
        if address.authorization is not None and secret.reveal():
            raise SettingError("the server's address holds a user name and password, and OPENAI_API_KEY is set too: both "
                               "would go in the Authorization header. Keep one: unset OPENAI_API_KEY, or take user:password@ "
                               "out of the address")
        self.model = model
        self.server = address.url  # what every name shows: no credential of the address
        self.name = one_line(name if isinstance(name, str) and name.strip() else f"{model} at {self.server}", 200)
        self.timeout = float(check_number("timeout", timeout, above=0, at_most=A_DAY, unit="seconds"))
        check_number("max_retries", max_retries, whole=True, at_least=0, at_most=10)
        self.seed = seed if seed is None else check_number("seed", seed, whole=True, at_least=0, at_most=2**32 - 1)
        import openai

        build = lambda: openai.OpenAI(  # noqa: E731
            api_key=STAND_IN_KEY, base_url=address.base, max_retries=max_retries, timeout=self.timeout,
            default_headers=IDENTITY, http_client=capped_http_client(openai, address),
        )
        self._guarded = Guarded(build, secret if secret.reveal() else None, self.timeout, self.name, address)
        self._ids: set[str] = set()  # every tool call id this adapter has handed out: ids stay unique within a run

    def __repr__(self) -> str:
        return f"OpenAICompatible(model={self.model!r}, server={self.server!r})"

    def request(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> dict[str, Any]:
        """The keyword arguments of `chat.completions.create` for this call: exactly what is sent."""
        return chat_request(self.model, system, messages, tools, max_tokens, tool_choice, answer_form, self.seed)

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> Response:
        import openai

        params = sendable(self.request(system, messages, tools, max_tokens, tool_choice, answer_form))
        try:
            reply, sent = self._guarded.call(lambda client: as_sent(client.chat.completions.with_raw_response.create(**params)))
        except openai.BadRequestError as error:
            if not TOO_LONG.search(str(error)):
                raise
            body = error.body if isinstance(error.body, dict) else {}
            tokens, window = body.get("n_prompt_tokens"), body.get("n_ctx")  # llama.cpp says both
            raise PromptTooLong(tokens if isinstance(tokens, int) else None, window if isinstance(window, int) else None,
                                self.name) from error  # the same error a scripted model raises
        response = self.response(reply, sent.get("usage") if isinstance(sent, dict) else None)
        if answer_form is not None and response.stop_reason != "tool_use":  # the answer came as {"answer": ...}
            response.content = [Text(unwrapped_answer(b.text)) if isinstance(b, Text) else b for b in response.content]
        return response

    # How the reply's blocks are read from its message content; None: text, and calls from `tool_calls`.
    # A model that writes its calls as text (course/local.py's GrammarModel) gives its own reader.
    written: Callable[[Any, str, str | None], list[Block]] | None = None

    def response(self, reply: Any, usage: Any = None) -> Response:
        """Our `Response` from the SDK's reply (its counts from `usage`, as sent, when given), its tool call ids unique;
        a server that echoed a credential stores none."""
        response = to_response(reply, self.written, self.model, self._ids, usage)
        if not self._guarded.secrets:
            return response
        return Response.from_dict(self._guarded.scrub(response.to_dict()))


def tool_specs(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Our tool specs (name, description, input_schema) in the chat API's shape."""
    return [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                              "parameters": t["input_schema"]}} for t in tools]


def chat_request(
    model: str, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int,
    tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None, seed: int | None = None,
) -> dict[str, Any]:
    """One chat-completions request with native tool calls; `tool_choice` in this API's words, and the answer's
    form as a structured-output request (`response_format`), which many servers take (OpenAI, llama.cpp, vLLM)."""
    body: dict[str, Any] = {"model": model, "messages": chat_messages(system, messages), "max_tokens": max_tokens}
    if tools:
        body["tools"] = tool_specs(tools)
    if check_tool_choice(tool_choice, tools) != "auto" and tools:
        body["tool_choice"] = CHAT_TOOL_CHOICES.get(tool_choice) or {"type": "function", "function": {"name": tool_choice}}
    if answer_form is not None:
        body["response_format"] = {"type": "json_schema",
                                   "json_schema": {"name": "answer", "schema": answer_form.wire_schema, "strict": True}}
    if seed is not None:
        body["seed"] = seed
    return body


def chat_messages(system: str, messages: list[Message]) -> list[dict[str, Any]]:
    """The conversation as chat messages: the system prompt first, each tool result a `tool` message of its own."""
    sent: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        text = "".join(b.text for b in message.content if isinstance(b, Text))
        if message.role == "assistant":  # thinking blocks are Claude's; this API has no place for them
            sent.append(assistant_turn(text, [b for b in message.content if isinstance(b, ToolCall)]))
            continue
        results = [b for b in message.content if isinstance(b, ToolResult)]
        sent += [{"role": "tool", "tool_call_id": r.tool_use_id, "content": result_text(r)} for r in results]
        if text or not results:
            sent.append({"role": "user", "content": text})
    return sent


def assistant_turn(text: str, calls: list[ToolCall]) -> dict[str, Any]:
    """What the model wrote, as the chat API carries it: its text, and its calls each with its arguments as JSON text."""
    turn: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        turn["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments(c)}}
                              for c in calls]
    return turn


def arguments(call: ToolCall) -> str:
    """A call's input as the JSON string the API carries: as the model wrote it, if that was not JSON."""
    return call.unparsed if call.unparsed is not None else json.dumps(call.input, ensure_ascii=False)


def result_text(result: ToolResult) -> str:
    """A tool result as text: the API has no error flag, so an error says it is one."""
    return f"Error: {result.content}" if result.is_error else result.content


def to_response(reply: Any, written: Callable[[Any, str, str | None], list[Block]] | None = None, model: str = "",
                ids: set[str] | None = None, usage: Any = None) -> Response:
    """Our `Response` from the SDK's `ChatCompletion`. `written(content, reply_id, finish_reason)` reads the blocks
    from the message's content, for a model that writes its calls as text; `ids` holds the tool call ids handed
    out so far, to keep them unique; `usage`, the reply's usage as the server sent it, is read instead of the SDK's."""
    choices = getattr(reply, "choices", None)
    if not isinstance(choices, list) or not choices or getattr(choices[0], "message", None) is None:
        raise UnexpectedReply(f"the server answered with something that is not a chat completion: {str(reply)[:200]!r}")
    message, finish = choices[0].message, reply_text(choices[0].finish_reason, "finish_reason")
    if written is not None:
        content = written(message.content, reply.id or "call", finish or None)
    else:
        content = native_blocks(message)
    unique_ids(content, set() if ids is None else ids)
    if finish == "stop" and any(isinstance(b, ToolCall) for b in content):
        finish = "tool_calls"  # some servers (Ollama among them) end a turn of calls with "stop"
    if finish not in FINISH_REASONS:
        raise UnexpectedReply(f"the reply has finish_reason {finish!r}, not one of {', '.join(FINISH_REASONS)}")
    return Response(content, FINISH_REASONS[finish], chat_usage(usage if usage is not None else getattr(reply, "usage", None)),
                    reply_text(reply.model, "model") or model)


def native_blocks(message: Any) -> list[Block]:
    """The blocks of a reply with tool calling of its own: its text, then each of its `tool_calls`."""
    said = text_of(message.content)
    content: list[Block] = [Text(said)] if said else []
    for call in message.tool_calls or []:
        function = getattr(call, "function", None)
        if function is None or not isinstance(function.name, str) or not function.name:
            raise UnexpectedReply(f"the reply holds a tool call without a function name: {str(call)[:200]!r}")
        content.append(parsed_call(call.id if isinstance(call.id, str) else "", function.name, function.arguments))
    return content


def chat_usage(u: Any) -> Usage:
    """The reply's usage as ours, each count read as the server sent it: the prompt's cached tokens are cache
    reads, the rest uncached input."""
    prompt = reply_count(sent_field(u, "prompt_tokens"), "usage.prompt_tokens")
    details = sent_field(u, "prompt_tokens_details")
    cached = min(reply_count(sent_field(details, "cached_tokens"), "usage.prompt_tokens_details.cached_tokens"), prompt)
    written = reply_count(sent_field(u, "completion_tokens"), "usage.completion_tokens")
    return Usage(input_tokens=prompt - cached, output_tokens=written, cache_read_input_tokens=cached)


def text_of(content: Any) -> str:
    """A message's content as text: a str as it is, a list of text parts joined (some servers send those), None as ""."""
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        raise UnexpectedReply(f"the reply's content is a {type(content).__name__}, neither text nor a list of text parts")
    parts = []
    for part in content:
        kind, text = (part.get("type"), part.get("text")) if isinstance(part, dict) else (None, getattr(part, "text", None))
        if kind not in ("text", None) or not isinstance(text, str):
            raise UnexpectedReply(f"the reply's content holds a part that is not text: {str(part)[:200]!r}")
        parts.append(text)
    return "".join(parts)


def unique_ids(content: list[Block], ids: set[str]) -> None:
    """Give each tool call an id that none before it had: a call without one, or with a repeated one, gets a new one."""
    for block in content:
        if isinstance(block, ToolCall):
            if not block.id or block.id in ids:
                n = len(ids)
                while f"call_teachagent_{n}" in ids:
                    n += 1
                block.id = f"call_teachagent_{n}"
            ids.add(block.id)


def parsed_call(call_id: str, name: str, written: Any) -> ToolCall:
    """A `ToolCall` from the arguments string the model wrote; kept `unparsed` if it is not a JSON object."""
    if not isinstance(written, str):
        return ToolCall(call_id, name, {}, unparsed=repr(written))
    try:
        value = json.loads(written) if written.strip() else {}  # no arguments at all: a tool that takes none
    except (ValueError, RecursionError):
        value = None
    return ToolCall(call_id, name, value) if isinstance(value, dict) else ToolCall(call_id, name, {}, unparsed=written)
