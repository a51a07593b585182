"""Two poor models behind a fake OpenAI-compatible server, and what a lesson shows under them.

A lesson must stay true under any model, however bad. These two are as bad as a model
gets without breaking the API, the worst a learner's small model does, made certain:

- `answers_at_once` never calls a tool: to every request it replies `); ` at once, a
  final reply that says nothing (the small local model did exactly this in lesson 5).
- `calls_for_ever` never answers: it calls the first tool it is offered, with input
  that fits the tool's schema, every time; offered no tool, it is cut off at max_tokens.

`problems(notebook, responder)` runs a copy of a lesson under one of them (live mode,
the real openai SDK, a fake server on 127.0.0.1) and lists what a learner would see that
must not be: a cell that failed, a figure that cannot be (nan, inf, "0 times", a
division by zero), or a lesson that ran the learner's model and never showed the
scripted reference beside it. tests/test_poor_models.py asserts the list is empty.

From a shell, for one lesson while writing it:
    python tests/poor_models.py notebooks/05_research_kl.ipynb
"""

from __future__ import annotations

import itertools
import json
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))  # run as a script: its neighbours import as in pytest

from fake_openai import FakeOpenAI, completion_body, function_call
from live_notebooks import cell_outputs, uses_a_model

Reply = tuple[int, dict[str, Any], dict[str, str]]

# What no lesson may print, whatever the model did (each a figure computed from a run that did not happen).
IMPOSSIBLE = {
    "nan": re.compile(r"\bnan\b", re.IGNORECASE),
    "inf": re.compile(r"(?<![\w.])-?inf\b", re.IGNORECASE),
    "0 times": re.compile(r"(?<![\d.,])0(?:\.0+)? times\b"),
    "a division by zero": re.compile(r"ZeroDivisionError|division by zero"),
}
REFERENCE = "scripted reference"
CELL_SECONDS = 120


def usage(body: dict[str, Any], written: str, cut_off: bool = False) -> dict[str, int]:
    """Token usage as a real server reports it: the request it read, and the reply it wrote.

    Poor at choosing, not at counting: the prompt is counted from the request's messages and
    tools, so what a call reads grows with the conversation as it does on any real server;
    a reply cut off at max_tokens wrote exactly max_tokens.
    """
    from teachagent.tokens import count_tokens

    prompt = count_tokens(json.dumps([body.get("messages", []), body.get("tools", [])], ensure_ascii=False))
    cap = body.get("max_completion_tokens") or body.get("max_tokens") or 4096
    completion = cap if cut_off else min(cap, max(1, count_tokens(written)))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def answers_at_once(body: dict[str, Any]) -> Reply:
    """A final reply at once, with nothing in it: no tool call, no answer."""
    return 200, completion_body(");", model=body.get("model", "poor"), usage=usage(body, ");")), {}


_ids = itertools.count(1)


def fitting_input(schema: dict[str, Any]) -> dict[str, Any]:
    """An input that a tool's JSON schema accepts: each required property given a value of its type."""
    values = {"string": "index.md", "integer": 1, "number": 1.0, "boolean": True, "array": [], "object": {}}
    properties = schema.get("properties", {})
    made = {}
    for name in schema.get("required", []):
        kind = properties.get(name, {}).get("type", "string")
        enum = properties.get(name, {}).get("enum")
        made[name] = enum[0] if enum else values.get(kind if isinstance(kind, str) else kind[0], "x")
    return made


def calls_for_ever(body: dict[str, Any]) -> Reply:
    """The first tool offered, called again and again; with no tool offered, a reply cut off at max_tokens."""
    model = body.get("model", "poor")
    tools = body.get("tools") or []
    if not tools:
        return 200, completion_body("Let me first", finish_reason="length", model=model,
                                    usage=usage(body, "Let me first", cut_off=True)), {}
    first = tools[0]["function"]
    call = function_call(f"call_poor_{next(_ids)}", first["name"], fitting_input(first.get("parameters", {})))
    written = call["function"]["name"] + call["function"]["arguments"]
    return 200, completion_body(None, [call], "tool_calls", model=model, usage=usage(body, written)), {}


POOR: dict[str, Callable[[dict[str, Any]], Reply]] = {
    "answers-at-once": answers_at_once,
    "calls-for-ever": calls_for_ever,
}


def problems(notebook: Path, responder: Callable[[dict[str, Any]], Reply], name: str = "poor") -> list[str]:
    """What a learner would see in `notebook` under this poor model that must not be: one line each."""
    import os
    import shutil

    import nbformat
    from nbclient import NotebookClient

    found = []
    with FakeOpenAI(responder) as fake, tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / notebook.name
        shutil.copy(notebook, copy)
        nb = nbformat.read(copy, as_version=4)
        settings = {"TEACHAGENT_MODE": "live", "TEACHAGENT_BASE_URL": fake.base_url, "TEACHAGENT_MODEL": name}
        saved = {key: os.environ.get(key) for key in (*settings, "OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
        os.environ.update(settings)
        for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            os.environ.pop(key, None)
        try:
            NotebookClient(nb, timeout=CELL_SECONDS, kernel_name="python3", allow_errors=True,
                           resources={"metadata": {"path": folder}}).execute()
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    shown = []
    for index, error, text in cell_outputs(nb):
        if error:
            found.append(f"cell {index}: {error}")
        shown.append(text)
        for what, pattern in IMPOSSIBLE.items():
            if pattern.search(text):
                line = next(ln for ln in text.splitlines() if pattern.search(ln))
                found.append(f"cell {index}: shows {what}: {line.strip()[:200]}")
    if uses_a_model(nb) and not any(REFERENCE in text for text in shown):
        found.append(f"the lesson ran your model but never showed the {REFERENCE} beside it")
    return found


def main(paths: list[str]) -> int:
    if not paths:
        print(__doc__)
        return 2
    bad = 0
    for path in paths:
        for name, responder in POOR.items():
            listed = problems(Path(path), responder, name)
            bad += len(listed)
            print(f"{Path(path).name} under {name}: {len(listed) or 'no'} problem{'' if len(listed) == 1 else 's'}")
            for line in listed:
                print(f"  {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
