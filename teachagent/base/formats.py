"""The course's own files, read strictly and written whole (saved runs: notebooks/03_agent_loop.ipynb).

A saved run and a cassette are JSON that a person can open, edit, truncate or mistype.
Before any of it is used, the text goes through three checks, so that a damaged file
is one clear error naming the line and the field, never a crash deep inside the course:

1. it is a regular, non-empty UTF-8 file of a sane size (a folder, a FIFO or a 10 GB
   file is refused before anything is read);
2. it is strict JSON: Python's `json` accepts NaN, Infinity, 1e999 and numbers of any
   length, and recurses once per bracket; these are refused, and the nesting is
   counted before `json.loads` runs;
3. it matches the format's JSON Schema, shipped in teachagent/base/schemas/.

Writing goes to a new file in the same folder, renamed over the old one only when it is
whole, so a failed save leaves the old file exactly as it was.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .display import shorten
from .errors import CourseError
from .schema import load_jsonschema

MAX_BYTES = 200_000_000  # a saved file larger than this is refused unread; the largest lesson cassette is ~1 MB
MAX_DEPTH = 100  # brackets inside brackets; a course file needs about 15, json.loads would crash near 1,000
MAX_DIGITS = 300  # a whole number longer than this is no count of anything (a float stops near 1e308)

_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_BETWEEN = re.compile(r"[ \t\n\r,:]*")  # what separates JSON values and keys
_validators: dict[str, Any] = {}  # one compiled validator per schema file


class FormatError(CourseError, ValueError):
    """A file is not what its format says; the message names the file, the line and the field."""


class _Refused:
    """Stands in for a number JSON allows but a course file must not hold: NaN, an infinity, a huge number."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return shorten(self.text, 40)


def read_text(path: str | Path, what: str) -> str:
    """The text of the file at `path`, or a `FormatError` saying why it cannot be `what` (e.g. "a saved run")."""
    shown = repr(str(path))
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat below then refuses it
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FormatError(f"there is no file at {shown}") from None
    except ValueError:  # a NUL character, which no path can hold
        raise FormatError(f"{shown} is not a path a file can have") from None
    except OSError as error:
        raise FormatError(f"{shown} cannot be read: {error.strerror}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FormatError(f"{shown} is a folder, not {what}")
        if not stat.S_ISREG(info.st_mode):
            raise FormatError(f"{shown} is not a regular file, so it is not {what}")
        chunks: list[bytes] = []
        while sum(map(len, chunks)) <= MAX_BYTES and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_BYTES:
        raise FormatError(f"{shown} holds more than {MAX_BYTES:,} bytes, more than {what} ever does")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise FormatError(f"{shown} is not {what}: it is not UTF-8 text (line {line})") from None
    if not text.strip():
        raise FormatError(f"{shown} is not {what}: it is empty")
    return text


def parse(text: str, schema: str, line: int = 1) -> Any:
    """The JSON value in `text`, refused unless it is strict JSON matching teachagent/base/schemas/<schema>.schema.json.

    `line` is the line of the file on which `text` starts, so that errors name the file's line.
    """
    _check_depth(text, line)
    refused: list[_Refused] = []

    def refuse(number: str) -> Any:
        refused.append(_Refused(number))
        return refused[-1]

    def whole(number: str) -> Any:
        return int(number) if len(number.lstrip("-")) <= MAX_DIGITS else refuse(number)

    def real(number: str) -> Any:
        value = float(number)
        return value if math.isfinite(value) else refuse(number)

    try:
        data = json.loads(text, parse_constant=refuse, parse_int=whole, parse_float=real)
    except json.JSONDecodeError as error:
        raise FormatError(f"line {line + error.lineno - 1}: not valid JSON ({error.msg}, column {error.colno})") from None
    if refused:
        where = _path_to(data, refused[0]) or []
        raise FormatError(f"{_place(text, where, line)}: {refused[0]!r} is not a number a course file can hold "
                          f"(NaN, the infinities and numbers of over {MAX_DIGITS} digits are refused)")
    problem = _first_problem(data, schema)
    if problem is not None:
        raise FormatError(f"{_place(text, list(problem.absolute_path), line)}: {shorten(problem.message, 200)}")
    return data


def _first_problem(data: Any, schema: str) -> Any:
    """The most telling way `data` breaks the schema (a jsonschema error), or None when it matches."""
    return load_jsonschema().exceptions.best_match(validator(schema).iter_errors(data))


def validator(schema: str) -> Any:
    """The jsonschema validator for teachagent/base/schemas/<schema>.schema.json, built once per process."""
    jsonschema = load_jsonschema()  # without the libraries behind format checks: none is needed, and they load slowly
    Draft202012Validator, validators = jsonschema.Draft202012Validator, jsonschema.validators

    if schema not in _validators:
        # JSON Schema counts 12.0 as an integer; a token count written 12.0 was not written by the course
        whole = Draft202012Validator.TYPE_CHECKER.redefine("integer", lambda _, value: type(value) is int)
        strict = validators.extend(Draft202012Validator, type_checker=whole)
        path = Path(__file__).parent / "schemas" / f"{schema}.schema.json"
        _validators[schema] = strict(json.loads(path.read_text(encoding="utf-8")))
    return _validators[schema]


def _check_depth(text: str, line: int) -> None:
    """Refuse brackets nested deeper than MAX_DEPTH, counted outside strings, before json.loads recurses into them."""
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        bracket = match.group()
        if bracket in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                at = line + text.count("\n", 0, match.start())
                raise FormatError(f"line {at}: nested more than {MAX_DEPTH} levels deep; no course file is")
        elif bracket in "]}":
            depth -= 1


def _path_to(value: Any, target: object, path: Sequence[str | int] = ()) -> list[str | int] | None:
    """The keys and indexes that lead from `value` to the object `target`, or None if it is not inside."""
    if value is target:
        return list(path)
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _path_to(item, target, (*path, key))
        if found is not None:
            return found
    return None


def _place(text: str, path: list[str | int], line: int) -> str:
    """ "line 12, field steps[0].seconds": where in the file the value at `path` starts."""
    field = "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path).lstrip(".")
    return f"line {line + text.count(chr(10), 0, _offset(text, path))}, field {field or '(the whole value)'}"


def _offset(text: str, path: list[str | int]) -> int:
    """Where in `text` the value at `path` starts, found by stepping over the values before it."""
    decoder = json.JSONDecoder()
    at = _skip(text, 0)
    for key in path:
        closing = "}" if text[at] == "{" else "]"
        at, index = _skip(text, at + 1), 0
        while text[at] != closing:
            if closing == "}":
                name, at = decoder.parse_string(text, at + 1)  # type: ignore[attr-defined]
                at = _skip(text, at)
                if name == key:
                    break
            elif index == key:
                break
            at, index = _skip(text, decoder.raw_decode(text, at)[1]), index + 1
    return at


def _skip(text: str, at: int) -> int:
    """The first place from `at` on that is not JSON whitespace, a comma or a colon."""
    return _BETWEEN.match(text, at).end()  # type: ignore[union-attr]  # it always matches, if only ""


def writable(path: str | Path, what: str, holds_one: Any) -> Path:
    """The real file that writing `what` to `path` would replace; a `FormatError` if that cannot work or would
    destroy something else. A symlink is written through to its target; an existing file is replaced only if
    `holds_one(path)` says it already holds `what` (it raises FormatError otherwise)."""
    shown = repr(str(path))
    if "\x00" in str(path):
        raise FormatError(f"{shown} is not a path a file can have")
    target = Path(os.path.realpath(path))
    if target.is_symlink():
        raise FormatError(f"{shown} is a symlink that leads nowhere it can end (a loop); name a file")
    if target.is_dir():
        raise FormatError(f"{shown} is a folder; name a file to write {what} to")
    if not target.parent.is_dir():
        raise FormatError(f"cannot write to {shown}: the folder {str(target.parent)!r} does not exist")
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise FormatError(f"cannot write to {shown}: the folder {str(target.parent)!r} is not writable")
    if os.path.lexists(target):
        if not target.is_file():
            raise FormatError(f"{shown} is not a regular file, so it was left alone; name a file to write {what} to")
        try:
            holds_one(target)
        except FormatError:
            raise FormatError(f"{shown} already exists and is not {what}, so it was left alone; name a new file") from None
    return target


def write_whole(target: Path, data: bytes) -> None:
    """Write `data` to a new file beside `target`, then rename it over `target`: the old file stays until the new one is whole."""
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")  # same folder, so os.replace is a rename
    try:
        with open(temp, "xb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
