"""The real small model (SmolLM2-135M through xllamacpp, in this process, on one thread) driving the real loop.

These check mechanics, never task success: a 135-million-parameter model rarely finishes a
task, and a test that waited for it to would fail for the model's sake, not the code's.
Skipped, with the reason, when the local extra or the model file is not installed.
"""

from __future__ import annotations

import pytest

from teachagent.agent import Agent, no_tools_after_a_result
from teachagent.answers import AnswerForm
from teachagent.base.schema import input_validator
from teachagent.course import local
from teachagent.messages import STOP_REASONS, Message
from teachagent.tools import tool

pytestmark = pytest.mark.local

try:
    local.check_installed()
except local.LocalModelMissing as missing:
    pytest.skip(str(missing), allow_module_level=True)


@tool
def add(a: float, b: float) -> str:
    """Add two numbers and return the sum."""
    return str(a + b)


@tool
def read_note(name: str) -> str:
    """Read the note with this name."""
    return {"plan": "Add 17 and 25, then answer with the sum."}.get(name, f"there is no note named {name!r}")


TOOLS = [add, read_note]
TASK = "Read the note named plan and do what it says."


@pytest.fixture(scope="module")
def server():
    started = local.start_server(threads=1)
    yield started
    started.stop()


def test_the_server_listens_on_this_machine_only_and_loads_quickly(server):
    assert server.base_url.startswith("http://127.0.0.1:") and server.threads == 1
    assert server.load_seconds < 20


def test_a_few_real_steps_parse_call_real_tools_with_valid_input_and_count_their_tokens(server):
    run = Agent(local.local_model(server), TOOLS, system="You are a careful assistant.", max_steps=3, max_tokens=96).run(TASK)
    assert 1 <= len(run.steps) <= 3 and run.outcome in ("answer", "max_steps", "max_tokens")
    assert run.model == local.LABEL
    validators = {t.name: input_validator(t.input_schema) for t in TOOLS}
    for step in run.steps:
        response = step.response
        assert response.stop_reason in STOP_REASONS
        assert (response.stop_reason == "tool_use") == bool(response.tool_calls)
        for call in response.tool_calls:  # the grammar allows only a known tool with input matching its schema
            assert call.name in validators and call.unparsed is None
            assert not list(validators[call.name].iter_errors(call.input))
        assert len(step.results) == len(response.tool_calls)
        assert not any("does not match the schema" in r.content or "no tool named" in r.content for r in step.results)
        usage = response.usage
        assert usage.total_input_tokens > 0 and 0 < usage.output_tokens <= 96
        assert usage.input_tokens + usage.cache_read_input_tokens == usage.total_input_tokens
    if len(run.steps) > 1:  # the second call read the first one's context again, so llama.cpp had it cached
        assert run.steps[1].response.usage.cache_read_input_tokens > 0


def test_a_token_budget_holds_with_the_real_model(server):
    agent = Agent(local.local_model(server), TOOLS, max_steps=5, max_tokens=64, max_input_tokens=700)
    run = agent.run(TASK)
    assert sum(step.context_tokens for step in run.steps) <= 700  # Z, as the loop counts it, within the budget
    assert run.outcome in ("max_input_tokens", "answer", "max_tokens") and len(run.steps) < 5


def test_local_mode_says_what_the_model_is(server, monkeypatch, capsys):
    from teachagent.course.modes import select_model

    monkeypatch.setattr(local, "_shared", [server])  # this module's server stands in for the process's own
    model = select_model(["unused"], mode="local")
    banner = capsys.readouterr().out
    assert model.name == local.LABEL and "a small local model: expect it to fail" in banner
    assert banner.startswith("[teachagent] local mode: ") and "no key, no network" in banner


NOTES = ["fern.md", "cactus.md"]


@tool(choices={"name": lambda: list(NOTES)})
def read_plant_note(name: str) -> str:
    """Read one plant's note."""
    return {"fern.md": "Water every: 3 days.", "cactus.md": "Water every: 21 days."}.get(name, "no such note")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_grammar_keeps_the_real_model_to_the_choice_the_enum_and_the_form(server, seed):
    """Under "any" it calls, with a name from the enum; under "none" it never calls, and its answer has the form."""
    model = local.local_model(server, seed=seed)
    form = AnswerForm(pattern="Every [0-9]{1,3} days\\.")  # unbounded digits, and it may write digits until cut off
    forced = model.complete("", [Message("user", "How often do I water my fern?")], [read_plant_note.spec], 64,
                            tool_choice="any", answer_form=form)
    assert [c.name for c in forced.tool_calls] == ["read_plant_note"] and not forced.text
    assert forced.tool_calls[0].input["name"] in NOTES
    answered = model.complete("", [Message("user", "How often do I water my fern?")], [read_plant_note.spec], 64,
                              tool_choice="none", answer_form=form)
    assert not answered.tool_calls and answered.stop_reason == "end_turn"
    assert form.problem(answered.text) is None


def test_the_same_seed_gives_the_same_run(server):
    runs = [Agent(local.local_model(server, seed=7), [read_plant_note], max_steps=3, tool_choice=no_tools_after_a_result,
                  answer_form=AnswerForm(pattern="Every [0-9]{1,3} days\\.")).run("How often do I water my cactus?")
            for _ in range(2)]
    written = [[(s.response.text, [(c.name, c.input) for c in s.response.tool_calls]) for s in run.steps] for run in runs]
    assert written[0] == written[1] and runs[0].outcome == runs[1].outcome
