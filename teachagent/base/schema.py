"""JSON schemas for tools: made from a Python function, and checked with jsonschema.

The machinery behind `@tool` and the dispatcher (notebooks/02_tools.ipynb shows what
it produces); of teachagent it imports only the errors. Type hints give each parameter's
JSON type, a default makes a parameter optional, and the docstring's `Args:` section
gives each parameter its description. `input_validator` checks a schema once and gives
the validator that the dispatcher runs on every call's input. A function that cannot
become a tool as written raises `ToolDefinitionError`, which Jupyter shows as one line
saying what to change.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import json
import re
import sys
import types
from collections.abc import Callable
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from .errors import CourseError

_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


class ToolDefinitionError(CourseError, TypeError, ValueError):
    """A function given to @tool cannot become a tool as written; the message says what to change.

    It is a TypeError (a hint with no JSON form) and a ValueError (a docstring that says too
    little) too, so code written against either keeps catching it.
    """


class _Unsupported(Exception):
    """A type hint with no JSON-schema form here."""


def schema_from_signature(fn: Callable[..., Any], arg_docs: dict[str, str] | None = None) -> dict[str, Any]:
    """The JSON schema for calling `fn` with keyword arguments, from its type hints.

    A parameter with a default may be left out by the model, so it is not `required`.
    The schema rejects keys that are not parameters (`additionalProperties: false`).
    """
    arg_docs = arg_docs or {}
    fn_name = getattr(fn, "__qualname__", repr(fn))
    try:
        hints = get_type_hints(fn)
    except Exception as exc:  # e.g. a hint naming a type that does not exist
        raise ToolDefinitionError(f"cannot read the type hints of {fn_name}(): {exc}; {OVERRIDE}") from exc

    parameters = inspect.signature(fn).parameters
    for documented in arg_docs:
        if documented not in parameters:
            near = difflib.get_close_matches(documented, list(parameters), n=1)
            fix = f"did you mean {near[0]!r}?" if near else "describe each parameter under its own name"
            raise ToolDefinitionError(f"the Args: section of {fn_name}() describes {documented!r}, which is not a "
                                      f"parameter; {fix}")

    properties = {p.name: _parameter_schema(p, hints, arg_docs.get(p.name), fn_name) for p in parameters.values()}
    required = [p.name for p in parameters.values() if p.default is p.empty]
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


OVERRIDE = "pass schema= to @tool to write the schema yourself"


def _parameter_schema(p: inspect.Parameter, hints: dict[str, Any], described: str | None, fn_name: str) -> dict[str, Any]:
    """The JSON schema of one parameter: its hint's, with its description and its default if it has them."""
    where = f"parameter {p.name!r} of {fn_name}()"
    if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
        raise ToolDefinitionError(f"{where} is {p}: a tool is called with named arguments only; {OVERRIDE}")
    if p.name not in hints:
        raise ToolDefinitionError(f"{where} has no type hint, so its JSON schema is unknown; add one or {OVERRIDE}")
    hint = hints[p.name]
    try:
        prop = _schema_for(hint)
    except _Unsupported:
        raise ToolDefinitionError(
            f"{where} has type {_type_name(hint)}, which has no JSON-schema form here "
            f"(supported: str, int, float, bool, list[...], Literal[...], X | None); {OVERRIDE}"
        ) from None
    if _is_optional(hint) and p.default is p.empty:
        raise ToolDefinitionError(
            f"{where} is {_type_name(hint)} without a default: the model may leave it out, and then "
            f"{fn_name}() would be called without it; give it a default, e.g. {p.name}: {_type_name(hint)} = None"
        )
    if described is not None:
        prop["description"] = described
    if p.default is not p.empty and _is_json(p.default):
        prop["default"] = p.default
    return prop


def _schema_for(hint: Any) -> dict[str, Any]:
    """The JSON schema of one type hint; raises _Unsupported for anything else."""
    if hint in _JSON_TYPES:
        return {"type": _JSON_TYPES[hint]}
    origin, args = get_origin(hint), get_args(hint)
    if hint is list or origin is list:
        return {"type": "array", "items": _schema_for(args[0])} if args else {"type": "array"}
    if origin is Literal:
        kinds = {_JSON_TYPES.get(type(a)) for a in args}
        if len(kinds) != 1 or None in kinds:  # mixed kinds, or a value JSON has no type for
            raise _Unsupported
        return {"type": kinds.pop(), "enum": list(args)}
    if _is_optional(hint):
        (inner,) = [a for a in args if a is not type(None)]
        schema = _schema_for(inner)
        # the function accepts None, so the model may send null
        schema["type"] = [schema["type"], "null"]
        if "enum" in schema:
            schema["enum"] = [*schema["enum"], None]
        return schema
    raise _Unsupported


def _is_optional(hint: Any) -> bool:
    """True for Optional[X] and X | None, with exactly one X."""
    args = get_args(hint)
    return get_origin(hint) in (Union, types.UnionType) and len(args) == 2 and type(None) in args


def _is_json(value: Any) -> bool:
    """Whether `value` can be written as JSON, as a default in the schema must be."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def _type_name(hint: Any) -> str:
    return hint.__name__ if isinstance(hint, type) else str(hint).replace("typing.", "")


_ARGS_HEADERS = ("Args:", "Arguments:")
_SECTION_HEADERS = _ARGS_HEADERS + ("Returns:", "Raises:", "Yields:", "Example:", "Examples:", "Note:", "Notes:")
_ARG_LINE = re.compile(r"(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)")  # "path: text" or "path (str): text"


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its first paragraph and its `Args:` entries."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()

    summary = []
    for line in lines:
        if not line.strip() or line.strip() in _SECTION_HEADERS:
            break
        summary.append(line.strip())

    args: dict[str, str] = {}
    in_args, current, entry_indent = False, None, 0
    for line in lines:
        text, indent = line.strip(), len(line) - len(line.lstrip())
        if not text:
            continue
        if indent == 0:  # an unindented line starts a section (or is the summary)
            in_args, current = text in _ARGS_HEADERS, None
        elif in_args:
            entry = _ARG_LINE.fullmatch(text)
            if entry and (current is None or indent <= entry_indent):
                current, entry_indent = entry[1], indent
                args[current] = entry[2]
            elif current is not None:  # a continuation line, indented deeper than its entry
                args[current] = f"{args[current]} {text}".strip()
    return " ".join(summary), args


# --- checking input against a schema ------------------------------------------------------

# Libraries jsonschema imports, if they are installed, only to check "format" keywords
# ("iri", "duration", "color", ...). A validator checks formats only when it is given a
# FormatChecker, which the dispatcher never does. One of them, rfc3987_syntax (which
# Jupyter's own dependencies install), builds a whole URI grammar as it is imported:
# about a second before the first tool call of every program and kernel.
_FORMAT_HELPERS = ("rfc3987_syntax", "rfc3987", "rfc3986_validator", "rfc3339_validator", "isoduration",
                   "fqdn", "idna", "webcolors", "jsonpointer", "uri_template")


@functools.cache
def load_jsonschema() -> Any:
    """The jsonschema module, imported without the libraries behind its format checks.

    Every use of jsonschema in teachagent goes through here (the dispatcher's tool input,
    the formats of saved runs and cassettes), so none pays for a grammar it never uses.

    A module whose entry in `sys.modules` is None cannot be imported, and jsonschema
    skips a format whose library does not import. The entries are removed right after,
    so other code can still import those libraries.
    """
    kept_out = [] if "jsonschema" in sys.modules else [name for name in _FORMAT_HELPERS if name not in sys.modules]
    sys.modules.update(dict.fromkeys(kept_out))  # type: ignore[arg-type]
    try:
        import jsonschema
    finally:
        for name in kept_out:
            if sys.modules.get(name, ...) is None:
                del sys.modules[name]
    return jsonschema


def input_validator(schema: dict[str, Any]) -> Any:
    """A jsonschema (draft 2020-12) validator for input to a tool whose input schema is `schema`.

    Raises ValueError if `schema` is not JSON or not a valid JSON schema. Checking a
    schema against the JSON-schema metaschema takes about a millisecond, and a lesson
    may build hundreds of agents over the same tools, so each schema is checked once:
    validators are kept by the schema's JSON text. The text keeps the schema's key order,
    which decides the order in which a validator lists the problems of an input. A
    validator holds its own copy of the schema, so changing the dict afterwards does not
    change what it checks.
    """
    try:
        text = json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"it cannot be written as JSON: {exc}") from None
    return _checked_validator(text)


def tool_input_validator(name: str, schema: dict[str, Any]) -> Any:
    """`input_validator(schema)` for tool `name`'s input: a bad schema is a ValueError that names its tool."""
    try:
        return input_validator(schema)
    except ValueError as exc:
        raise ValueError(f"tool {name!r} has an invalid input_schema: {exc}") from exc


@functools.lru_cache(maxsize=1024)
def _checked_validator(text: str) -> Any:
    """The validator for the schema written as `text`; its checks against the metaschema, made once."""
    jsonschema = load_jsonschema()
    schema = json.loads(text)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ValueError(exc.message) from exc
    return jsonschema.Draft202012Validator(schema)


INLINE_DEPTH = 8  # references followed inside one another before the rest is left open (a recursive schema never ends)


def inlined(schema: Any, depth: int = INLINE_DEPTH) -> Any:
    """`schema` with each local reference (`{"$ref": "#/$defs/unit"}`) replaced by the part of `schema` it names.

    A schema embedded in a larger one (local mode's grammar, course/local.py, puts every tool's
    schema under one `anyOf`) can no longer reach its own `$defs` by `#/...`: the pointer would be
    read from the larger schema's root. Inlined, it needs no root. A reference inside a reference
    is followed `depth` levels deep; deeper (a recursive schema) it becomes `{}`, which holds any
    value: the dispatcher still checks every call against the tool's own schema. A reference this
    schema cannot resolve (another file, a name it does not define) becomes `{}` too.
    """

    def resolve(pointer: str) -> Any:
        found: Any = schema
        for part in pointer.removeprefix("#").split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(found, dict) and part in found:
                found = found[part]
            elif isinstance(found, list) and part.isdigit() and int(part) < len(found):
                found = found[int(part)]
            else:
                return {}
        return found

    def walk(part: Any, left: int) -> Any:
        if isinstance(part, dict):
            ref = part.get("$ref")
            if isinstance(ref, str):
                target = walk(resolve(ref), left - 1) if ref.startswith("#") and left > 0 else {}
                rest = {key: walk(value, left) for key, value in part.items() if key not in ("$ref", "$defs", "definitions")}
                return {**target, **rest} if isinstance(target, dict) else target
            return {key: walk(value, left) for key, value in part.items() if key not in ("$defs", "definitions")}
        if isinstance(part, list):
            return [walk(item, left) for item in part]
        return part

    return walk(schema, depth) if "$ref" in json.dumps(schema) else schema
