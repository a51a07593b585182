"""The record of a run: every step the agent took (introduced in notebooks/03_agent_loop.ipynb).

In the formal model a run is a sequence of contexts c_1, c_2, ... and model steps
v_1, v_2, ...; after each step that is not a final answer the handler's observation
N(v_k) is appended, so c_{k+1} = c_k + v_k + N(v_k). A `Step` keeps one k of that: how
many tokens the model read (c_k), what it wrote (v_k), what the tools returned (N(v_k)).
A `Run` keeps them all, plus how the run ended.

Everything that looks at a run afterwards (the step viewer, the cost analysis, the
evaluation, saving to JSON) reads a `Run` and nothing else; this module needs none of
them. (Replay does not: it answers requests from a cassette, course/replay.py.) A saved
run is checked against teachagent/base/schemas/run.schema.json before it is read back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .base.formats import as_saved, dumps, enum_from_table, read_document, read_text, save_document
from .messages import STOPS, Message, Response, ToolResult, block_from_dict

FORMAT = "teachagent.run/1"

# How a run ended (`Run.outcome`), each in words for the terminal demo and the step viewer: an
# answer, a budget of the agent, a failed call, or the stop reason that ended it without one
# (every "end" row of messages.STOPS).
OUTCOMES: dict[str, str] = {
    "running": "the loop is still going",
    "answer": "the model gave a final answer",
    "max_steps": "the step budget ran out before an answer",
    "max_context_tokens": "the next call could have read more than the agent's context limit, so it was not made",
    "max_input_tokens": "the next call could have taken the run past its token budget, so it was not made",
    "max_dollars": "the next call could have taken the run past its dollar budget, so it was not made",
    "error": "a model call failed",
    "off_form": "the final reply broke the answer's form, so it is no answer",
    "empty_answer": "the final reply said nothing (no letter or digit), so it is no answer",
    **{reason: words for reason, (move, words) in STOPS.items() if move == "end"},
    "tool_use": "the model stopped to call a tool but wrote no call",
}
Outcome = str  # one of OUTCOMES
enum_from_table(f"{__name__}.OUTCOMES", OUTCOMES)  # the outcomes a saved run may hold (base/formats.py)


def says_something(text: str | None) -> bool:
    """Whether a reply's text says anything: a letter or a digit, not only punctuation or spaces (`); ` says nothing)."""
    return isinstance(text, str) and any(ch.isalnum() for ch in text)


@dataclass
class Step:
    """Step k of a run: the model read `context_tokens` (c_k), wrote `response` (v_k),
    and the tools answered with `results` (N(v_k); empty after a final answer)."""

    index: int
    context_tokens: int
    response: Response
    results: list[ToolResult] = field(default_factory=list)
    seconds: float = 0.0

    def __repr__(self) -> str:
        calls = ", ".join(c.name for c in self.response.tool_calls)
        return (
            f"Step(k={self.index}, c_k={self.context_tokens}, stop_reason={self.response.stop_reason!r}, "
            f"calls=[{calls}], errors={sum(r.is_error for r in self.results)})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "context_tokens": self.context_tokens,
            "response": self.response.to_dict(),
            "results": [r.to_dict() for r in self.results],
            "seconds": self.seconds,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Step:
        return cls(
            d["index"],
            d["context_tokens"],
            Response.from_dict(d["response"]),
            [_tool_result(r) for r in d["results"]],
            d["seconds"],
        )


def _tool_result(d: dict[str, Any]) -> ToolResult:
    """One saved result of a step, read back; a block of any other kind is a ValueError."""
    block = block_from_dict(d)
    if not isinstance(block, ToolResult):
        raise ValueError(f"a step's results must be tool_result blocks, got {d['type']!r}")
    return block


@dataclass
class Run:
    """One run of an agent on one task, from c_1 to the stop.

    `outcome` says how it ended; `OUTCOMES` lists every outcome in words.
    """

    task: str
    model: str
    system: str = ""
    tools: list[dict[str, Any]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    answer: str | None = None
    outcome: Outcome = "running"
    scripted: bool = False  # True when a ScriptedModel played the model, so no view can pass it off as Claude
    notes: list[str] = field(default_factory=list)  # what the loop noticed on the way, e.g. a block type it does not know

    def __post_init__(self) -> None:
        # the task, the system prompt and the tools as a saved run gives them back (base/formats.py, `as_saved`)
        self.task, self.system, self.tools = as_saved(self.task), as_saved(self.system), as_saved(self.tools)

    def __repr__(self) -> str:
        task = self.task if len(self.task) <= 40 else self.task[:37] + "..."
        model = f"{self.model} (scripted)" if self.scripted and "scripted" not in self.model else self.model
        return (
            f"Run(task={task!r}, model={model!r}, steps={len(self.steps)}, "
            f"outcome={self.outcome!r}, Z={self.Z})"
        )

    @property
    def answered(self) -> bool:
        """Whether the run ended with a final answer: the one question every lesson, view and check asks of a run.
        (A final reply that says nothing, or breaks the answer's form, ends the run with no answer.)"""
        return self.outcome == "answer"

    def add(self, step: Step) -> None:
        """Add `step`, with a note for each block of a kind teachagent does not know (kept as it came)."""
        self.steps.append(step)
        for block in step.response.unknown_blocks:
            self.notes.append(f"step {step.index}: the model wrote a {block.type!r} block, which teachagent does not "
                              "know; it was kept in the history and sent back unchanged")

    def ended(self, outcome: Outcome, said: str | None = None) -> Run:
        """This run, ended with `outcome`: with `said` as its answer when the outcome is "answer", else with `said`,
        if given, noted as why the last step ended it (a final reply that breaks the answer's form, say)."""
        self.outcome = outcome
        if outcome == "answer":
            self.answer = said
        elif said is not None:
            self.notes.append(f"step {len(self.steps)}: the final reply is no answer: {said}")
        return self

    @property
    def Z(self) -> int:
        """Z = c_1 + ... + c_K: every input token the model read over the run (our count)."""
        return sum(self.context_sizes)

    @property
    def context_sizes(self) -> list[int]:
        """c_1, ..., c_K: the tokens each call read (our count), in order."""
        return [step.context_tokens for step in self.steps]

    @property
    def messages(self) -> list[Message]:
        """The conversation as the model last saw it, plus its last reply and results (with every tool result whole,
        as it came back, even where a compaction showed the model a note instead)."""
        history = [Message("user", self.task)]
        for step in self.steps:
            history.append(step.response.to_message())
            if step.results:
                history.append(Message("user", list(step.results)))
        return history

    def to_dict(self) -> dict[str, Any]:
        """The whole run as plain data: enough to rebuild it exactly with `Run.from_dict`."""
        return {
            "format": FORMAT,
            "task": self.task,
            "model": self.model,
            "system": self.system,
            "tools": self.tools,
            "steps": [s.to_dict() for s in self.steps],
            "answer": self.answer,
            "outcome": self.outcome,
            "scripted": self.scripted,
            "notes": self.notes,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Run:
        """The run `to_dict` wrote (already checked against the run's schema)."""
        return cls(data["task"], data["model"], data["system"], data["tools"], [Step.from_dict(s) for s in data["steps"]],
                   data["answer"], data["outcome"], data.get("scripted", False), data.get("notes", []))

    # Saving and reading back are the formats' work (base/formats.py): strict JSON, checked against
    # base/schemas/run.schema.json both ways, written whole or not at all.

    def to_json(self, indent: int | None = 1) -> str:
        """The run as JSON, read back before it is returned: what could not be (NaN, an id that is not a string)
        is a `FormatError` naming the field, not a file that `Run.load` would later refuse."""
        return dumps(self.to_dict(), "run", "this run", indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> Run:
        """Rebuild a run saved with `to_json`; anything else is a clear `FormatError` (a `ValueError`)."""
        return cls.from_dict(read_document(text, "run", "a saved Run", "Run.load(path)"))

    def save(self, path: str | Path) -> Path:
        """Write the run to `path` whole, or not at all; returns the file written. A symlink is written through;
        a folder, a file that is not a saved run, or a run a saved one cannot hold is refused, and nothing is touched."""
        return save_document(path, self.to_json(), "a saved run", Run.load)

    @classmethod
    def load(cls, path: str | Path) -> Run:
        """Read a run saved with `save`; a missing, damaged or foreign file is a clear `FormatError`."""
        return cls.from_json(read_text(path, "a saved run"))
