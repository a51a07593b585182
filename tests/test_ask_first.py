"""A tool that asks first: the dispatcher runs it only after `approve` said yes, and a no goes back as a result."""

import time

import pytest

from teachagent.agent import Agent
from teachagent.base.errors import SettingError
from teachagent.dispatch import Dispatcher, ask_in_terminal
from teachagent.messages import ToolCall
from teachagent.scripted import ScriptedModel, call, latest_results
from teachagent.tools import Tool, tool


def writer(written):
    """A tool that 'writes' by appending to `written`, made with ask_first=True."""

    @tool(ask_first=True)
    def write_note(path: str, text: str) -> str:
        """Write a note."""
        written.append((path, text))
        return f"wrote {len(text)} characters to {path}"

    return write_note


def test_the_decorator_and_the_record_carry_ask_first():
    note = writer([])
    assert note.ask_first is True
    assert "ask_first=True" in repr(note)
    assert "ask_first" not in repr(Tool("echo", "Echo.", {"type": "object"}, lambda: ""))
    assert note.spec == {"name": note.name, "description": note.description, "input_schema": note.input_schema}


def test_ask_first_must_be_true_or_false():
    with pytest.raises(TypeError, match="ask_first of tool 'echo' must be True or False"):
        Tool("echo", "Echo.", {"type": "object"}, lambda: "", ask_first="yes")


def test_a_yes_runs_the_tool_and_a_no_does_not():
    written, asked = [], []

    def approve(c):
        asked.append(c)
        return c.input["path"] == "todo.txt"

    dispatcher = Dispatcher([writer(written)], approve=approve)
    yes = dispatcher(ToolCall("c1", "write_note", {"path": "todo.txt", "text": "lunch"}))
    no = dispatcher(ToolCall("c2", "write_note", {"path": "secret.txt", "text": "x"}))

    assert (yes.tool_use_id, yes.content, yes.is_error) == ("c1", "wrote 5 characters to todo.txt", False)
    assert (no.tool_use_id, no.is_error) == ("c2", True)
    assert no.content == "the user did not approve this call to 'write_note', so it was not run"
    assert written == [("todo.txt", "lunch")]
    assert [c.id for c in asked] == ["c1", "c2"]


def test_nobody_is_asked_about_a_call_that_could_not_run_or_a_tool_that_changes_nothing():
    asked = []

    @tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    dispatcher = Dispatcher([writer([]), echo], approve=lambda c: asked.append(c) or True)
    assert dispatcher(ToolCall("c1", "write_note", {"path": "a.txt"})).is_error  # no text: the schema refuses it
    assert dispatcher(ToolCall("c2", "write_notes", {"path": "a.txt", "text": "x"})).is_error  # no such tool
    assert dispatcher(ToolCall("c3", "echo", {"text": "hi"})).content == "hi"
    assert asked == []


def test_the_persons_time_does_not_count_against_the_tools_time_limit():
    @tool(ask_first=True, timeout=0.2)
    def save(text: str) -> str:
        """Save the text."""
        return "saved"

    def slow_yes(c):
        time.sleep(0.5)  # longer than the tool may run
        return True

    result = Dispatcher([save], approve=slow_yes)(ToolCall("c1", "save", {"text": "x"}))
    assert (result.content, result.is_error) == ("saved", False)


def test_approve_must_be_a_function_answering_true_or_false():
    with pytest.raises(SettingError, match="approve must be a function of a ToolCall"):
        Dispatcher([writer([])], approve="yes")
    with pytest.raises(SettingError, match="approve must be a function of a ToolCall"):
        Agent(ScriptedModel([]), tools=[writer([])], approve=None)
    written = []
    dispatcher = Dispatcher([writer(written)], approve=lambda c: "no")  # a truthy "no" must not run the tool
    result = dispatcher(ToolCall("c1", "write_note", {"path": "a.txt", "text": "x"}))  # an error the model reads
    assert result.is_error and result.content == ("approve must answer True or False, and answered 'no', so this call "
                                                  "to 'write_note' was not run")
    assert written == []


@pytest.mark.parametrize("typed, runs", [("y", True), (" Yes \n", True), ("", False), ("n", False), ("sure", False)])
def test_the_default_asks_on_the_terminal_and_runs_only_on_yes(monkeypatch, typed, runs):
    prompts = []
    monkeypatch.setattr("builtins.input", lambda prompt: prompts.append(prompt) or typed)
    assert ask_in_terminal(ToolCall("c1", "write_note", {"path": "todo.txt", "text": "lunch"})) is runs
    assert prompts == ['The model asks to run write_note with {"path": "todo.txt", "text": "lunch"}. Run it? [y/N] ']


@pytest.mark.parametrize("no_keyboard", [EOFError, NotImplementedError])
def test_the_default_says_no_where_nobody_can_answer(monkeypatch, no_keyboard):
    def closed(prompt):
        raise no_keyboard()

    monkeypatch.setattr("builtins.input", closed)
    written = []
    result = Dispatcher([writer(written)])(ToolCall("c1", "write_note", {"path": "a.txt", "text": "x"}))
    assert result.is_error and "did not approve" in result.content and written == []


def test_a_refusal_goes_back_to_the_model_and_the_run_goes_on():
    written = []
    model = ScriptedModel([
        call("write_note", path="todo.txt", text="lunch for 12"),
        lambda messages: f"I left the file alone: {latest_results(messages)[0].content}.",
    ])
    run = Agent(model, tools=[writer(written)], approve=lambda c: False).run("Note the lunch order in todo.txt.")

    assert run.outcome == "answer" and len(run.steps) == 2
    assert run.steps[0].results[0].is_error
    assert run.answer == "I left the file alone: the user did not approve this call to 'write_note', so it was not run."
    assert written == []
