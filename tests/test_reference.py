"""Your model's run beside the scripted reference (teachagent/course/reference.py)."""

import pytest

from teachagent import (
    Agent,
    Message,
    Response,
    ScriptedModel,
    Text,
    Usage,
    beside,
    beside_reference,
    call,
    describe,
    show_beside,
    tool,
    undefined_because,
)
from teachagent.base.errors import CourseError


@tool
def add(a: int, b: int) -> str:
    """Add two whole numbers."""
    return str(a + b)


def adder(messages):
    results = [b for m in messages for b in m.content if getattr(b, "tool_use_id", None)]
    return f"The sum is {results[-1].content}." if results else call("add", a=2, b=3)


class Stubborn:
    """A real model's stand-in that is not scripted: it calls add for ever."""

    name = "stubborn-1b"

    def complete(self, system, messages, tools=(), max_tokens=1024):
        return Response([call("add", a=1, b=1)], "tool_use", Usage(10, 5), self.name)


class Blurter:
    """Not scripted: answers at once with only punctuation."""

    name = "blurter"

    def complete(self, system, messages, tools=(), max_tokens=1024):
        return Response([Text(" ); ")], "end_turn", Usage(10, 2), self.name)


def task(model):
    return Agent(model, tools=[add], max_steps=3).run("What is 2 + 3?")


def test_a_scripted_model_runs_once_and_prints_nothing(capsys):
    model = ScriptedModel(adder)
    yours, reference = beside_reference(task, model, adder)
    assert yours is reference and yours.answered and yours.answer == "The sum is 5."
    assert capsys.readouterr().out == ""
    assert model.played == 2  # one run, not two


def test_another_model_runs_beside_the_reference_with_two_labelled_lines(capsys):
    yours, reference = beside_reference(task, Stubborn(), adder)
    assert yours is not reference and reference.scripted and not yours.scripted
    line = capsys.readouterr().out
    assert line.count("\n") == 2 and line.startswith("your model (stubborn-1b): ")
    assert line.startswith("your model (stubborn-1b): 3 steps, 3 tool calls, Z = ")
    assert "ran out of steps (max_steps), no answer\nscripted reference: 2 steps, 1 tool call" in line
    assert line.rstrip().endswith("answered 'The sum is 5.'")


def test_a_scripted_model_given_as_the_script_is_played_afresh(capsys):
    played = ScriptedModel([call("add", a=2, b=3), "Five."], name="two steps")
    task(played)  # used up
    _, reference = beside_reference(task, Stubborn(), played)
    assert reference.answer == "Five." and reference.model == "two steps"


def test_replies_are_compared_too(capsys):
    def ask(model):
        return model.complete("Use the tools.", [], [add.spec], 100)

    yours, reference = beside_reference(ask, Blurter(), [call("add", a=1234, b=8766)])
    line = capsys.readouterr().out
    assert "your model (blurter): wrote ');' (end_turn), no tool call" in line
    assert "scripted reference: called add(a=1234, b=8766) (tool_use)" in line
    assert undefined_because(yours, "a tool call").startswith("not defined: your model's reply (blurter) has no tool call")
    assert undefined_because(reference, "a tool call") is None
    assert undefined_because(yours) is not None  # punctuation is no answer


def test_beside_returns_your_result_alone_and_prints_the_same_two_lines(capsys):
    mine = ScriptedModel(adder)
    assert beside(task, mine, adder).answer == "The sum is 5." and capsys.readouterr().out == ""
    assert mine.played == 2  # scripted: one run
    yours = beside(task, Stubborn(), adder)
    assert yours.model == "stubborn-1b" and yours.outcome == "max_steps"
    line = capsys.readouterr().out
    assert line.startswith("your model (stubborn-1b): 3 steps") and "\nscripted reference: 2 steps" in line


def test_a_conversation_is_described_by_what_each_call_read_and_its_last_reply(capsys):
    def conversation(model):
        return [model.complete("", [Message("user", turn)], [], 100) for turn in ("Hi.", "Add 2 and 3.")]

    beside(conversation, Blurter(), ["Hello.", "5."])
    line = capsys.readouterr().out
    assert line.startswith("your model (blurter): 2 calls reading 10, 10 tokens; the last wrote ');' (end_turn)")
    assert "\nscripted reference: 2 calls reading " in line and "the last wrote '5.' (end_turn), no tool call" in line


def test_punctuation_or_nothing_is_no_answer():
    run = task(Blurter())
    assert run.outcome == "empty_answer" and not run.answered
    assert describe(run).endswith("ended with ');', which says nothing (empty_answer)")
    assert undefined_because(run) == f"not defined: your model's run (blurter) has no answer ({describe(run)})"


def test_a_figure_needing_a_call_or_an_answer_says_why_it_is_undefined():
    looping = task(Stubborn())
    assert undefined_because(looping, "a tool call") is None
    assert "has no answer" in undefined_because(looping) and "max_steps" in undefined_because(looping)
    scripted = task(ScriptedModel(["No tools needed: 5."]))
    assert undefined_because(scripted) is None
    assert undefined_because(scripted, "a tool call").startswith("not defined: the scripted run has no tool call")


@pytest.mark.parametrize("stop, has_answer", [("end_turn", True), ("stop_sequence", True), ("max_tokens", False)])
def test_a_reply_cut_off_at_max_tokens_is_no_answer_for_a_figure(stop, has_answer):
    reply = Response([Text("The sum is 100")], stop, Usage(10, 4), "some model")
    assert (undefined_because(reply) is None) is has_answer


def test_long_answers_and_names_stay_on_two_short_lines(capsys):
    class Wordy(Blurter):
        name = "wordy\nmodel " * 30

        def complete(self, system, messages, tools=(), max_tokens=1024):
            return Response([Text("word\n" * 500)], "end_turn", Usage(10, 500), self.name)

    beside_reference(task, Wordy(), adder)
    line = capsys.readouterr().out
    assert line.count("\n") == 2 and all(len(one) < 200 for one in line.splitlines())


@pytest.mark.parametrize("call_args, message", [
    ((task, Stubborn(), None), "needs the lesson's script"),
    (("not a function", Stubborn(), adder), "needs a function of a model"),
])
def test_misuse_is_a_one_line_course_error(call_args, message):
    with pytest.raises(CourseError, match=message):
        beside_reference(*call_args)


def test_undefined_because_names_what_it_can_check():
    with pytest.raises(CourseError, match="needs is one of 'an answer', 'a tool call'"):
        undefined_because(task(Stubborn()), "a verdict")
    with pytest.raises(CourseError, match="takes a Run or a Response"):
        undefined_because("a run")


def test_the_runs_unpack_as_a_pair_and_show_a_figure_once_in_scripted_mode(capsys):
    runs = beside_reference(task, ScriptedModel(adder), adder)
    yours, reference = runs
    assert runs.one_run and yours is reference is runs.reference
    runs.show(lambda run: f"K = {len(run.steps)}")
    assert capsys.readouterr().out == "K = 2\n"  # no label: there is one run


def test_under_another_model_a_figure_is_shown_for_both_on_labelled_lines_of_one_width(capsys):
    runs = beside_reference(task, Stubborn(), adder)
    capsys.readouterr()
    runs.show(lambda run: f"K = {len(run.steps)}")
    yours, reference = capsys.readouterr().out.splitlines()
    assert yours == "your model:         K = 3" and reference == "scripted reference: K = 2"
    runs.show(lambda run: f"K = {len(run.steps)}\nanswer {run.answer!r}")  # several lines: below the label
    assert capsys.readouterr().out.startswith("your model:\nK = 3\nanswer None\nscripted reference:\nK = 2\n")


def test_a_figure_of_two_tasks_runs_says_why_it_is_undefined_for_a_run_without_an_answer(capsys):
    first, second = (beside_reference(task, Stubborn(), adder) for _ in range(2))
    capsys.readouterr()
    show_beside(lambda a, b: f"{a.Z / b.Z:.1f}", first, second, needs="an answer")
    yours, reference = capsys.readouterr().out.splitlines()
    assert yours.startswith("your model:         not defined: your model's run (stubborn-1b) has no answer")
    assert reference == "scripted reference: 1.0"
    with pytest.raises(CourseError, match="show_beside needs"):
        show_beside(len, task(Stubborn()))
