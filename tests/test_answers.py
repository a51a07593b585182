"""An answer held to a form (answers.py), a parameter's choices listed at run time, and a seed per request.

The agent checks every final reply against its form and a reply that breaks it is no answer
(outcome "off_form"); each adapter sends the form its API's way (Claude's `output_config`,
chat completions' `response_format`, the local grammar's answer schema) and unwraps the reply.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_anthropic import FakeAnthropic, message_body, text_block, thinking_block
from fake_openai import completion_body

from teachagent.agent import Agent, AgentError, no_tools_after_a_result
from teachagent.answers import AnswerForm
from teachagent.base.errors import SettingError
from teachagent.claude import Claude
from teachagent.course.local import GrammarModel, grammar_step, json_tools_request
from teachagent.course.replay import Player, Recorder
from teachagent.dispatch import Dispatcher
from teachagent.messages import Message, ToolCall
from teachagent.openai_compatible import OpenAICompatible
from teachagent.requests import request_body, unwrapped_answer
from teachagent.scripted import ScriptedModel, call
from teachagent.tools import read_file_tool, tool
from teachagent.trace import Run

EVERY = AnswerForm(pattern=r"Every [0-9]+ days\.")
DAYS = AnswerForm(schema={"type": "integer", "minimum": 1})
ASK = [Message("user", "How often?")]


@tool
def note(name: str) -> str:
    """Read a note."""
    return "Water every: 7 days."


# --- the form itself ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("form, text, keeps", [
    (EVERY, "Every 7 days.", True),
    (EVERY, "Every 7 days. Enjoy!", False),  # the whole text must match, not a part of it
    (EVERY, "every 7 days.", False),
    (DAYS, "7", True),
    (DAYS, "0", False),
    (DAYS, "seven", False),
    (AnswerForm(schema={"enum": ["yes", "no"]}), "no", True),  # a string value is its own text
    (AnswerForm(schema={"enum": ["yes", "no"]}), "maybe", False),
    (AnswerForm(schema={"type": "object", "required": ["days"]}), '{"days": 7}', True),
    (AnswerForm(schema={"type": "object", "required": ["days"]}), '{"weeks": 1}', False),
])
def test_a_form_keeps_exactly_the_answers_it_describes(form, text, keeps):
    problem = form.problem(text)
    assert (problem is None) == keeps
    assert problem is None or "\n" not in problem


@pytest.mark.parametrize("given, words", [
    ({}, "a pattern or a schema, not both and not neither"),
    ({"pattern": "x", "schema": {}}, "not both"),
    ({"pattern": "Every ("}, "not a regular expression"),
    ({"pattern": 7}, "a regular expression as text"),
    ({"schema": {"type": "wholenumber"}}, "not a JSON schema"),
])
def test_a_form_that_is_no_form_is_refused_in_one_line(given, words):
    with pytest.raises(SettingError, match=words):
        AnswerForm(**given)


def test_the_wire_form_is_an_object_holding_the_answer_and_reads_back_to_the_text():
    assert EVERY.wire_schema["properties"]["answer"] == {"type": "string", "pattern": "^(Every [0-9]+ days\\.)$"}
    assert unwrapped_answer('{"answer": "Every 7 days."}') == "Every 7 days."
    assert unwrapped_answer('{"answer": 7}') == "7"
    assert unwrapped_answer("Every 7 days.") == "Every 7 days."  # a server that ignored the form: kept as written
    assert unwrapped_answer('{"answer": 7, "why": "note"}') == '{"answer": 7, "why": "note"}'
    assert str(EVERY) == r"text matching the pattern Every [0-9]+ days\."


# --- the loop: a reply that breaks the form is no answer ----------------------------------------------------


def test_a_final_reply_that_breaks_the_form_ends_the_run_with_no_answer():
    run = Agent(ScriptedModel([call("note", name="fern"), "Water it weekly."]), [note], answer_form=EVERY).run("How often?")
    assert (run.outcome, run.answer) == ("off_form", None)
    assert "does not match the pattern" in run.notes[-1]
    assert Run.from_json(run.to_json()).outcome == "off_form"  # a saved run may end this way
    kept = Agent(ScriptedModel([call("note", name="fern"), "Every 7 days."]), [note], answer_form=EVERY).run("How often?")
    assert (kept.outcome, kept.answer) == ("answer", "Every 7 days.")


def test_a_form_may_be_a_function_of_the_run_the_numbers_of_the_note_just_read():
    def only_numbers_read(run):
        seen = [n for step in run.steps for r in step.results for n in r.content.split() if n.isdigit()]
        return AnswerForm(pattern=f"Every ({'|'.join(seen)}) days\\.") if seen else None

    model = ScriptedModel([call("note", name="fern"), "Every 3 days."])
    run = Agent(model, [note], answer_form=only_numbers_read, tool_choice=no_tools_after_a_result).run("How often?")
    assert run.outcome == "off_form" and "Every (7) days" in run.notes[-1]
    with pytest.raises(SettingError, match="answer_form must be an AnswerForm, None or a function"):
        Agent(ScriptedModel(["x"]), [note], answer_form=r"Every \d+ days\.")
    with pytest.raises(AgentError, match="answer_form must be an AnswerForm"):
        Agent(ScriptedModel(["x"]), [note], answer_form=lambda run: "Every").run("How often?")


# --- the adapters send it and unwrap the reply --------------------------------------------------------------


def test_the_messages_api_shape_carries_the_form_as_output_config():
    body = request_body("m", "", ASK, [], 100, answer_form=DAYS)
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": DAYS.wire_schema}}


@pytest.mark.server
def test_claude_is_sent_the_form_and_its_answer_is_unwrapped_with_its_thinking_kept():
    with FakeAnthropic() as fake:
        fake.queue((200, message_body([thinking_block(), text_block('{"answer": "Every 7 days."}')]), {}))
        claude = Claude("claude-test", api_key="test-key", base_url=fake.base_url, max_retries=0, timeout=5)
        reply = claude.complete("", ASK, [], 100, answer_form=EVERY)
        sent = fake.requests[0].body
    assert sent["output_config"]["format"]["schema"] == EVERY.wire_schema
    assert reply.text == "Every 7 days." and len(reply.thoughts) == 1


@pytest.mark.server
def test_an_openai_compatible_server_gets_a_structured_output_request_and_a_seed(openai_fake):
    openai_fake.queue((200, completion_body('{"answer": 7}'), {}))
    model = OpenAICompatible("m", openai_fake.base_url, max_retries=0, timeout=5, seed=1003)
    assert model.complete("", ASK, [], 100, answer_form=DAYS).text == "7"
    sent = openai_fake.requests[0].body
    assert sent["response_format"] == {"type": "json_schema",
                                       "json_schema": {"name": "answer", "schema": DAYS.wire_schema, "strict": True}}
    assert sent["seed"] == 1003
    with pytest.raises(SettingError, match="seed must be a whole number"):
        OpenAICompatible("m", openai_fake.base_url, seed=-1)


def test_the_grammar_holds_the_answer_to_the_form_and_reads_a_value_back_as_text():
    request = json_tools_request("m", "", ASK, [note.spec], 50, answer_form=EVERY, seed=5)
    choices = request["response_format"]["json_schema"]["schema"]["anyOf"]
    assert choices[-1]["properties"]["answer"] == EVERY.value_schema and request["seed"] == 5
    assert grammar_step('{"answer": 7}', "r", "stop")[0].text == "7"
    assert grammar_step('{"answer": "Every 7 days."}', "r", "stop")[0].text == "Every 7 days."


@pytest.mark.server
def test_the_grammar_model_sends_its_seed_with_every_request(openai_fake):
    openai_fake.queue((200, completion_body('{"answer": "Every 7 days."}'), {}))
    model = GrammarModel("m", openai_fake.base_url, max_retries=0, timeout=5, seed=1)
    model.seed = 2  # a new seed for the next run
    model.complete("", ASK, [], 100, answer_form=EVERY)
    assert openai_fake.requests[0].body["seed"] == 2


# --- a recording tells seeded runs apart ---------------------------------------------------------------------


class Seeded(ScriptedModel):
    """A stand-in for a model that samples with a seed: its reply names the seed."""

    seed: int | None = None

    def complete(self, system, messages, tools=(), max_tokens=1024, tool_choice="auto", answer_form=None):
        return ScriptedModel([f"Every {self.seed} days."]).complete(system, messages, tools, max_tokens)


def test_a_recording_of_seeded_runs_replays_each_seed_to_its_own_run(tmp_path):
    cassette = tmp_path / "seeds.jsonl"
    recorder = Recorder(Seeded([]), cassette)
    for seed in (3, 7):
        recorder.seed = seed
        Agent(recorder, [], answer_form=EVERY).run("How often?")
    recorder.finish()
    player = Player(cassette)
    answers = {}
    for seed in (7, 3):  # in another order than recorded
        player.seed = seed
        answers[seed] = Agent(player, [], answer_form=EVERY).run("How often?").answer
    assert answers == {3: "Every 3 days.", 7: "Every 7 days."}
    with pytest.raises(SettingError, match="takes no seed"):
        Recorder(ScriptedModel(["x"]), tmp_path / "other.jsonl").seed = 1


# --- choices listed at run time -------------------------------------------------------------------------------


def test_a_parameters_choices_are_listed_afresh_for_each_run(tmp_path: Path):
    (tmp_path / "fern.md").write_text("Water every: 3 days.")
    reader = read_file_tool(tmp_path, list_files=True)
    assert reader.spec["input_schema"]["properties"]["path"]["enum"] == ["fern.md"]
    (tmp_path / "cactus.md").write_text("Water every: 21 days.")
    handler = Dispatcher([reader])
    assert handler.specs[0]["input_schema"]["properties"]["path"]["enum"] == ["cactus.md", "fern.md"]
    refused = handler(ToolCall("t1", "read_file", {"path": "orchid.md"}))
    assert refused.is_error and "is not one of ['cactus.md', 'fern.md']" in refused.content
    assert handler(ToolCall("t2", "read_file", {"path": "cactus.md"})).content == "Water every: 21 days."


def read_note(name: str) -> str:
    """Read a note."""
    return name


def test_choices_must_name_parameters_and_list_text():
    with pytest.raises(ValueError, match="'nmae' is not a parameter"):
        tool(choices={"nmae": lambda: ["a"]})(read_note)
    with pytest.raises(ValueError, match="'name' is given no function"):
        tool(choices={"name": ["fern.md"]})(read_note)
    listed = tool(choices={"name": lambda: [1, 2]})(read_note)
    with pytest.raises(TypeError, match="must be a list of str"):
        listed.spec  # noqa: B018


def test_a_request_records_its_choices_as_an_enum():
    reader = tool(choices={"name": lambda: ["fern.md"]})(read_note)
    body = json.dumps(request_body("m", "", ASK, [reader.spec], 10))
    assert '"enum": ["fern.md"]' in body


def test_a_run_that_broke_the_form_is_described_with_what_it_wrote():
    from teachagent.course.reference import describe

    run = Agent(ScriptedModel(["Water it weekly."]), [], answer_form=EVERY).run("How often?")
    assert describe(run).endswith("ended with 'Water it weekly.', which breaks the answer's form (off_form)")
