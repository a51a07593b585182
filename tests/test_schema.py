"""Checking tool input with jsonschema: each schema checked once, jsonschema imported without its format helpers."""

import copy
import subprocess
import sys

import pytest

from teachagent import Dispatcher, Tool
from teachagent.base.schema import _checked_validator, input_validator

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def test_a_validator_lists_what_is_wrong_with_an_input():
    validator = input_validator(SCHEMA)
    assert [e.message for e in validator.iter_errors({"path": 3})] == ["3 is not of type 'string'"]
    assert list(validator.iter_errors({"path": "notes.txt"})) == []


def test_equal_schemas_share_one_validator_checked_once():
    assert input_validator(copy.deepcopy(SCHEMA)) is input_validator(copy.deepcopy(SCHEMA))


def test_many_dispatchers_over_the_same_tools_check_the_schema_once():
    def build():
        Dispatcher([Tool("read", "Read a file.", copy.deepcopy(SCHEMA), str)])

    build()
    before = _checked_validator.cache_info()
    for _ in range(50):
        build()
    after = _checked_validator.cache_info()
    assert (after.misses, after.hits) == (before.misses, before.hits + 50)


def test_problems_are_listed_in_the_order_of_the_schemas_keys():
    """The key order is part of the cache key: reordered, the same schema lists its problems in the new order."""
    properties = {"text": {"type": "string"}, "unit": {"enum": ["words", "characters"]}}
    first = {"type": "object", "properties": properties, "additionalProperties": False, "required": ["text"]}
    second = dict(reversed(first.items()))
    wrong = {"txt": "hi", "unit": "chars"}
    kinds = [[e.validator for e in input_validator(s).iter_errors(wrong)] for s in (first, second)]
    assert kinds == [["enum", "additionalProperties", "required"], ["required", "additionalProperties", "enum"]]


def test_changing_the_schema_afterwards_does_not_change_the_validator():
    schema = copy.deepcopy(SCHEMA)
    validator = input_validator(schema)
    schema["properties"]["path"]["type"] = "integer"
    assert list(validator.iter_errors({"path": "notes.txt"})) == []
    assert [e.message for e in input_validator(schema).iter_errors({"path": "notes.txt"})] == [
        "'notes.txt' is not of type 'integer'"
    ]


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        ({"type": "object", "properties": {"x": {"type": "strin"}}}, "is not valid under any of the given schemas"),
        ({"type": "object", "required": "x"}, "is not of type 'array'"),
        ({"type": "object", "default": {1, 2}}, "cannot be written as JSON"),
        ({"type": "object", "minimum": float("nan")}, "cannot be written as JSON"),
    ],
)
def test_an_invalid_schema_is_a_value_error_that_says_why(schema, says):
    with pytest.raises(ValueError, match=says):
        input_validator(schema)


def test_jsonschema_is_imported_without_the_libraries_behind_format_checks():
    """rfc3987_syntax builds a URI grammar on import (about a second); format checks are never used."""
    code = (
        "import sys\n"
        "from teachagent.base.schema import input_validator\n"
        "errors = list(input_validator({'type': 'object', 'properties': {'n': {'type': 'integer'}}}).iter_errors({'n': 'x'}))\n"
        "print(len(errors), sorted({'rfc3987_syntax', 'lark', 'isoduration', 'arrow'} & set(sys.modules)))\n"
        "import importlib.util\n"
        "if importlib.util.find_spec('rfc3987_syntax'):\n"
        "    import rfc3987_syntax  # still importable afterwards\n"
        "print('rfc3987_syntax' in sys.modules or importlib.util.find_spec('rfc3987_syntax') is None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120).stdout
    assert out.split("\n")[:2] == ["1 []", "True"]

