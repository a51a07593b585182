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

What a saved run and a cassette share (content blocks, usage, a model's reply) is defined
once, in shared.schema.json, which the two formats refer to. The values a few fields may
take are tables of the lessons' idea modules: a stop reason is a key of
`teachagent.messages.STOPS`, an outcome a key of `teachagent.trace.OUTCOMES`. base/ imports
no idea module, so each of those modules hands its table down with `enum_from_table` when
it is imported, and a schema definition that says `"enumFrom": "<that table's name>"` gets
the table's keys as its enum when the validator is built. A row added to a table is then
a value both formats accept, with no schema to edit.

Writing goes to a new file in the same folder, renamed over the old one only when it is
whole, so a failed save leaves the old file exactly as it was.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import stat
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

from .display import shorten
from .errors import CourseError
from .schema import load_jsonschema

# A saved file larger than this is refused unread. The largest lesson cassette is ~1 MB; reading
# a file takes at most about 30 times its size in memory (a file of nothing but {} is the worst).
MAX_BYTES = 16_000_000
MAX_DEPTH = 100  # brackets inside brackets; a course file needs about 15, json.loads would crash near 1,000
MAX_DIGITS = 300  # a whole number longer than this is no count of anything (a float stops near 1e308)
MAX_INPUT_DEPTH = 64  # brackets in one tool input: a saved run or a cassette holds at most MAX_DEPTH in all

# A string ends at its closing quote or, unclosed, at the end of the text: either way the scan moves past it
# once, so counting brackets takes time linear in the text however its quotes and backslashes fall.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)|[\[\]{}]', re.DOTALL)
_BETWEEN = re.compile(r"[ \t\n\r,:]*")  # what separates JSON values and keys
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}
_SPLIT_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")  # the two halves of a surrogate pair, as two characters
_temps = itertools.count(1)  # numbers this process's temporary files, so two writers never share one
_SCHEMAS = Path(__file__).parent / "schemas"
_SHARED = "shared.schema.json"  # the definitions run.schema.json and cassette.schema.json both refer to
_tables: dict[str, Collection[str]] = {}  # "teachagent.messages.STOPS" -> that table, kept (not copied) as it was handed down
# one compiled validator per schema file, with the tables' keys it was built from: a changed table builds it again
_validators: dict[str, tuple[tuple[tuple[str, ...], ...], Any]] = {}


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
        if info.st_size > MAX_BYTES:
            raise FormatError(f"{shown} holds more than {MAX_BYTES:,} bytes, more than {what} ever does")
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
    # the best of the first few: a file wrong in a million places would otherwise take minutes to describe
    return load_jsonschema().exceptions.best_match(itertools.islice(validator(schema).iter_errors(data), 20))


def enum_from_table(name: str, table: Collection[str]) -> None:
    """Make the keys of `table` the enum of every schema definition that says `"enumFrom": name`.

    Called by the idea module that owns the table (e.g. `enum_from_table("teachagent.messages.STOPS", STOPS)`),
    so the table stays the one place that lists the values. The table itself is kept, not a copy: a row
    added to it later is read the next time a validator is asked for.
    """
    _tables[name] = table


def validator(schema: str) -> Any:
    """The jsonschema validator for teachagent/base/schemas/<schema>.schema.json, built once per process.

    It is built again only when a table handed down by `enum_from_table` has changed since.
    """
    keys = tuple(tuple(table) for table in _tables.values())
    built = _validators.get(schema)
    if built is None or built[0] != keys:
        built = _validators[schema] = keys, _build(schema)
    return built[1]


def _build(schema: str) -> Any:
    """A validator for `schema` that counts only ints as integers and reads shared.schema.json's definitions."""
    jsonschema = load_jsonschema()  # without the libraries behind format checks: none is needed, and they load slowly
    Draft202012Validator, validators = jsonschema.Draft202012Validator, jsonschema.validators
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    # JSON Schema counts 12.0 as an integer; a token count written 12.0 was not written by the course
    whole = Draft202012Validator.TYPE_CHECKER.redefine("integer", lambda _, value: type(value) is int)
    strict = validators.extend(Draft202012Validator, type_checker=whole)
    shared = DRAFT202012.create_resource(_with_enums(_SHARED))
    return strict(_with_enums(f"{schema}.schema.json"), registry=Registry().with_resource(_SHARED, shared))


def _with_enums(file: str) -> dict[str, Any]:
    """The schema in teachagent/base/schemas/`file`, each definition that says "enumFrom" given that table's keys."""
    document: dict[str, Any] = json.loads((_SCHEMAS / file).read_text(encoding="utf-8"))
    for definition in document.get("$defs", {}).values():
        if "enumFrom" in definition:
            name = definition["enumFrom"]
            if name not in _tables:  # importing teachagent hands every table down, so only a broken install lands here
                raise RuntimeError(f"{file} takes an enum from {name}, which was never handed to enum_from_table")
            definition["enum"] = list(_tables[name])
    return document


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
    `holds_one(path)` says it already holds `what` (it raises FormatError otherwise). The folder is tried by
    creating (and at once removing) a file in it, since permission bits do not tell the whole story (root, a
    read-only mount)."""
    shown = repr(str(path))
    if "\x00" in str(path):
        raise FormatError(f"{shown} is not a path a file can have")
    try:
        return _writable(Path(os.path.realpath(path)), shown, what, holds_one)
    except OSError as error:  # a name too long, a folder on the way that cannot be entered
        raise FormatError(f"cannot write to {shown}: {error.strerror or error}") from None


def _writable(target: Path, shown: str, what: str, holds_one: Any) -> Path:
    if target.is_symlink():
        raise FormatError(f"{shown} is a symlink that leads nowhere it can end (a loop); name a file")
    if target.is_dir():
        raise FormatError(f"{shown} is a folder; name a file to write {what} to")
    if not target.parent.is_dir():
        raise FormatError(f"cannot write to {shown}: the folder {str(target.parent)!r} does not exist")
    if os.path.lexists(target):
        if not target.is_file():
            raise FormatError(f"{shown} is not a regular file, so it was left alone; name a file to write {what} to")
        try:
            holds_one(target)
        except FormatError:
            raise FormatError(f"{shown} already exists and is not {what}, so it was left alone; name a new file") from None
    probe = _temp_beside(target)
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except PermissionError:
        raise FormatError(f"cannot write to {shown}: the folder {str(target.parent)!r} is not writable") from None
    os.unlink(probe)
    return target


def _temp_beside(target: Path) -> Path:
    """A name for a new file beside `target` that no other writer, thread or process, is using."""
    return target.with_name(f".{target.name}.{os.getpid()}-{next(_temps)}.tmp")  # same folder: os.replace is a rename


def dumps(data: Any, schema: str, what: str, indent: int | None = 1) -> str:
    """`data` as JSON text that `parse(text, schema)` accepts, checked before anything is written.

    What a course file cannot hold (NaN, a 400-digit number, an id that is not a string, a
    value that is not JSON at all) is a `FormatError` naming the field, so that a file that
    could not be read back is never written in the first place.
    """
    try:
        text = json.dumps(data, indent=indent, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as error:
        raise FormatError(f"cannot write {what}: it holds something JSON cannot: {shorten(str(error), 120)}") from None
    # U+2028, U+2029 and U+0085 end a line for str.splitlines(); escaped, a record stays on its own line
    text = text.translate(_LINE_BREAKS)
    try:
        parse(text, schema)
    except FormatError as error:
        raise FormatError(f"cannot write {what}, it could not be read back: {error}") from None
    return text


def write_whole(target: Path, data: bytes) -> None:
    """Write `data` to a new file beside `target`, then rename it over `target`: the old file stays until the new one is whole.

    Each write has a temporary file of its own, so threads or processes saving to one path at once
    never share one, and a reader sees the old file or a new one, never half of one. A file that is
    replaced keeps its permission bits (a run saved as 0600 stays 0600).
    """
    temp = _temp_beside(target)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = None  # a new file: the mode the umask gives
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        with open(fd, "wb") as file:
            if mode is not None:
                os.chmod(temp, mode)
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def save_document(path: str | Path, text: str, what: str, holds_one: Any) -> Path:
    """Write the document `text` (made by `dumps`) to `path` whole, or not at all; returns the file written.

    `writable` says first whether `path` may be replaced (never a folder, nor a file that is
    not already `what`, checked by `holds_one`). A lone surrogate, which UTF-8 cannot hold,
    is written as the JSON escape \\udxxx that reads back the same.
    """
    target = writable(path, what, holds_one)
    write_whole(target, text.encode("utf-8", "backslashreplace"))
    return target


def read_document(text: str | bytes | bytearray, schema: str, what: str, reads_a_file: str) -> Any:
    """The document in `text` (a str, or bytes that must be UTF-8), checked against `schema`.

    Anything else is a `FormatError` that starts "not <what>:" and says where the problem
    is; something that is not text at all is told of `reads_a_file`, the call that reads one.
    """
    try:
        if isinstance(text, (bytes, bytearray)):
            data = bytes(text)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as error:
                line = data.count(b"\n", 0, error.start) + 1
                raise FormatError(f"it is not UTF-8 text (line {line})") from None
        if not isinstance(text, str):
            raise FormatError(f"{what} is text (or UTF-8 bytes), not {type(text).__name__}; {reads_a_file} reads one from a file")
        return parse(text, schema)
    except FormatError as error:
        raise FormatError(f"not {what}: {error}") from None


def as_saved(value: Any) -> Any:
    """`value` (text, or JSON data holding text) as a course file gives it back once saved.

    A str may hold the two halves of a surrogate pair as two characters ("\\ud83d\\ude00"). JSON
    writes each half as an escape, and every JSON reader joins two such escapes into the one
    character they make (😀), so no file can give the two halves back apart. What the course
    keeps (a run, a reply, a tool result, a task) is taken in this form from the start, so
    what loads back equals what was saved. A lone half stays as it is: it reads back as itself.
    """
    if isinstance(value, str):
        text = str.__str__(value)
        if text.isascii() or not _SPLIT_PAIR.search(text):  # the quick test first: no surrogate is ASCII
            return text
        return _SPLIT_PAIR.sub(lambda pair: pair.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le"), text)
    if isinstance(value, dict):
        return {as_saved(key): as_saved(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_saved(item) for item in value]
    return value


def unstorable(value: Any) -> str | None:
    """What in a tool's input JSON or a saved run or cassette cannot hold, or None; one pass, no recursion.

    A model may write anything into a call's input. What the loop accepts must also be
    countable, sent back and saved, so NaN, the infinities, numbers of over MAX_DIGITS
    digits and nesting deeper than MAX_INPUT_DEPTH are named here before anything is kept.
    """
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict) or isinstance(item, list):
            if depth > MAX_INPUT_DEPTH:
                return f"it is nested more than {MAX_INPUT_DEPTH} levels deep"
            children: Iterable[Any] = item
            if isinstance(item, dict):
                for key in item:
                    if not isinstance(key, str):
                        return "a key is not a string"
                children = item.values()
            pending += [(child, depth + 1) for child in children]
        elif isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        elif isinstance(item, int):
            if abs(item) >= 10**MAX_DIGITS:
                return f"it holds a number of over {MAX_DIGITS} digits"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"it holds {item!r}, which JSON cannot"
        else:
            return f"it holds a {type(item).__name__}, which is not JSON"
    return None
