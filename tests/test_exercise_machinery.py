"""The machinery every lesson's exercises and quizzes share: fair values, one line, hidden solutions."""

import numpy as np
import pytest
from learner_objects import AlwaysEqual, LyingFloat, LyingInt

import teachagent.exercises.lesson1 as lesson1
from teachagent.exercises import NotYet, Question, check, close, expect, number, numbers_in, quiz, reveal, text, whole


class BrokenStr(Exception):
    def __str__(self):
        raise RuntimeError("no")


class LoudStr(str):
    def __str__(self):
        return "what you want to hear"

    def strip(self, *args):
        raise RuntimeError("no")


def line(capsys) -> str:
    out = capsys.readouterr().out
    assert out.count("\n") == 1, out
    return out


# fair values: built-in numbers and strings, read without asking the learner's object


def test_number_reads_what_a_subclass_holds_not_what_it_claims():
    assert number(LyingInt(3), "x") == 3.0
    assert number(LyingFloat(0.25), "x") == 0.25
    assert whole(LyingInt(7), "k") == 7
    assert type(number(np.float64(0.5), "x")) is float
    assert whole(np.int64(12), "k") == 12
    assert whole(12.0, "k") == 12


@pytest.mark.parametrize("bad", [AlwaysEqual(), "3", None, [3], True, np.bool_(True)])
def test_number_refuses_what_is_not_a_number(bad):
    with pytest.raises(NotYet, match="should be a number"):
        number(bad, "x")


def test_whole_refuses_fractions_and_text_refuses_non_text():
    with pytest.raises(NotYet, match="whole number"):
        whole(2.5, "k")
    with pytest.raises(NotYet, match="should be text"):
        text(AlwaysEqual(), "name")
    assert type(text(LoudStr("excerpts"), "name")) is str
    assert text(LoudStr("excerpts"), "name") == "excerpts"


def test_numbers_in_reads_every_number_a_sentence_states():
    assert numbers_in("100°C is 212.0°F") == [100.0, 212.0]
    assert numbers_in("97.9 °F") == [97.9]
    assert numbers_in("Z = 1,358 tokens and −40 degrees, 1e-3 off") == [1358.0, -40.0, 0.001]
    assert numbers_in("no digits here, v2 is a name") == []


def test_close_takes_the_tolerance_the_statement_asks_for():
    assert close(97.9, 97.88, abs=0.05)
    assert not close(97.9, 97.88, rel=1e-6)


# check: one line, whatever the learner's code does


def test_a_right_answer_and_a_gap(capsys):
    check("9.1", lambda: "well done")
    assert line(capsys) == "exercise 9.1: correct: well done\n"
    check("9.1", lambda: expect(False, "the gap is still there") or "")
    assert line(capsys) == "exercise 9.1: not yet: the gap is still there\n"


@pytest.mark.parametrize("raised, said", [
    (SystemExit(3), "sys.exit()"),
    (BrokenStr(), "BrokenStr (whose message could not be shown)"),
    (ZeroDivisionError("division by zero"), "ZeroDivisionError: division by zero"),
    (GeneratorExit(), "GeneratorExit"),
])
def test_nothing_the_learners_code_raises_escapes(capsys, raised, said):
    def test():
        raise raised

    check("9.2", test)
    out = line(capsys)
    assert out.startswith("exercise 9.2: not yet: ") and said in out


def test_ctrl_c_still_stops_the_cell():
    def test():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check("9.3", test)


def test_a_long_message_stays_on_one_line(capsys):
    def test():
        raise ValueError("x\n" * 500)

    check("9.4", test)
    assert len(line(capsys)) < 300


# quiz


@pytest.fixture
def key(monkeypatch):
    question = Question(answer="b", right="the history is resent", wrong={"a": "it keeps nothing", "c": "no"})
    monkeypatch.setattr(lesson1, "QUIZ", {"1.9": question}, raising=False)
    return question


@pytest.mark.parametrize("choice", ["b", "B", " b ", "(b)", "b)", "[B]", "b.", LoudStr("b")])
def test_quiz_accepts_the_letter_however_it_is_written(capsys, key, choice):
    quiz("1.9", choice)
    assert line(capsys) == "quiz 1.9: correct: (b) — the history is resent\n"


def test_quiz_explains_the_option_chosen(capsys, key):
    quiz("1.9", "a")
    assert line(capsys) == "quiz 1.9: not yet: (a) is not it: it keeps nothing\n"


@pytest.mark.parametrize("choice, said", [
    (..., "is still ..."),
    ("d", 'one of "a", "b", "c"'),
    ("b or c", "just the letter"),
    (AlwaysEqual(), "as text"),
    (2, "as text"),
])
def test_quiz_refuses_what_is_not_one_letter(capsys, key, choice, said):
    quiz("1.9", choice)
    out = line(capsys)
    assert out.startswith("quiz 1.9: not yet: ") and said in out


def test_a_question_hides_its_answer_in_its_repr(key):
    assert "b" not in repr(key).split("options")[1].split(";")[1]
    with pytest.raises(ValueError):
        Question(answer="a", right="r", wrong={"a": "contradiction"})


# solutions: out of sight, and proved by the tests


@pytest.fixture
def solutions(tmp_path, monkeypatch):
    (tmp_path / "lesson9.py").write_text(
        "# %% exercise 9.1\n"
        "answer = 42\n"
        "check_answer(answer)\n"
        "\n"
        "# %% exercise 9.2\n"
        "answer = 41\n"
        "check_answer(answer)\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(reveal, "SOLUTIONS", tmp_path)


def _names():
    def check_answer(value):
        check("9.1" if value == 42 else "9.2", lambda: expect(value == 42, "not 42") or "42")

    return {"check_answer": check_answer, "answer": ...}


def test_a_solution_is_read_by_its_section(solutions):
    assert reveal.solution_source("9.1") == "answer = 42\ncheck_answer(answer)\n"
    with pytest.raises(reveal.NoSuchSolution, match="has no exercise '9.3'; it has 9.1, 9.2"):
        reveal.solution_source("9.3")
    with pytest.raises(reveal.NoSuchSolution, match="named like"):
        reveal.solution_source("nine")


def test_verifying_runs_in_a_copy_and_leaves_the_learners_names_alone(solutions, capsys):
    names = _names()
    reveal.verify("9.1", reveal.solution_source("9.1"), names)
    assert names["answer"] is ...
    assert capsys.readouterr().out == ""  # the solution's own check line stays out of the cell


def test_a_solution_that_fails_its_check_fails_loudly(solutions):
    with pytest.raises(reveal.SolutionFails, match="exercise 9.2 does not pass its check"):
        reveal.verify("9.2", reveal.solution_source("9.2"), _names())


def test_the_button_shows_no_code_until_clicked(solutions, monkeypatch):
    monkeypatch.delenv("TEACHAGENT_CHECK_SOLUTIONS", raising=False)
    shown = reveal.solution("9.1")
    assert "42" not in repr(shown) and "hidden" in repr(shown)
    assert shown._repr_mimebundle_()["text/plain"] == repr(shown)
    button, output = shown.widget.children
    assert output.outputs == ()
    button.click()
    assert button.description == "Hide the solution"
    button.click()
    assert button.description == "Show the solution"


def test_show_prints_the_code(solutions, capsys, monkeypatch):
    monkeypatch.delenv("TEACHAGENT_CHECK_SOLUTIONS", raising=False)
    assert reveal.solution("9.1", show=True) is None
    assert capsys.readouterr().out == "answer = 42\ncheck_answer(answer)\n"


def test_a_verdict_quoting_text_of_several_lines_is_one_line(capsys):
    def raises():
        raise ValueError("first line\nsecond line")

    check("9.9", raises)
    assert line(capsys) == "exercise 9.9: not yet: your code raised ValueError: first line second line\n"
    check("9.9", lambda: "the answer was\nTwo lines.")
    assert line(capsys) == "exercise 9.9: correct: the answer was Two lines.\n"
