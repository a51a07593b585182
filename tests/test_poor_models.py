"""Every lesson under two poor models: no cell fails, no impossible figure, the scripted reference shown.

The models are in tests/poor_models.py: one answers at once and never calls a tool, one
calls a tool for ever and never answers, both behind a fake OpenAI-compatible server on
127.0.0.1 reached through the real openai SDK. These run in a step of their own
(`pytest -m models`, as .ci/run does): sixteen lesson runs would double the suite's time.
"""

from __future__ import annotations

import pytest
from live_notebooks import NOTEBOOKS
from poor_models import POOR, answers_at_once, calls_for_ever, fitting_input, problems

LESSONS = [path for path in NOTEBOOKS if path.name[:2] != "00"]  # the notation page runs no model


@pytest.mark.models
@pytest.mark.server  # starts a local fake API server
@pytest.mark.notebook  # starts a Jupyter kernel
@pytest.mark.parametrize("poor", list(POOR))
@pytest.mark.parametrize("notebook", LESSONS, ids=[p.name for p in LESSONS])
def test_a_lesson_stays_true_under_a_poor_model(notebook, poor):
    assert problems(notebook, POOR[poor], poor) == []


def test_the_poor_models_are_as_poor_as_they_say():
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"}, "lines": {"type": "integer"}},
        "required": ["path", "lines"]}}}]
    _, body, _ = answers_at_once({"model": "m", "tools": tools})
    assert body["choices"][0]["message"] == {"role": "assistant", "content": ");"}
    _, first, _ = calls_for_ever({"model": "m", "tools": tools})
    _, second, _ = calls_for_ever({"model": "m", "tools": tools})
    calls = [b["choices"][0]["message"]["tool_calls"][0] for b in (first, second)]
    assert [c["function"]["name"] for c in calls] == ["read_file", "read_file"] and calls[0]["id"] != calls[1]["id"]
    assert first["choices"][0]["finish_reason"] == "tool_calls"
    _, untooled, _ = calls_for_ever({"model": "m", "messages": []})
    assert untooled["choices"][0]["finish_reason"] == "length"


def test_a_fitting_input_passes_the_tools_schema():
    import jsonschema

    schema = {"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer"},
                                               "x": {"type": "number"}, "mode": {"type": "string", "enum": ["a", "b"]}},
              "required": ["path", "n", "x", "mode"], "additionalProperties": False}
    jsonschema.validate(fitting_input(schema), schema)
