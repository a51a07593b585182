"""A request as it goes to a model, and what it asks of the reply (notebooks/01_bare_chat.ipynb, 02_tools.ipynb).

`request_body` writes one call as plain JSON in the Messages API's shape: the model's name,
the reply's length, the system prompt, the conversation and the tools. Claude's adapter sends
exactly this, and a cassette records it whoever answered, so a recording has one shape.

Two settings ask more of the reply. `tool_choice` says what the model may do with the tools:
"auto" (it decides), "any" (it must call one), "none" (it must not call any), or a tool's name
(it must call that one); each API spells it its own way, and every model keeps to it. An answer
form (answers.py) holds the final answer to a pattern or a schema; the APIs want an object at
the top, so the form travels as `{"answer": <the value>}`, and the reply is read back with
`unwrapped_answer`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .base.display import shorten
from .base.errors import SettingError
from .messages import Message, ToolCall

if TYPE_CHECKING:
    from .answers import AnswerForm

TOOL_CHOICES = ("auto", "any", "none")
ToolChoice = str  # one of TOOL_CHOICES or the name of a tool the request offers


def check_tool_choice(choice: object, tools: Sequence[dict[str, Any]]) -> ToolChoice:
    """`choice` if a request offering `tools` can carry it; else one `SettingError` saying what it can be."""
    if isinstance(choice, str) and choice in ("auto", "none"):
        return choice
    names = [t["name"] for t in tools]
    if isinstance(choice, str) and ((choice == "any" and names) or choice in names):
        return choice
    if choice == "any":
        raise SettingError("tool_choice 'any' makes the model call a tool, but this request offers none")
    offered = f"or a tool's name ({', '.join(map(repr, names))})" if names else "(this request offers no tools to name)"
    raise SettingError(f"tool_choice must be 'auto', 'any', 'none' {offered}; got {shorten(repr(choice), 60)}")


def tool_choice_problem(choice: ToolChoice, calls: Sequence[ToolCall]) -> str | None:
    """Why a reply with `calls` breaks `choice`, in words; None if it keeps it (every API holds its model to it)."""
    if choice == "none" and calls:
        return f"it calls {calls[0].name}, but tool_choice 'none' allows no tool call"
    if choice == "any" and not calls:
        return "it calls no tool, but tool_choice 'any' requires a call"
    if choice not in TOOL_CHOICES and (not calls or any(c.name != choice for c in calls)):
        return f"tool_choice {choice!r} requires a call to {choice} and nothing else"
    return None


def tool_choice_field(choice: ToolChoice) -> dict[str, str]:
    """`choice` as the Messages API writes it: {"type": "any"}, or {"type": "tool", "name": ...} for a tool."""
    return {"type": choice} if choice in TOOL_CHOICES else {"type": "tool", "name": choice}


def request_body(
    model: str, system: str, messages: list[Message], tools: Sequence[dict[str, Any]], max_tokens: int,
    tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
) -> dict[str, Any]:
    """One request as plain JSON data, in the Messages API's shape these types mirror.

    Claude's adapter sends exactly this; a cassette records it for every model (Claude, an
    OpenAI-compatible server, the local model), so a recording has one shape whoever answered.
    The defaults are left out (tool_choice "auto", no answer form), as the API assumes them.
    """
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": [m.to_dict() for m in messages]}
    if system:
        body["system"] = system
    if tools:
        body["tools"] = list(tools)
    if check_tool_choice(tool_choice, tools) != "auto" and tools:
        body["tool_choice"] = tool_choice_field(tool_choice)
    if answer_form is not None:
        body["output_config"] = {"format": {"type": "json_schema", "schema": answer_form.wire_schema}}
    return body


def answer_text(value: Any) -> str:
    """An answer's text: a string as it is, any other value (held to a form, answers.py) as its JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def unwrapped_answer(written: str) -> str:
    """The answer inside a reply written to an answer form's `wire_schema` (`{"answer": ...}`); else `written` as it is."""
    try:
        value = json.loads(written)
    except (ValueError, RecursionError):
        return written
    return answer_text(value["answer"]) if isinstance(value, dict) and list(value) == ["answer"] else written
