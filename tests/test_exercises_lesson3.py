"""The checks of lesson 3's exercises: the gap and wrong answers get "not yet", a right answer "correct"."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from learner_objects import AlwaysEqual, LyingInt

from teachagent import Agent, ScriptedModel, Text, call, latest_results, read_file_tool, tool_exchanges
from teachagent.exercises.lesson3 import check_recovery, check_smallest_budget, check_total_context
from teachagent.trace import Run

SYSTEM = "You answer questions from the user's notes. Read files with read_file."
TASK = "Which planet in my notes has the most known moons?"


@pytest.fixture
def read_file(tmp_path):
    (tmp_path / "index.md").write_text("Notes in this folder:\n- mars.md\n- jupiter.md\n- saturn.md\n")
    (tmp_path / "mars.md").write_text("# Mars\nKnown moons: 2.\n")
    (tmp_path / "jupiter.md").write_text("# Jupiter\nKnown moons: 95.\n")
    (tmp_path / "saturn.md").write_text("# Saturn\nKnown moons: 274.\n")
    return read_file_tool(tmp_path)


def careful_reader(messages):
    seen = {c.input["path"]: r.content for c, r in tool_exchanges(messages) if not r.is_error}
    if "index.md" not in seen:
        return call("read_file", path="index.md")
    unread = [name for name in re.findall(r"- (\S+\.md)", seen["index.md"]) if name not in seen]
    return call("read_file", path=unread[0]) if unread else "Saturn."


@pytest.fixture
def run(read_file):
    return Agent(ScriptedModel(careful_reader), tools=[read_file], system=SYSTEM).run(TASK)


# 3.1: Z from the steps

def test_total_context_not_yet_for_the_gap(said, run):
    check_total_context(lambda steps: ..., run)
    assert "not yet: `total_context(run.steps[:1])` is still ..." in said("3.1")


@pytest.mark.parametrize("wrong", [
    lambda steps: steps[-1].context_tokens,  # only the last call
    lambda steps: len(steps),  # the number of calls
    lambda steps: 1062,  # a number read off one run
])
def test_total_context_not_yet_for_a_wrong_total(said, run, wrong):
    check_total_context(wrong, run)
    assert "not yet" in said("3.1")


def test_total_context_not_yet_when_it_crashes(said, run):
    check_total_context(lambda steps: steps.Z, run)
    assert "not yet: your code raised AttributeError" in said("3.1")


def test_total_context_correct(said, run):
    check_total_context(lambda steps: sum(s.context_tokens for s in steps), run)
    assert f"correct: Z = {run.Z} tokens over 5 calls" in said("3.1")


# 3.2: the smallest step budget

@pytest.mark.parametrize("wrong, problem", [
    (..., "`smallest` is still ..."),
    (4, "with max_steps=4 the run ends with outcome 'max_steps'"),
    (6, "with max_steps=5 it answers too"),
    ("5", "`smallest` should be a number, not '5'"),
    (0, "a step budget is a whole number, at least 1"),
])
def test_smallest_budget_not_yet(said, read_file, wrong, problem):
    check_smallest_budget(wrong, careful_reader, [read_file], SYSTEM, TASK)
    line = said("3.2")
    assert "not yet: " in line and problem in line


def test_smallest_budget_correct(said, read_file):
    check_smallest_budget(5, careful_reader, [read_file], SYSTEM, TASK)
    assert "correct: max_steps=5: 4 steps calling read_file, then one to answer" in said("3.2")


# 3.3: recovering from an error

def first_suggested(messages):
    error = latest_results(messages)[0].content
    return call("read_file", path=re.search(r"include: ([\w.]+)", error)[1])


def test_recovery_not_yet_for_the_gap(said, read_file):
    check_recovery([call("read_file", path="venus.md"), lambda m: call("read_file", path=...), "Done."], read_file, SYSTEM, TASK)
    assert "not yet: `suggestion` is still ..." in said("3.3")


@pytest.mark.parametrize("script, problem", [
    # a second step that names the file itself works in the lesson's folder only
    ([call("read_file", path="venus.md"), call("read_file", path="index.md"), "Done."],
     "the second call asked for 'index.md', but the error"),
    ([call("read_file", path="venus.md"), lambda m: call("read_file", path="mars.md"), "Done."],
     "suggests 'index.md' first"),
    # a first call that does not fail
    ([call("read_file", path="index.md"), first_suggested, "Done."], "the first step must be one call that fails"),
    # a second step that is not a call
    ([call("read_file", path="venus.md"), lambda m: Text("index.md"), "Done."], "make it one tool call"),
    # no answer after the recovery
    ([call("read_file", path="venus.md"), first_suggested, call("read_file", path="mars.md")],
     "ended with outcome 'max_steps', not an answer"),
    ([call("read_file", path="venus.md"), first_suggested], "the script has 2 steps; it needs at least three"),
])
def test_recovery_not_yet_for_a_wrong_script(said, read_file, script, problem):
    check_recovery(script, read_file, SYSTEM, TASK)
    line = said("3.3")
    assert "not yet: " in line and problem in line


def test_recovery_correct(said, read_file):
    check_recovery([call("read_file", path="venus.md"), first_suggested, "Done."], read_file, SYSTEM, TASK)
    assert ("correct: after the error the agent read 'index.md', the first file suggested, and answered "
            "(and 'asteroids.txt' in a folder of other files)") in said("3.3")


# --- other right styles, hostile answers, clear words (issue 23) ---

def by_loop(steps):
    total = 0
    for step in steps:
        total += step.context_tokens
    return total


@pytest.mark.parametrize("answer", [
    by_loop,
    lambda steps: sum(map(lambda s: s.context_tokens, steps)),
    lambda steps: float(sum(s.context_tokens for s in steps)),
])
def test_total_context_other_right_styles(answer, said, run):
    check_total_context(answer, run)
    assert said("3.1").startswith("correct")


@pytest.mark.parametrize("answer, problem", [
    (lambda steps: AlwaysEqual(), "should be a number, not an object of type AlwaysEqual"),
    (lambda steps: LyingInt(3), "returned 3; that one call read"),
])
def test_total_context_hostile(answer, problem, said, run):
    check_total_context(answer, run)
    line = said("3.1")
    assert line.startswith("not yet") and problem in line


def test_total_context_speaks_of_one_call_as_one(said, run):
    check_total_context(lambda steps: 0, run)
    line = said("3.1")
    assert f"that one call read {run.steps[0].context_tokens} tokens (c_1)" in line and "those 1 calls" not in line
    check_total_context(lambda steps: steps[0].context_tokens, run)
    assert "those 2 calls read" in said("3.1")


@pytest.mark.parametrize("answer", [5.0, int("5"), sum(1 for _ in range(5))])
def test_smallest_budget_other_right_styles(answer, said, read_file):
    check_smallest_budget(answer, careful_reader, [read_file], SYSTEM, TASK)
    assert said("3.2").startswith("correct")


@pytest.mark.parametrize("answer, problem", [
    (AlwaysEqual(), "should be a number"),
    (LyingInt(4), "with max_steps=4 the run ends"),
    (True, "the truth value True"),
])
def test_smallest_budget_hostile(answer, problem, said, read_file):
    check_smallest_budget(answer, careful_reader, [read_file], SYSTEM, TASK)
    line = said("3.2")
    assert line.startswith("not yet") and problem in line


def by_split(messages):
    error = latest_results(messages)[0].content
    return call("read_file", path=error.split("include: ")[1].split(",")[0].strip())


def by_words(messages):
    words = latest_results(messages)[0].content.replace(",", " ").split()
    return call("read_file", path=words[words.index("include:") + 1])


def test_recovery_other_right_styles(said, read_file):
    for script in ([call("read_file", path="venus.md"), by_split, "Done."],
                   (call("read_file", path="pluto.txt"), by_words, "I read it."),  # a tuple is a fine script
                   [call("read_file", path="venus.md"), first_suggested, Text("Done.")]):
        check_recovery(script, read_file, SYSTEM, TASK)
        assert said("3.3").startswith("correct"), script


def test_recovery_too_short_says_how_many_steps_it_has(said, read_file):
    check_recovery((call("read_file", path="venus.md"), first_suggested), read_file, SYSTEM, TASK)
    assert "the script has 2 steps; it needs at least three" in said("3.3")
    check_recovery("read venus.md", read_file, SYSTEM, TASK)
    assert said("3.3").startswith("not yet: the script should be a list of steps, not 'read venus.md'")


def test_recovery_that_exits_is_one_line(said, read_file):
    def exits(messages):
        raise SystemExit(3)

    check_recovery([call("read_file", path="venus.md"), exits, "Done."], read_file, SYSTEM, TASK)
    assert said("3.3").startswith("not yet: your code called sys.exit()")


@pytest.mark.parametrize("question, right, wrong_letters", [("3.1", "c", "ab"), ("3.2", "a", "bc"), ("3.3", "b", "ac")])
def test_quiz(question, right, wrong_letters, capsys):
    from teachagent.exercises import quiz

    for choice in (right, f" {right.upper()} ", f"({right})"):
        quiz(question, choice)
        assert capsys.readouterr().out.startswith(f"quiz {question}: correct: ({right})")
    for choice in wrong_letters:
        quiz(question, choice)
        assert capsys.readouterr().out.startswith(f"quiz {question}: not yet: ({choice}) is not it")
    for hostile in (AlwaysEqual(), LyingInt(1), None, "ab"):
        quiz(question, hostile)
        out = capsys.readouterr().out
        assert out.startswith(f"quiz {question}: not yet") and out.count("\n") == 1


def test_quiz_3_1_names_every_way_lesson_3_teaches_a_run_to_stop():
    from teachagent.exercises.lesson3 import QUIZ

    key = QUIZ["3.1"].right
    for stop in ("final answer", "end step", "max_tokens", "refusal", "K_max", "tokens or dollars"):
        assert stop in key, f"quiz 3.1's key leaves out {stop!r}: {key}"
    notebook = Path(__file__).resolve().parent.parent / "notebooks" / "03_agent_loop.ipynb"
    (asked,) = [c.source for c in nbformat.read(notebook, as_version=4).cells if c.source.startswith("**Question 3.1.**")]
    right = (asked + "\n- (").split(f"- ({QUIZ['3.1'].answer})", 1)[1].split("\n- (", 1)[0]
    for stop in ("final answer", "F", "end step", "max_tokens", "refusal", "K_{\\max}", "tokens or dollars"):
        assert stop in right, f"quiz 3.1's right option leaves out {stop!r}: {right}"


def test_lesson_3_quiz_3_1_and_the_notation_page_say_the_same_f():
    """F is the final answers (end_turn, stop_sequence), and a step cut off or refused is an end step, not in F."""
    root = Path(__file__).resolve().parent.parent / "notebooks"
    for name in ("00_notation.ipynb", "03_agent_loop.ipynb"):
        text = "\n".join(c.source for c in nbformat.read(root / name, as_version=4).cells if c.cell_type == "markdown")
        assert "final answers" in text and "end step" in text, name
        assert "in F, no answer" not in text and "F$ means \"the steps that end the run\"" not in text, name


def test_the_guess_of_c_K_is_compared_in_one_line(capsys):
    from teachagent.exercises.lesson3 import compare_cK_guess

    run = Agent(ScriptedModel(["First.", "Second."]), tools=[]).run("Say something.")
    compare_cK_guess(..., run)
    assert capsys.readouterr().out.startswith("no guess yet: write a number")
    compare_cK_guess("lots", run)
    assert capsys.readouterr().out.startswith("your guess is 'lots', not a number")
    compare_cK_guess(30, run)
    c = run.context_sizes
    assert capsys.readouterr().out == (f"you guessed 30; the run made K = 1 call, and its last read c_1 = {c[0]} "
                                       "tokens, 1.0 times its first\n")
    no_call = Run(task="Say something.", model="a {braced} model", outcome="error")
    compare_cK_guess(30, no_call)
    assert capsys.readouterr().out == ("you guessed 30; your model's run (a {braced} model) made no call "
                                       "(outcome 'error'), so there is no c_K\n")
