"""Checks for the exercises and the quiz of notebooks/02_tools.ipynb.

Every check sends tool calls through a real `Dispatcher`, as a model's calls would go.
The reference solutions are in solutions/lesson2.py.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..base.display import one_line
from ..dispatch import Dispatcher
from ..messages import ToolCall, ToolResult
from ..tools import Tool
from .checks import check, close, describe, expect, filled, numbers_in, text, whole
from .lesson8 import SAMPLE_NOTES as SAMPLE_NOTES  # the houseplant notes, on which this lesson measures a real model
from .quizzes import Question


def check_to_fahrenheit(to_fahrenheit: Tool) -> None:
    """2.1: a tool made with @tool whose schema asks for a described number `celsius`, and which converts it."""

    def test() -> str:
        made = filled(to_fahrenheit, "to_fahrenheit")
        expect(isinstance(made, Tool),
               f"`to_fahrenheit` is a {type(made).__name__}, not a Tool: put @tool on the line above `def`")
        expect(made.name == "to_fahrenheit", f"the tool is named {made.name!r}; name the function to_fahrenheit")
        parameters = made.input_schema.get("properties", {})
        expect(list(parameters) == ["celsius"],
               f"the tool should take one parameter, `celsius`; its schema has {list(parameters)}")
        celsius = parameters["celsius"]
        expect(celsius.get("type") == "number",
               f"the schema gives `celsius` the type {celsius.get('type')!r}; a temperature such as 36.6 needs 'number'")
        expect("celsius" in made.input_schema.get("required", []), "`celsius` should be required: give it no default")
        expect(bool(celsius.get("description")),
               "`celsius` has no description: describe it in an `Args:` section of the docstring, for the model to read")
        run = Dispatcher([made])
        shown = []
        # the exercise's three temperatures, and two it does not name, so a table of its answers cannot pass
        for degrees, wanted in [(100, 212), (-40, -40), (36.6, 97.88), (0, 32), (21.5, 70.7)]:
            result = run(ToolCall("t", made.name, {"celsius": degrees}))
            expect(not result.is_error, f"to_fahrenheit({degrees}) failed: {one_line(result.content, 300)}")
            stated = fahrenheit_stated(result.content, degrees)
            expect(any(close(n, wanted, abs=0.05) for n in stated),
                   f"{degrees} °C came back as {one_line(result.content, 120)!r}, and no number in it is "
                   f"{wanted} °F (to one decimal place)")
            expect(all(close(n, wanted, abs=0.05) for n in stated),
                   f"{degrees} °C came back as {one_line(result.content, 120)!r}, which states more than one "
                   f"temperature in °F: give the model one answer, {wanted} °F")
            shown.append(f"{degrees} °C → {result.content!r}")
        return f"the schema asks for a number `celsius` and describes it; {', '.join(shown[:2])}"

    check("2.1", test)


def fahrenheit_stated(answer: str, celsius: float | None = None) -> list[float]:
    """The numbers an answer gives in °F: those written with °F, F or Fahrenheit after them, else every number
    but the `celsius` it was asked about (an answer may repeat the question).

    So "97.9 °F", "212.0", "100 -> 212.0" and "100°C is 212.0°F" are each read where they state the result,
    and "212, -40 or 97.88" states three answers, of which at most one can be right.
    """
    spaced = re.sub(r"(?<=\d)(?=[°A-Za-z])", " ", answer)  # "212.0°F" → "212.0 °F", so the number reads alone
    labelled = [m[1] for m in re.finditer(r"(\S+)\s*(?:°\s*F|F\b|degrees? Fahrenheit|Fahrenheit)", spaced)]
    stated = [n for word in labelled for n in numbers_in(word)]
    if stated:
        return stated
    every = numbers_in(re.sub(r"\S+\s*(?:°\s*C|C\b|degrees? Celsius|Celsius)", " ", spaced))  # "100 °C" is the question
    others = [n for n in every if celsius is None or not close(n, celsius, abs=1e-9)]
    return others or every


def check_refused_before_running(refused: Iterable[int], calls: list[ToolCall], tools: list[Tool]) -> None:
    """2.2: the indexes of the `calls` that a dispatcher of `tools` refuses without running a procedure."""

    def test() -> str:
        given = filled(refused, "refused_before_running")
        expect(type(given) in (set, frozenset, list, tuple),
               f"write the indexes as a set of whole numbers, such as {{0, 3}}; not {describe(given)}")
        predicted = {whole(i, "each index") for i in given}
        expect(all(0 <= i < len(calls) for i in predicted),
               f"the calls are numbered 0 to {len(calls) - 1}; you wrote {sorted(predicted)}")
        ran = []

        def counted(t: Tool) -> Tool:
            def fn(**tool_input: Any) -> str:
                ran.append(t.name)
                return t.fn(**tool_input)

            return Tool(t.name, t.description, t.input_schema, fn, t.timeout)

        dispatcher = Dispatcher([counted(t) for t in tools])
        for i, c in enumerate(calls):
            before = len(ran)
            result = dispatcher(c)
            was_refused = len(ran) == before
            what = (f"was refused before running: {one_line(result.content, 300)}" if was_refused
                    else f"passed the checks and ran, giving {result.content!r}")
            expect(was_refused == (i in predicted), f"call {i}, {c.name}({c.input}), {what}")
        return f"refused before running: {sorted(set(predicted))}; the other calls ran their procedure"

    check("2.2", test)


def check_fixed_call(fixed: ToolCall, wrong: ToolCall, count_text: Tool) -> None:
    """2.3: after reading the dispatcher's error for `wrong`, the call that counts what it meant to count."""

    def test() -> str:
        given = filled(fixed, "fixed")
        expect(isinstance(given, ToolCall), f"write `fixed` as a ToolCall(id, name, input), like `wrong`; got {describe(given)}")
        expect(isinstance(given.input, dict) and isinstance(given.name, str),
               "`fixed` should keep a name (text) and an input (a dict), like `wrong`")
        # judged on a plain copy, read through dict's own methods: a dict subclass whose .get lies is read as what it holds
        call = ToolCall(str.__str__(given.id) if isinstance(given.id, str) else "fixed", str.__str__(given.name),
                        {text(k, "an input key"): v for k, v in dict.items(given.input)})
        result = Dispatcher([count_text])(call)
        expect(not result.is_error, f"the dispatcher refuses this one too: {one_line(result.content, 300)}")
        expect(text(call.input.get("text"), "the text") == wrong.input["txt"],
               f"the model wanted {wrong.input['txt']!r} counted; send that text")
        unit = call.input.get("unit")
        expect(isinstance(unit, str) and text(unit, "the unit") == "characters",
               f"the model asked for the unit {wrong.input['unit']!r}: which of the units the schema allows is that?")
        return f"the dispatcher ran {call.name}({call.input}) and returned {result.content!r}"

    check("2.3", test)


def check_txt_reader(txt_reader: Callable[[Path], Tool]) -> None:
    """2.4: `txt_reader(folder)` makes a tool that reads .txt files inside `folder`, and nothing else."""

    def test() -> str:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "shelf"
            (folder / "plans").mkdir(parents=True)
            (folder / "todo.txt").write_text("Book the room.")
            (folder / "plans" / "week.txt").write_text("Monday: lunch for 12.")
            (folder / "notes.md").write_text("# Notes")
            (Path(tmp) / "secret.txt").write_text("the password is swordfish")
            (folder / "shortcut.txt").symlink_to(Path(tmp) / "secret.txt")

            made = filled(txt_reader(folder), "txt_reader(folder)")
            expect(isinstance(made, Tool), f"txt_reader should return a Tool, got {type(made).__name__}")
            expect("path" in made.input_schema.get("properties", {}), "the tool should take a `path`, as read_file does")
            filled(made.fn(path="todo.txt"), f"{getattr(made.fn, '__name__', made.name)}(path)")
            run = Dispatcher([made])

            def read(path: str) -> ToolResult:
                return run(ToolCall("t", made.name, {"path": path}))

            for path in ["todo.txt", "plans/week.txt"]:
                result = read(path)
                expect(not result.is_error and result.content == (folder / path).read_text(),
                       f"reading {path!r} gave {one_line(result.content, 300)!r} instead of the file's text")
            refusal = read("notes.md")
            refused(refusal, "notes.md", "# Notes", "which is not a .txt file")
            expect(".txt" in refusal.content,
                   f"it refused 'notes.md' with {refusal.content!r}: tell the model it reads .txt files only")
            for path in ["../secret.txt", "shortcut.txt"]:
                refused(read(path), path, "the password is swordfish",
                        "which leads out of the folder: keep read_file_tool's fence")
        return (f"reads 'todo.txt' and 'plans/week.txt'; refuses 'notes.md' ({refusal.content!r}), "
                "'../secret.txt' and 'shortcut.txt'")

    check("2.4", test)


def refused(result: Any, path: str, its_text: str, why: str) -> None:
    """`result` must be an error; if it is not, say whether the tool read the file or returned its refusal as text."""
    if result.is_error:
        return
    expect(result.content != its_text, f"it read {path!r}, {why}")
    expect(False, f"for {path!r} your tool returned {one_line(result.content, 100)!r} as an ordinary result, so the "
                  "dispatcher passes it on as if it were the file's text: raise an exception (raise ValueError(...)) "
                  "to refuse, don't return the message")


QUIZ = {
    "2.1": Question(
        answer="c",
        right="the model only writes the call; our dispatcher checks it against the schema and runs the procedure",
        wrong={"a": "nothing in a model can run code: it writes text (a tool_use block) and waits for the result",
               "b": "the kernel runs the procedure because our code calls it; the model never touches the kernel"}),
    "2.2": Question(
        answer="a",
        right="the input fails the schema, so the procedure never runs and the model gets an error it can act on",
        wrong={"b": "the dispatcher checks before it runs anything, and a tool that raises becomes an error result too",
               "c": "JSON Schema checks types; it does not guess what a value was meant to be"}),
    "2.3": Question(
        answer="b",
        right="the spec (name, description, schema) travels in the tools parameter of every request",
        wrong={"a": "the bill counts tokens; the specs are simply tokens sent with every request",
               "c": "the model never sees the procedure: only its name, description and schema"}),
    "2.4": Question(
        answer="c",
        right="a no is one more error result: the model reads that the call was not approved and decides what to do next",
        wrong={"a": "nothing raises: like a bad input, a refusal becomes a ToolResult with is_error=True (section 8)",
               "b": "the schema says the input is well formed; only the person's yes lets an ask_first tool run"}),
}
