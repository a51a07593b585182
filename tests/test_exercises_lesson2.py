"""The checks of lesson 2's exercises: the gap and wrong answers get "not yet", right ones "correct"."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from learner_objects import AlwaysEqual, LyingInt

from teachagent import ToolCall, read_file_tool, tool
from teachagent.exercises.lesson2 import check_fixed_call, check_refused_before_running, check_to_fahrenheit, check_txt_reader


@tool
def to_fahrenheit(celsius: float) -> str:
    """Convert a temperature from degrees Celsius to degrees Fahrenheit.

    Args:
        celsius: the temperature in degrees Celsius.
    """
    return str(celsius * 9 / 5 + 32)


@tool(name="to_fahrenheit")
def whole_degrees(celsius: int) -> str:
    """Convert a temperature from degrees Celsius to degrees Fahrenheit.

    Args:
        celsius: the temperature in degrees Celsius.
    """
    return str(celsius * 9 / 5 + 32)


@tool(name="to_fahrenheit")
def undescribed(celsius: float) -> str:
    """Convert a temperature from degrees Celsius to degrees Fahrenheit."""
    return str(celsius * 9 / 5 + 32)


@tool(name="to_fahrenheit")
def upside_down(celsius: float) -> str:
    """Convert a temperature from degrees Celsius to degrees Fahrenheit.

    Args:
        celsius: the temperature in degrees Celsius.
    """
    return str((celsius - 32) * 5 / 9)


@tool(name="to_fahrenheit")
def a_number(celsius: float) -> str:
    """Convert a temperature from degrees Celsius to degrees Fahrenheit.

    Args:
        celsius: the temperature in degrees Celsius.
    """
    return celsius * 9 / 5 + 32


@pytest.mark.parametrize("answer, verdict", [
    (..., "not yet: `to_fahrenheit` is still ..."),
    (to_fahrenheit.fn, "not yet: `to_fahrenheit` is a function, not a Tool"),
    (whole_degrees, "not yet: the schema gives `celsius` the type 'integer'"),
    (undescribed, "not yet: `celsius` has no description"),
    (upside_down, "not yet: 100 °C came back as '37.77"),
    (a_number, "not yet: to_fahrenheit(100) failed: tool 'to_fahrenheit' returned float, not str"),
    (to_fahrenheit, "correct: the schema asks for a number `celsius` and describes it; 100 °C → '212.0'"),
])
def test_to_fahrenheit(answer, verdict, said):
    check_to_fahrenheit(answer)
    assert said().startswith(f"exercise 2.1: {verdict}")


@tool
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@tool
def divide(a: float, b: float) -> str:
    """Divide a by b."""
    return str(a / b)


calls = [
    ToolCall("q0", "add", {"a": 1, "b": 2}),
    ToolCall("q1", "add", {"a": 1.5, "b": 2}),
    ToolCall("q2", "Add", {"a": 1, "b": 2}),
    ToolCall("q3", "divide", {"a": 1, "b": 0}),
    ToolCall("q4", "divide", {"a": True, "b": 2}),
    ToolCall("q5", "divide", {"a": 7, "b": 2}),
]


@pytest.mark.parametrize("answer, verdict", [
    (..., "not yet: `refused_before_running` is still ..."),
    ({1, 2, 3, 4}, "not yet: call 3, divide({'a': 1, 'b': 0}), passed the checks and ran, giving 'ZeroDivisionError"),
    ({1, 2}, "not yet: call 4, divide({'a': True, 'b': 2}), was refused before running: the input does not match"),
    ({1, 2, 4, 5}, "not yet: call 5, divide({'a': 7, 'b': 2}), passed the checks and ran, giving '3.5'"),
    ({1, 2, 4, 9}, "not yet: the calls are numbered 0 to 5"),
    ("1, 2, 4", "not yet: write the indexes as a set of whole numbers"),
    ({1, 2, 4}, "correct: refused before running: [1, 2, 4]"),
    ([4, 2, 1], "correct"),
])
def test_refused_before_running(answer, verdict, said):
    check_refused_before_running(answer, calls, [add, divide])
    assert said().startswith(f"exercise 2.2: {verdict}")


@tool
def count_text(text: str, unit: Literal["words", "characters"] = "words") -> str:
    """Count the words or characters in a piece of text."""
    n = len(text.split()) if unit == "words" else len(text)
    return f"{n} {unit}"


wrong = ToolCall("toolu_007", "count_text", {"txt": "To be, or not to be", "unit": "chars"})


@pytest.mark.parametrize("answer, verdict", [
    (..., "not yet: `fixed` is still ..."),
    ({"text": "To be, or not to be", "unit": "characters"}, "not yet: write `fixed` as a ToolCall(id, name, input)"),
    (ToolCall("t2", "count_text", {"text": "To be, or not to be", "unit": "chars"}),
     "not yet: the dispatcher refuses this one too: the input does not match the schema of tool 'count_text'; "
     "it was not run: - input.unit: 'chars' is not one of ['words', 'characters']"),
    (ToolCall("t2", "count_text", {"text": "To be, or not to be"}), "not yet: the model asked for the unit 'chars'"),
    (ToolCall("t2", "count_text", {"text": "to be", "unit": "characters"}), "not yet: the model wanted 'To be, or not to be'"),
    (ToolCall("t2", "count_text", {"text": "To be, or not to be", "unit": "characters"}),
     "correct: the dispatcher ran count_text({'text': 'To be, or not to be', 'unit': 'characters'}) and returned '19"),
])
def test_fixed_call(answer, verdict, said):
    check_fixed_call(answer, wrong, count_text)
    assert said().startswith(f"exercise 2.3: {verdict}")


def txt_only(folder):
    reader = read_file_tool(folder)

    @tool(name="read_file")
    def read_txt(path: str) -> str:
        """Read a .txt file in the folder.

        Args:
            path: the file's path relative to the folder.
        """
        if not path.endswith(".txt"):
            raise ValueError(f"{path!r} is not a .txt file; this tool reads .txt files only")
        return reader.fn(path=path)

    return read_txt


def no_fence(folder):
    @tool(name="read_file")
    def read_txt(path: str) -> str:
        """Read a .txt file in the folder.

        Args:
            path: the file's path relative to the folder.
        """
        if not path.endswith(".txt"):
            raise ValueError("this tool reads .txt files only")
        return (Path(folder) / path).read_text()

    return read_txt


def silent_refusal(folder):
    reader = read_file_tool(folder)

    @tool(name="read_file")
    def read_txt(path: str) -> str:
        """Read a .txt file in the folder.

        Args:
            path: the file's path relative to the folder.
        """
        if not path.endswith(".txt"):
            raise ValueError("no")
        return reader.fn(path=path)

    return read_txt


def gap(folder):
    @tool(name="read_file")
    def read_txt(path: str) -> str:
        """Read a .txt file in the folder."""
        return ...

    return read_txt


def renamed(folder):
    @tool
    def read_txt(filename: str) -> str:
        """Read a .txt file in the folder."""
        return read_file_tool(folder).fn(path=filename)

    return read_txt


@pytest.mark.parametrize("answer, verdict", [
    (lambda folder: ..., "not yet: `txt_reader(folder)` is still ..."),
    (gap, "not yet: `read_txt(path)` is still ..."),
    (renamed, "not yet: the tool should take a `path`"),
    (lambda folder: read_file_tool(folder).fn, "not yet: txt_reader should return a Tool, got function"),
    (read_file_tool, "not yet: it read 'notes.md', which is not a .txt file"),
    (silent_refusal, "not yet: it refused 'notes.md' with 'ValueError: no'"),
    (no_fence, "not yet: it read '../secret.txt', which leads out of the folder"),
    (txt_only, "correct: reads 'todo.txt' and 'plans/week.txt'; refuses 'notes.md' (\"ValueError: 'notes.md' is not a .txt"),
])
def test_txt_reader(answer, verdict, said):
    check_txt_reader(answer)
    assert said().startswith(f"exercise 2.4: {verdict}")


# --- other right styles, and answers a fair teacher would accept (issue 23) ---

def fahrenheit_tool(convert):
    @tool(name="to_fahrenheit")
    def made(celsius: float) -> str:
        """Convert a temperature from degrees Celsius to degrees Fahrenheit.

        Args:
            celsius: degrees Celsius, decimals allowed.
        """
        return convert(celsius)

    return made


@pytest.mark.parametrize("convert", [
    lambda c: f"{c * 9 / 5 + 32:.1f} °F",  # rounded to one decimal: 97.9 °F
    lambda c: f"{c}°C is {c * 1.8 + 32}°F",  # a sentence that states the input first
    lambda c: f"{round(c * 1.8 + 32, 2)} degrees Fahrenheit",
    lambda c: f"{c * 9 / 5 + 32}F",
])
def test_to_fahrenheit_other_right_styles(convert, said):
    check_to_fahrenheit(fahrenheit_tool(convert))
    assert said("2.1").startswith("correct"), convert


@pytest.mark.parametrize("convert, problem", [
    (lambda c: f"{c}°C", "100 °C came back as '100°C', and no number in it is 212 °F"),
    (lambda c: f"{c} °C is {c * 9 / 5} °F", "no number in it is 212 °F"),  # forgot the + 32
    (lambda c: f"{round(c * 9 / 5 + 32)} °F", "36.6 °C came back as '98 °F'"),  # whole degrees: too coarse
])
def test_to_fahrenheit_wrong_values(convert, problem, said):
    check_to_fahrenheit(fahrenheit_tool(convert))
    line = said("2.1")
    assert line.startswith("not yet") and problem in line


@pytest.mark.parametrize("answer", [frozenset({1, 2, 4}), (1, 2, 4), [1.0, 2.0, 4.0]])
def test_refused_before_running_other_right_styles(answer, said):
    check_refused_before_running(answer, calls, [add, divide])
    assert said("2.2").startswith("correct")


class LyingStr(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


class Everything(set):
    def __contains__(self, item):
        return True


def test_hostile_answers_get_one_line(said):
    check_refused_before_running(Everything(), calls, [add, divide])
    assert said("2.2").startswith("not yet: write the indexes as a set")
    check_refused_before_running({LyingInt(1), LyingInt(2), LyingInt(3), LyingInt(4)}, calls, [add, divide])
    assert said("2.2").startswith("not yet: call 3")
    check_refused_before_running({AlwaysEqual()}, calls, [add, divide])
    assert said("2.2").startswith("not yet: `each index` should be a number")
    check_fixed_call(ToolCall("t", "count_text", {"text": LyingStr("anything"), "unit": "characters"}), wrong, count_text)
    assert said("2.3").startswith("not yet: the model wanted 'To be, or not to be'")
    check_to_fahrenheit(AlwaysEqual())
    assert said("2.1").startswith("not yet: `to_fahrenheit` is a AlwaysEqual, not a Tool")


@pytest.mark.parametrize("answer", [
    ToolCall("toolu_008", "count_text", {"unit": "characters", "text": "To be, or not to be"}),
    ToolCall("anything", "count_text", {"text": wrong.input["txt"], "unit": "characters"}),
    ToolCall(id="x", name="count_text", input={"text": "To be, or not to be", "unit": "characters"}),
])
def test_fixed_call_other_right_styles(answer, said):
    check_fixed_call(answer, wrong, count_text)
    assert said("2.3").startswith("correct")


def returns_the_refusal(folder):
    reader = read_file_tool(folder)

    @tool(name="read_file")
    def read_txt(path: str) -> str:
        """Read a .txt file in the folder.

        Args:
            path: the file's path relative to the folder.
        """
        if not path.endswith(".txt"):
            return "Error: this tool reads .txt files only"
        return reader.fn(path=path)

    return read_txt


def suffix_check(folder):
    reader = read_file_tool(folder)

    @tool(name="read_file")
    def read_txt(path: str) -> str:
        """Read a .txt file in the folder.

        Args:
            path: the file's path relative to the folder.
        """
        if Path(path).suffix.lower() != ".txt":
            raise PermissionError(f"only .txt files may be read, and {path} is not one")
        return reader.fn(path=path)

    return read_txt


def own_fence(folder):
    root = Path(folder).resolve()

    @tool(name="read_file")
    def read_txt(path: str) -> str:
        """Read a .txt file in the folder.

        Args:
            path: the file's path relative to the folder.
        """
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            raise ValueError(f"{path} is outside the folder")
        if target.suffix != ".txt":
            raise ValueError("this tool reads .txt files only")
        return target.read_text()

    return read_txt


def test_txt_reader_says_raise_dont_return(said):
    check_txt_reader(returns_the_refusal)
    line = said("2.4")
    assert line.startswith("not yet: for 'notes.md' your tool returned 'Error: this tool reads .txt files only'")
    assert "raise an exception" in line and "don't return the message" in line and "it read" not in line


@pytest.mark.parametrize("answer", [suffix_check, own_fence])
def test_txt_reader_other_right_styles(answer, said):
    check_txt_reader(answer)
    assert said("2.4").startswith("correct")


def test_txt_reader_that_exits_is_one_line(said):
    def exits(folder):
        import sys

        sys.exit("bye")

    check_txt_reader(exits)
    assert said("2.4").startswith("not yet: your code called sys.exit()")


@pytest.mark.parametrize("question, right, wrong_letters",
                         [("2.1", "c", "ab"), ("2.2", "a", "bc"), ("2.3", "b", "ac"), ("2.4", "c", "ab")])
def test_quiz(question, right, wrong_letters, capsys):
    from teachagent.exercises import quiz

    for choice in (right, right.upper(), f"{right}."):
        quiz(question, choice)
        assert capsys.readouterr().out.startswith(f"quiz {question}: correct: ({right})")
    for choice in wrong_letters:
        quiz(question, choice)
        assert capsys.readouterr().out.startswith(f"quiz {question}: not yet: ({choice}) is not it")
    for hostile in (AlwaysEqual(), LyingStr("q"), 2, ...):
        quiz(question, hostile)
        out = capsys.readouterr().out
        assert out.startswith(f"quiz {question}: not yet") and out.count("\n") == 1
