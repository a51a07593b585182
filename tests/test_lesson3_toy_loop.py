"""Lesson 3's fifteen-line loop, taken from the notebook itself: it branches on the stop reason.

tool_use runs the tools and goes on; end_turn and stop_sequence are final answers (F, as in
STOPS); any other stop reason (max_tokens, refusal, ...; pause_turn too, the one place the toy
differs from Agent, as the lesson says) ends the loop with no answer and says why; so does the
step budget.
"""

from pathlib import Path

import nbformat
import pytest

from teachagent import Dispatcher, Message, Response, ScriptedModel, Text, call, tool

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "03_agent_loop.ipynb"


@pytest.fixture(scope="module")
def tiny_agent():
    cells = [c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells if c.cell_type == "code"]
    (source,) = [s for s in cells if s.startswith("def tiny_agent(")]
    namespace = {"Dispatcher": Dispatcher, "Message": Message}
    exec(source, namespace)
    return namespace["tiny_agent"]


@tool
def read_file(path: str) -> str:
    """Read a file.

    Args:
        path: the file's name, such as 'index.md'.
    """
    return f"the text of {path}"


def test_tool_use_runs_the_tools_then_end_turn_is_the_answer(tiny_agent, capsys):
    model = ScriptedModel([call("read_file", path="index.md"), "It says: the text of index.md."])
    answer, messages = tiny_agent(model, [read_file], "", "Read index.md.")
    assert answer == "It says: the text of index.md."
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[2].content[0].content == "the text of index.md"
    assert capsys.readouterr().out == ""


def test_a_stop_sequence_ends_with_the_answer_as_in_stops(tiny_agent, capsys):
    from teachagent import STOPS

    answer, messages = tiny_agent(ScriptedModel([Response([Text("Saturn.")], "stop_sequence")]), [read_file], "", "t")
    assert answer == "Saturn." and len(messages) == 2 and capsys.readouterr().out == ""
    assert {reason for reason, (move, _) in STOPS.items() if move == "answer"} == {"end_turn", "stop_sequence"}


@pytest.mark.parametrize("stop_reason", ["max_tokens", "refusal", "model_context_window_exceeded", "pause_turn"])
def test_any_other_stop_reason_ends_the_loop_without_an_answer_and_says_why(tiny_agent, capsys, stop_reason):
    reply = Response([Text("I was going to read"), call("read_file", path="index.md")], stop_reason)
    ran = []

    @tool(name="read_file")
    def spy(path: str) -> str:
        """Read a file, and note that it ran."""
        ran.append(path)
        return "text"

    answer, messages = tiny_agent(ScriptedModel([reply, "never reached"]), [spy], "", "Read index.md.")
    assert answer is None
    assert len(messages) == 2 and ran == []  # the half-written call was not run, and no second call was made
    assert capsys.readouterr().out == f"stopped at step 1: stop reason {stop_reason!r}, so no answer\n"


def test_the_step_budget_ends_the_loop_without_an_answer(tiny_agent, capsys):
    answer, messages = tiny_agent(ScriptedModel(lambda m: call("read_file", path="a.md")), [read_file], "", "t", 3)
    assert answer is None and sum(m.role == "assistant" for m in messages) == 3
    assert capsys.readouterr().out == "stopped: the step budget of 3 steps ran out\n"
