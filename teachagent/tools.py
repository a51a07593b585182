"""Tools: how an agent acts on the world (introduced in notebooks/02_tools.ipynb).

A model can only write text. To let it do anything else we give it tools, and a tool
has four parts: a unique `name`, a `description` saying what it does, a parameter
schema (a JSON schema) saying what input it takes, and a procedure (`fn`) that does
the work. The first three go into the prompt, so the model knows the tool exists and
how to call it. The procedure stays with us: the model only *writes* a call, a name
plus an input, and our code decides whether to run it (see dispatch.py).

`@tool` builds a `Tool` from an ordinary function, reading the schema off its type
hints and its docstring (schema.py does the reading), so what the model is told and the
code that runs cannot drift apart. `read_file_tool` is the first real tool of the course: it reads text files in
one folder and refuses everything outside it.
"""

from __future__ import annotations

import codecs
import inspect
import itertools
import os
import re
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

from .base.display import shorten
from .base.errors import check_number
from .base.schema import parse_docstring, schema_from_signature

TOOL_TIMEOUT = 10.0  # seconds a tool may run before the dispatcher reports it as failed
MAX_TOOL_TIMEOUT = 24 * 3600.0  # a day; for longer, or no limit, give timeout=None

# What the Messages API accepts as a tool name.
NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"


@dataclass(repr=False)
class Tool:
    """One tool: what the model is told (`spec`) and what we run (`fn`).

    `fn` is called with the model's input as keyword arguments and must return text,
    because text is all the model can read. A call that runs longer than `timeout`
    seconds is reported to the model as failed (None means no limit).
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    fn: Callable[..., str]
    timeout: float | None = TOOL_TIMEOUT

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

    @property
    def spec(self) -> dict[str, Any]:
        """What goes into the prompt: everything about the tool except the code that runs it."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}

    def __repr__(self) -> str:
        parameters = list(self.input_schema.get("properties", {}))
        return f"Tool(name={self.name!r}, parameters={parameters})"


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
) -> Tool: ...


@overload
def tool(
    fn: None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    schema: dict[str, Any] | None = None,
    timeout: float | None = TOOL_TIMEOUT,
) -> Callable[[Callable[..., str]], Tool]: ...


def tool(
    fn: Callable[..., str] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    schema: dict[str, Any] | None = None,
    timeout: float | None = TOOL_TIMEOUT,
) -> Tool | Callable[[Callable[..., str]], Tool]:
    """Make a `Tool` from a function: `@tool` or `@tool(name=..., timeout=...)`.

    The name is the function's name, the description is the first paragraph of its
    docstring, and the schema comes from its type hints, with each parameter described
    by its line in the docstring's `Args:` section. Pass `schema=` to write the whole
    schema yourself, for instance when a parameter's type has no JSON-schema form here.
    """
    if fn is not None and not callable(fn):
        raise TypeError(f"@tool decorates a function, got {fn!r}; to choose a name write @tool(name=...)")

    def make(f: Callable[..., str]) -> Tool:
        summary, arg_docs = parse_docstring(inspect.getdoc(f))
        return Tool(
            name=name if name is not None else f.__name__,
            description=description if description is not None else summary,
            input_schema=schema if schema is not None else schema_from_signature(f, arg_docs),
            fn=f,
            timeout=timeout,
        )

    return make(fn) if fn is not None else make


# --- the first tool: reading files in one folder ------------------------------------


def read_file_tool(root: str | Path, max_chars: int = 20_000, name: str = "read_file") -> Tool:
    """A tool that reads UTF-8 text files inside the folder `root`, and nothing else.

    Paths are relative to `root`. Absolute paths, `..` and symlinks that lead out of the
    folder are refused, and so is anything that is not a regular file (a pipe, a device).
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

    @tool(name=name)
    def read_file(path: str) -> str:
        """Read a UTF-8 text file and return its text. Very long files are cut, with a note saying how much is missing.

        Args:
            path: the file's path relative to the folder this tool reads, such as 'notes.txt' or 'docs/intro.md'.
        """
        return _read_text(folder, path, max_chars)

    return read_file


def _read_text(folder: Path, path: str, max_chars: int) -> str:
    """The text of the file at `path` inside `folder`, or a ValueError worded for the model.

    Three promises, each kept by how the file is opened rather than by a check beside it:
    - only a file inside `folder` is read: the open file itself is asked where it lives
      (`_where`), so a folder swapped for a symlink after our look at the path is caught;
    - only a regular file is read: the file is opened without waiting (a FIFO would block
      a plain open for good) and refused unless the open file is a regular one;
    - at most `WHOLE_UP_TO` bytes or about `4 * max_chars` (a UTF-8 character is 1 to 4
      bytes), whichever is more, are read, so a huge or sparse file costs no more than a
      small one. A file within that is read whole, and the note says exactly how much was cut.
    """
    shown = repr(shorten(path, 100))
    if Path(path).anchor:
        raise ValueError(f"path {shown} is absolute; use a path relative to the folder, such as 'notes.txt'")
    outside = f"path {shown} is outside the folder this tool may read; use a path relative to it, such as 'notes.txt'"
    try:
        target = (folder / path).resolve()  # follows symlinks, so a link cannot lead out unnoticed
    except (ValueError, RuntimeError, OSError):  # a NUL character in the path, or a symlink loop
        raise ValueError(f"path {shown} cannot be opened; use a plain relative path, such as 'notes.txt'") from None
    if not target.is_relative_to(folder):
        raise ValueError(outside)

    try:
        fd = os.open(target, os.O_RDONLY | OPEN_FLAGS)
    except FileNotFoundError:
        available = _some_files(folder)
        listing = f"; files you can read include: {', '.join(available)}" if available else "; the folder is empty"
        raise ValueError(f"there is no file {shown}{listing}") from None
    except IsADirectoryError:
        raise ValueError(f"{shown} is a folder, not a file; give the path of a file inside it") from None
    except OSError as exc:  # ELOOP: the last part became a symlink after resolve(); ENXIO: a socket
        raise ValueError(f"could not read {shown}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not _where(fd, target, info).is_relative_to(folder):
            raise ValueError(outside)
        if stat.S_ISDIR(info.st_mode):
            raise ValueError(f"{shown} is a folder, not a file; give the path of a file inside it")
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{shown} is not a regular file (a pipe, device or socket); this tool reads text files only")
        data, whole = _read_at_most(fd, max(4 * (max_chars + 1), WHOLE_UP_TO))
    except OSError as exc:
        raise ValueError(f"could not read {shown}: {exc.strerror}") from None
    finally:
        os.close(fd)

    try:  # a cut may fall inside a character: the decoder keeps those bytes back instead of failing
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=whole)
    except UnicodeDecodeError:
        raise ValueError(f"{shown} is not a UTF-8 text file; this tool reads text files only") from None

    if len(text) > max_chars:
        size = f"of its {len(text):,} characters" if whole else f"of the file's {info.st_size:,} bytes"
        left_out = f"{len(text) - max_chars:,} {size}" if whole else f"the rest {size}"
        kept = f"only the first {max_chars:,} are shown" if whole else f"only its first {max_chars:,} characters are shown"
        text = f"{text[:max_chars]}\n\n[the file was cut here: {left_out} were left out; {kept}]"
    return text


WHOLE_UP_TO = 2**20  # bytes: a file this small is read whole, however few characters are shown

# Open without following a symlink in the last part of the path (resolve() already followed the
# ones that stay inside) and without waiting for a writer, which a FIFO would do. Windows has neither.
OPEN_FLAGS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def _where(fd: int, target: Path, info: os.stat_result) -> Path:
    """The real path of the open file `fd`, asked of the system, so no swap after the open can fool it.

    Linux answers through /proc/self/fd and macOS through fcntl(F_GETPATH). Elsewhere (Windows)
    we can only check that `target` still names the same file we opened; a swap in the moment
    between that check and the open is then not caught, and Windows needs privileges to make
    symlinks at all.
    """
    proc = Path(f"/proc/self/fd/{fd}")
    if sys.platform.startswith("linux") and proc.is_symlink():
        return Path(os.readlink(proc))
    if sys.platform == "darwin":
        import fcntl

        return Path(fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024)).rstrip(b"\0").decode(errors="surrogateescape"))
    now = os.stat(target)
    return target if (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino) else Path("/")


def _read_at_most(fd: int, limit: int) -> tuple[bytes, bool]:
    """Up to `limit` bytes from `fd`, and whether that was the whole file."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, min(limit - size, 1 << 16))
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), os.read(fd, 1) == b""


def _some_files(folder: Path, limit: int = 10) -> list[str]:
    """A few files inside `folder` the model could ask for instead (looks at 1,000 entries at most)."""
    found = [
        p.relative_to(folder).as_posix()
        for p in itertools.islice(folder.rglob("*"), 1000)
        if p.is_file() and p.resolve().is_relative_to(folder)
    ]
    return sorted(found)[:limit]
