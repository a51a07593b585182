"""Tools: how an agent acts on the world (introduced in notebooks/02_tools.ipynb).

A model can only write text. To let it do anything else we give it tools, and a tool
has four parts: a unique `name`, a `description` saying what it does, a parameter
schema (a JSON schema) saying what input it takes, and a procedure (`fn`) that does
the work. The first three go into the prompt, so the model knows the tool exists and
how to call it. The procedure stays with us: the model only *writes* a call, a name
plus an input, and our code decides whether to run it (see dispatch.py).

`@tool` builds a `Tool` from an ordinary function, reading the schema off its type
hints and its docstring (base/schema.py does the reading), so what the model is told and the
code that runs cannot drift apart. `read_file_tool` is the first real tool of the course: it reads text files in
one folder and refuses everything outside it (base/files.py keeps that promise against hostile paths).
A tool that changes something (writes a file, sends a message) is made with `ask_first=True`: the
dispatcher then runs it only after a person said yes (see dispatch.py).

A parameter whose values can be listed (a `Literal[...]` hint) becomes a JSON-schema `enum`. When
the values are known only at run time (the notes in a folder), `choices` gives a function that lists
them: each run's spec carries the list as it is then, so a model held to the schema by a grammar can
only name something that exists.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

from .base.display import shorten
from .base.errors import A_DAY, check_number
from .base.files import files_inside, read_text_inside
from .base.schema import ToolDefinitionError, parse_docstring, schema_from_signature

TOOL_TIMEOUT = 10.0  # seconds a tool may run before the dispatcher reports it as failed
MAX_TOOL_TIMEOUT = float(A_DAY)  # a day; for longer, or no limit, give timeout=None

# What the Messages API accepts as a tool name.
NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"


@dataclass(repr=False)
class Tool:
    """One tool: what the model is told (`spec`) and what we run (`fn`).

    `fn` is called with the model's input as keyword arguments and must return text,
    because text is all the model can read. A call that runs longer than `timeout`
    seconds is reported to the model as failed (None means no limit). With `ask_first`,
    the dispatcher asks a person before each run, because the tool changes something.
    `choices` maps a parameter to a function listing the values it may take now: the spec
    (`spec`, read afresh by each run) gives that parameter an `enum` of them.
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    fn: Callable[..., str]
    timeout: float | None = TOOL_TIMEOUT
    ask_first: bool = False
    choices: dict[str, Callable[[], list[str]]] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not re.fullmatch(NAME_PATTERN, self.name):
            raise ValueError(
                f"tool name must be 1 to 64 letters, digits, '_' or '-' (the Messages API rule), got {self.name!r}"
            )
        if not isinstance(self.description, str) or not self.description.strip():
            raise ValueError(
                f"tool {self.name!r} needs a description: the model reads it to decide when to use the tool"
            )
        if not isinstance(self.input_schema, dict) or self.input_schema.get("type") != "object":
            raise ValueError(
                f"the input_schema of tool {self.name!r} must be a JSON schema for an object, like "
                f"{{'type': 'object', 'properties': {{...}}}}; got {self.input_schema!r}"
            )
        if not callable(self.fn):
            raise TypeError(f"the fn of tool {self.name!r} must be callable, got {self.fn!r}")
        check_timeout(self.name, self.timeout)
        if not isinstance(self.ask_first, bool):
            raise TypeError(f"ask_first of tool {self.name!r} must be True or False, got {self.ask_first!r}")
        for parameter, lister in (self.choices or {}).items():
            if parameter not in self.input_schema.get("properties", {}) or not callable(lister):
                raise ValueError(f"choices of tool {self.name!r} must map its parameters to functions listing their "
                                 f"values; {parameter!r} is {'not a parameter' if callable(lister) else 'given no function'}")

    @property
    def spec(self) -> dict[str, Any]:
        """What goes into the prompt: everything about the tool except the code that runs it (with the
        values each parameter of `choices` may take now)."""
        return {"name": self.name, "description": self.description, "input_schema": self.schema_now()}

    def schema_now(self) -> dict[str, Any]:
        """The input schema, with each parameter of `choices` held to an enum of the values its function lists now."""
        if not self.choices:
            return self.input_schema
        properties = dict(self.input_schema["properties"])
        for parameter, lister in self.choices.items():
            values = lister()
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise TypeError(f"the choices of {self.name}({parameter}) must be a list of str, got {shorten(repr(values), 80)}")
            properties[parameter] = {**properties[parameter], "enum": values}
        return {**self.input_schema, "properties": properties}

    def __repr__(self) -> str:
        parameters = list(self.input_schema.get("properties", {}))
        asks = ", ask_first=True" if self.ask_first else ""
        return f"Tool(name={self.name!r}, parameters={parameters}{asks})"


def check_timeout(name: str, timeout: float | None) -> None:
    """Refuse a timeout the dispatcher cannot wait for: not a number, not above 0, or absurdly long."""
    if timeout is not None:
        check_number(f"the timeout of tool {name!r}", timeout, above=0, at_most=MAX_TOOL_TIMEOUT, unit="seconds (or None)")


@overload
def tool(
    fn: Callable[..., str],
    *,
    name: str | None = None,
    description: str | None = None,
    schema: dict[str, Any] | None = None,
    timeout: float | None = TOOL_TIMEOUT,
    ask_first: bool = False,
    choices: dict[str, Callable[[], list[str]]] | None = None,
) -> Tool: ...


@overload
def tool(
    fn: None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    schema: dict[str, Any] | None = None,
    timeout: float | None = TOOL_TIMEOUT,
    ask_first: bool = False,
    choices: dict[str, Callable[[], list[str]]] | None = None,
) -> Callable[[Callable[..., str]], Tool]: ...


def tool(
    fn: Callable[..., str] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    schema: dict[str, Any] | None = None,
    timeout: float | None = TOOL_TIMEOUT,
    ask_first: bool = False,
    choices: dict[str, Callable[[], list[str]]] | None = None,
) -> Tool | Callable[[Callable[..., str]], Tool]:
    """Make a `Tool` from a function: `@tool` or `@tool(name=..., timeout=..., ask_first=..., choices=...)`.

    The name is the function's name, the description is the first paragraph of its
    docstring, and the schema comes from its type hints, with each parameter described
    by its line in the docstring's `Args:` section. Pass `schema=` to write the whole
    schema yourself, for instance when a parameter's type has no JSON-schema form here.
    """
    if fn is not None and not callable(fn):
        raise TypeError(f"@tool decorates a function, got {fn!r}; to choose a name write @tool(name=...)")

    def make(f: Callable[..., str]) -> Tool:
        summary, arg_docs = parse_docstring(inspect.getdoc(f))
        if description is None and not summary:
            raise ToolDefinitionError(
                f"{getattr(f, '__name__', 'the function')}() has no docstring, and the model reads it to decide when to "
                "use the tool: write one on the line under `def`, such as \"\"\"Convert a temperature to Fahrenheit.\"\"\""
            )
        return Tool(
            name=name if name is not None else f.__name__,
            description=description if description is not None else summary,
            input_schema=schema if schema is not None else schema_from_signature(f, arg_docs),
            fn=f,
            timeout=timeout,
            ask_first=ask_first,
            choices=choices,
        )

    return make(fn) if fn is not None else make


# --- the first tool: reading files in one folder ------------------------------------


def read_file_tool(root: str | Path, max_chars: int = 20_000, name: str = "read_file", list_files: bool = False) -> Tool:
    """A tool that reads UTF-8 text files inside the folder `root`, and nothing else.

    Paths are relative to `root`. Absolute paths, `..` and symlinks that lead out of the
    folder are refused, and so is anything that is not a regular file (a pipe, a device).
    With `list_files`, the `path` parameter's choices are the files in the folder when a
    run starts: a model held to the schema can then only name a file that exists.
    A file longer than `max_chars` is cut with a note saying so; only its beginning is
    ever read from disk, so a huge file costs no more than a small one.
    Every refusal is an exception with a message written for the model, which the
    dispatcher sends back to it as an error result.
    """
    folder = Path(root).expanduser().resolve()  # fixed once, so changing directory later changes nothing
    if not folder.exists():
        raise FileNotFoundError(f"read_file_tool: the folder {str(root)!r} does not exist")
    if not folder.is_dir():
        raise NotADirectoryError(f"read_file_tool: {str(root)!r} is a file; give the folder the tool may read")
    check_number("read_file_tool: max_chars", max_chars, whole=True, at_least=1, at_most=10_000_000)

    @tool(name=name, choices={"path": lambda: files_inside(folder)} if list_files else None)
    def read_file(path: str) -> str:
        """Read a UTF-8 text file and return its text. Very long files are cut, with a note saying how much is missing.

        Args:
            path: the file's path relative to the folder this tool reads, such as 'notes.txt' or 'docs/intro.md'.
        """
        return read_text_inside(folder, path, max_chars)

    return read_file
