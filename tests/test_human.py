"""You are the model: a person's replies drive the real loop, dispatcher, budget and record."""

from __future__ import annotations

import html
import subprocess
import sys
import time

import pytest

from teachagent.agent import Agent
from teachagent.course.widgets import play
from teachagent.human import HumanModel, NotAReply, context_page, example_call, parse_reply
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
    assert '> call lookup {"planet": "Mars"}' in out
    assert '[user] result of call lookup {"planet": "Mars"} (id toolu_you_001):\n2' in out


def test_prepared_answers_are_played_from_a_copy_so_a_cell_can_run_again():
    prepared = ['call lookup {"planet": "Mars"}', "Two."]
    for _ in range(2):
        assert agent(HumanModel(prepared, show=lambda page: None)).run("?").answer == "Two."
    assert prepared == ['call lookup {"planet": "Mars"}', "Two."]


def test_the_page_shows_c_k_as_the_loop_counts_it():
    messages = [Message("user", "How many moons has Mars?")]
    specs = agent(HumanModel([])).specs
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
    assert session.problem.value == "" and "(id toolu_you_001):\n2" in session.page.value
    session.reply.value = "Mars has 2 moons."
    session.send.click()
    session.thread.join(5)

    assert session.run.answer == "Mars has 2 moons." and session.send.disabled
    assert "The run is over: answer" in session.page.value


def test_play_needs_a_human_model():
    from teachagent.scripted import ScriptedModel

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


def test_after_the_first_page_only_what_is_new_is_shown(capsys):
    agent(HumanModel(['call lookup {"planet": "Mars"}', 'call lookup {"planet": "Earth"}', "Two and one."])).run("?")
    pages = capsys.readouterr().out.split("=== call ")[1:]
    assert len(pages) == 3 and "[system]" in pages[0] and "[tool] lookup" in pages[0]
    for page, planet, moons in [(pages[1], "Mars", "2"), (pages[2], "Earth", "1")]:
        assert "[system]" not in page and "[tool]" not in page and "[user] ?" not in page  # nothing said before
        assert f'result of call lookup {{"planet": "{planet}"}}' in page and f"):\n{moons}\n" in page
        assert "[assistant]" not in page  # the reply the person has just typed is not shown back
    assert "Mars" not in pages[2]


def test_the_whole_page_on_request_and_every_time_if_asked():
    pages = []
    typed = iter(['call lookup {"planet": "Mars"}', "/page", "Two."])
    agent(HumanModel(ask=lambda page, problem: pages.append(page) or next(typed))).run("?")
    assert "[system]" not in pages[1] and "/page shows the whole page" in pages[1]
    assert "[system]" in pages[2] and '[assistant] call lookup {"planet": "Mars"}' in pages[2]  # /page: all of it
    shown = []
    agent(HumanModel(['call lookup {"planet": "Mars"}', "Two."], show=shown.append, whole_page=True)).run("?")
    assert all("[system]" in page for page in shown)


def test_a_new_run_starts_with_the_whole_page_again():
    pages = []
    model = HumanModel(['call lookup {"planet": "Mars"}', "Two.", "Nothing to look up."], show=pages.append)
    agent(model).run("?")
    agent(model).run("Another question")
    assert "[system]" in pages[2] and "[user] Another question" in pages[2]


def test_the_hint_is_read_off_each_tools_own_schema():
    from teachagent.tools import read_file_tool

    assert example_call(lookup.spec) == 'call lookup {"planet": "..."}'
    assert example_call(read_file_tool(".").spec) == 'call read_file {"path": "notes.txt"}'  # the description's example
    with pytest.raises(NotAReply, match=r'write it like \{"planet": "..."\}'):
        parse_reply("call lookup {planet: Mars}", [lookup.spec])
    page = context_page("", [Message("user", "?")], [lookup.spec])
    assert 'such as: call lookup {"planet": "..."}' in page and "notes.txt" not in page


def test_a_refusal_says_where_the_mistake_is():
    typed = 'Let me look.\ncall lookup {"planet": Mars}'
    with pytest.raises(NotAReply) as refused:
        parse_reply(typed)
    assert typed[refused.value.where:].startswith("Mars")


def test_a_refused_reply_stays_in_the_widget_with_the_mistake_marked_and_the_end_is_clean():
    session = play(agent(HumanModel()), "How many moons has Mars?")
    wait_for(lambda: "=== call 1" in session.page.value)
    session.reply.value = 'call lookup {"planet": Mars}'
    session.send.click()
    wait_for(lambda: "not valid JSON" in session.problem.value)
    assert session.reply.value == 'call lookup {"planet": Mars}'  # kept, to fix one missing quote
    marked = 'call lookup {"planet": Mars}\n' + " " * len('call lookup {"planet": ') + "^"
    assert marked in html.unescape(session.problem.value)
    session.reply.value = 'call lookup {"planet": "Mars"}'
    session.send.click()
    wait_for(lambda: "=== call 2" in session.page.value)
    assert session.reply.value == "" and session.page.value.startswith("=== call 2")  # the newest at the top
    assert "[system]" not in session.page.value and "[system]" in session.whole.children[0].value
    session.reply.value = 'call lookup {"planet": Earth}'  # refused again, then the run ends with a plain answer
    session.send.click()
    wait_for(lambda: "not valid JSON" in session.problem.value)
    session.reply.value = "Mars has 2 moons."
    session.send.click()
    session.thread.join(5)
    assert session.problem.value == ""  # no stale "not sent" under the end
    assert "The run is over: answer" in session.page.value and "The answer: Mars has 2 moons." in session.page.value
    assert session.reply.disabled and session.send.disabled
