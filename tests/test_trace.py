"""The Run record: exact JSON round trips and clear errors on anything else."""

from __future__ import annotations

import json

import pytest

from teachagent.agent import Agent
from teachagent.models import ScriptedModel, call
from teachagent.tools import tool
from teachagent.trace import Run, Step


@tool
def shout(text: str) -> str:
    """Return the text in capitals."""
    return text.upper()


def sample_run() -> Run:
    script = [call("shout", text="héllo <b>"), call("whisper", text="x"), "HÉLLO <B>"]
    return Agent(ScriptedModel(script), tools=[shout], system="Be loud.").run("Shout hello.")


def test_json_round_trip_is_exact():
    run = sample_run()
    again = Run.from_json(run.to_json())
    assert again == run
    assert again.to_json() == run.to_json()
    assert again.steps[1].results[0].is_error


def test_messages_rebuild_the_conversation():
    run = sample_run()
    assert [m.role for m in run.messages] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert run.messages[0].text == "Shout hello."


@pytest.mark.parametrize(
    "text, complaint",
    [
        ("{not json", "line 1: not valid JSON"),
        ("[1, 2]", "not of type 'object'"),
        (json.dumps({"format": "something/else"}), "field format: 'teachagent.run/1' was expected"),
        (json.dumps({"format": "teachagent.run/1", "task": "t"}), "'model' is a required property"),
    ],
)
def test_anything_but_a_saved_run_is_a_clear_error(text, complaint):
    with pytest.raises(ValueError, match=complaint):
        Run.from_json(text)


def test_a_corrupted_step_is_a_clear_error():
    data = json.loads(sample_run().to_json())
    data["steps"][0]["response"]["stop_reason"] = "bored"
    with pytest.raises(ValueError, match=r"not a saved Run: line \d+, field steps\[0\].response.stop_reason: 'bored' is not"):
        Run.from_json(json.dumps(data))


def test_reprs_are_short_and_informative():
    run = sample_run()
    assert repr(run) == f"Run(task='Shout hello.', model='scripted', steps=3, outcome='answer', Z={sum(run.context_sizes)})"
    assert repr(run.steps[1]).startswith("Step(k=2, c_k=") and "calls=[whisper], errors=1" in repr(run.steps[1])
    assert isinstance(run.steps[0], Step)


def test_a_scripted_run_says_so_in_its_repr_and_json():
    run = Agent(ScriptedModel(["hi"], name="tutor")).run("t")
    assert run.scripted and "tutor (scripted)" in repr(run)
    assert Run.from_json(run.to_json()).scripted


def test_z_is_the_sum_of_every_context():
    run = sample_run()
    assert run.Z == sum(s.context_tokens for s in run.steps) > 0
    assert Run("t", "m").Z == 0
