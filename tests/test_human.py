"""You are the model: a person's replies drive the real loop, dispatcher, budget and record."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from teachagent.agent import Agent
from teachagent.course.widgets import play
from teachagent.human import HumanModel, NotAReply, context_page, parse_reply
from teachagent.messages import Message, Text, ToolCall
from teachagent.tokens import context_tokens
from teachagent.tools import tool


@tool
def lookup(planet: str) -> str:
    """Look up how many moons a planet has."""
    moons = {"mars": "2", "earth": "1"}
    if planet.lower() not in moons:
        raise ValueError(f"no data for {planet!r}")
    return moons[planet.lower()]


def agent(model, **kw):
    return Agent(model, [lookup], system="Answer with the tools.", **kw)


def test_prepared_answers_drive_the_real_loop_and_show_each_page(capsys):
    run = agent(HumanModel(['call lookup {"planet": "Mars"}', "Mars has 2 moons."])).run("How many moons has Mars?")
    assert (run.outcome, run.answer, len(run.steps)) == ("answer", "Mars has 2 moons.", 2)
    assert run.steps[0].results[0].content == "2"
    out = capsys.readouterr().out
    assert "=== call 1: the model reads c_1 = " in out and "[tool] lookup: Look up how many moons" in out
    assert '> call lookup {"planet": "Mars"}' in out and "[user] result for toolu_you_001:\n2" in out


def test_prepared_answers_are_played_from_a_copy_so_a_cell_can_run_again():
    prepared = ['call lookup {"planet": "Mars"}', "Two."]
    for _ in range(2):
        assert agent(HumanModel(prepared, show=lambda page: None)).run("?").answer == "Two."
    assert prepared == ['call lookup {"planet": "Mars"}', "Two."]


def test_the_page_shows_c_k_as_the_loop_counts_it():
    messages = [Message("user", "How many moons has Mars?")]
    specs = agent(HumanModel([])).dispatcher.specs
    assert f"c_1 = {context_tokens('Answer with the tools.', messages, specs)} tokens" in context_page(
        "Answer with the tools.", messages, specs)


def test_a_call_with_bad_input_gets_the_dispatchers_error_and_a_step():
    run = agent(HumanModel(['call lookup {"moon": "Mars"}', 'call lookup {"planet": "Pluto"}', "I could not find it."])).run("?")
    first, second = run.steps[0].results[0], run.steps[1].results[0]
    assert first.is_error and "does not match the schema" in first.content
    assert second.is_error and "no data for 'Pluto'" in second.content
    assert run.outcome == "answer" and len(run.steps) == 3


def test_the_step_budget_ends_a_persons_run_too():
    run = agent(HumanModel(['call lookup {"planet": "Mars"}'] * 3), max_steps=2).run("?")
    assert run.outcome == "max_steps" and len(run.steps) == 2


@pytest.mark.parametrize(
    "typed, problem",
    [("", "empty reply"), ("   \n ", "empty reply"), ('call lookup {"planet": Mars}', "not valid JSON"),
     ('call lookup ["Mars"]', "needs a tool name and a JSON object"), ("call ", "needs a tool name")],
)
def test_what_cannot_be_sent_is_explained(typed, problem):
    with pytest.raises(NotAReply, match=problem):
        parse_reply(typed)


def test_text_and_several_calls_in_one_reply():
    blocks = parse_reply('Let me look both up.\ncall lookup {"planet": "Mars"}\ncall lookup {"planet": "Earth"}')
    assert blocks == [Text("Let me look both up."), ToolCall("", "lookup", {"planet": "Mars"}),
                      ToolCall("", "lookup", {"planet": "Earth"})]


def test_a_person_is_asked_again_and_loses_nothing():
    typed = iter(['call lookup {planet: Mars}', 'call lookup {"planet": "Mars"}', "Two."])
    problems = []

    def ask(page, problem):
        problems.append(problem)
        return next(typed)

    run = agent(HumanModel(ask=ask)).run("?")
    assert run.answer == "Two." and len(run.steps) == 2  # the reply that could not be sent cost no step
    assert problems[0] is None and "not valid JSON" in problems[1] and problems[2] is None


def test_a_reply_longer_than_max_tokens_is_asked_again():
    typed = iter(["word " * 50, "Short."])
    problems = []
    run = agent(HumanModel(ask=lambda page, problem: problems.append(problem) or next(typed)), max_tokens=10).run("?")
    assert run.answer == "Short." and "allows max_tokens = 10" in problems[1]


def test_prepared_answers_that_run_out_or_cannot_be_sent_stop_the_run_clearly():
    from teachagent.agent import AgentError

    with pytest.raises(AgentError, match="prepared answers ran out"):
        agent(HumanModel(['call lookup {"planet": "Mars"}'])).run("?")
    with pytest.raises(AgentError, match="not valid JSON"):
        agent(HumanModel(["call lookup {oops}"])).run("?")


def wait_for(condition, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the widget"
        time.sleep(0.01)


def test_the_widget_steps_the_loop_without_blocking_the_caller():
    session = play(agent(HumanModel()), "How many moons has Mars?")
    wait_for(lambda: "=== call 1" in session.page.value)  # play() returned while the loop waits for a click
    assert session.run is None and "waiting for your reply" in repr(session)

    session.reply.value = 'call lookup {"planet": Mars}'
    session.send.click()
    wait_for(lambda: "not valid JSON" in session.problem.value)
    session.reply.value = 'call lookup {"planet": "Mars"}'
    session.send.click()
    wait_for(lambda: "=== call 2" in session.page.value)
    assert session.problem.value == "" and "result for toolu_you_001:\n2" in session.page.value
    session.reply.value = "Mars has 2 moons."
    session.send.click()
    session.thread.join(5)

    assert session.run.answer == "Mars has 2 moons." and session.send.disabled
    assert "The run is over: answer" in session.page.value


def test_play_needs_a_human_model():
    from teachagent.models import ScriptedModel

    with pytest.raises(TypeError, match="HumanModel"):
        play(agent(ScriptedModel(["hi"])), "?")


def test_in_a_terminal_a_person_types_at_input(tmp_path):
    script = (
        "from teachagent.agent import Agent\nfrom teachagent.human import HumanModel\n"
        "from teachagent.tools import tool\n"
        "@tool\ndef lookup(planet: str) -> str:\n    '''Moons of a planet.'''\n    return '2'\n"
        "print(Agent(HumanModel(), [lookup]).run('Moons of Mars?').answer)\n"
    )
    typed = 'call lookup {"planet": "Mars"}\n\nMars has two moons.\n\n'
    done = subprocess.run([sys.executable, "-c", script], input=typed, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "=== call 2: the model reads" in done.stdout and done.stdout.strip().endswith("Mars has two moons.")
