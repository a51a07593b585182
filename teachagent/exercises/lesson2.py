"""Checks for the exercises of notebooks/02_tools.ipynb.

Every check sends tool calls through a real `Dispatcher`, as a model's calls would go.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..base.display import one_line
from ..dispatch import Dispatcher
from ..messages import ToolCall
from ..tools import Tool
from . import check, expect, filled


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
        for degrees, wanted in [(100, 212), (-40, -40), (36.6, 97.88)]:
            result = run(ToolCall("t", made.name, {"celsius": degrees}))
            expect(not result.is_error, f"to_fahrenheit({degrees}) failed: {one_line(result.content, 300)}")
            number = re.search(r"-?\d+(\.\d+)?", result.content)
            expect(number is not None and abs(float(number[0]) - wanted) < 0.01,
                   f"{degrees} °C came back as {result.content!r}, which is not {wanted} °F")
            shown.append(f"{degrees} °C → {result.content!r}")
        return f"the schema asks for a number `celsius` and describes it; {', '.join(shown[:2])}"

    check("2.1", test)


def check_refused_before_running(refused: Iterable[int], calls: list[ToolCall], tools: list[Tool]) -> None:
    """2.2: the indexes of the `calls` that a dispatcher of `tools` refuses without running a procedure."""

    def test() -> str:
        predicted = filled(refused, "refused_before_running")
        expect(isinstance(predicted, (set, list, tuple)) and all(isinstance(i, int) for i in predicted),
               f"write the indexes as a set of whole numbers, such as {{0, 3}}; got {predicted!r}")
        expect(all(0 <= i < len(calls) for i in predicted), f"the calls are numbered 0 to {len(calls) - 1}; got {predicted!r}")
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
        call = filled(fixed, "fixed")
        expect(isinstance(call, ToolCall), f"write `fixed` as a ToolCall(id, name, input), like `wrong`; got {call!r}")
        result = Dispatcher([count_text])(call)
        expect(not result.is_error, f"the dispatcher refuses this one too: {one_line(result.content, 300)}")
        expect(call.input.get("text") == wrong.input["txt"], f"the model wanted {wrong.input['txt']!r} counted; send that text")
        expect(call.input.get("unit") == "characters",
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

            def read(path: str):
                return run(ToolCall("t", made.name, {"path": path}))

            for path in ["todo.txt", "plans/week.txt"]:
                result = read(path)
                expect(not result.is_error and result.content == (folder / path).read_text(),
                       f"reading {path!r} gave {one_line(result.content, 300)!r} instead of the file's text")
            refusal = read("notes.md")
            expect(refusal.is_error, "it read 'notes.md', which is not a .txt file")
            expect(".txt" in refusal.content,
                   f"it refused 'notes.md' with {refusal.content!r}: tell the model it reads .txt files only")
            for path in ["../secret.txt", "shortcut.txt"]:
                expect(read(path).is_error, f"it read {path!r}, which leads out of the folder: keep read_file_tool's fence")
        return (f"reads 'todo.txt' and 'plans/week.txt'; refuses 'notes.md' ({refusal.content!r}), "
                "'../secret.txt' and 'shortcut.txt'")

    check("2.4", test)
