"""The course's file formats: strict JSON, one schema each, errors naming the line and the field."""

from __future__ import annotations

import json
import os
from importlib.resources import files

import pytest

from teachagent.base.errors import CourseError
from teachagent.base.formats import MAX_DEPTH, FormatError, parse, read_text, writable
from teachagent.messages import OUTCOMES, STOP_REASONS


def schema(name: str) -> dict:
    return json.loads(files("teachagent.base").joinpath(f"schemas/{name}.schema.json").read_text(encoding="utf-8"))


def test_the_schemas_ship_with_the_package_and_are_valid():
    from jsonschema import Draft202012Validator

    for name in ("run", "cassette"):
        Draft202012Validator.check_schema(schema(name))


def test_the_schemas_know_every_stop_reason_and_outcome_and_share_their_blocks():
    run, cassette = schema("run"), schema("cassette")
    assert run["$defs"]["response"]["properties"]["stop_reason"]["enum"] == list(STOP_REASONS)
    assert run["then"]["properties"]["outcome"]["enum"] == list(OUTCOMES)
    for shared in ("count", "block", "model_block", "usage", "response", "tool_spec"):
        assert run["$defs"][shared] == cassette["$defs"][shared], shared


def test_a_format_error_is_a_value_error_shown_in_one_line():
    with pytest.raises(FormatError) as caught:
        parse("{", "run")
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, CourseError)
    assert caught.value._render_traceback_() == ["FormatError: line 1: not valid JSON (Expecting property name "
                                                 "enclosed in double quotes, column 2)"]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1e400", "9" * 301])
def test_numbers_python_accepts_but_a_course_file_cannot_hold_are_refused_where_they_are(number):
    text = '{\n "format": "teachagent.run/1",\n "notes": [\n  "a",\n  ' + number + "\n ]\n}"
    with pytest.raises(FormatError, match=r"^line 5, field notes\[1\]: .* is not a number a course file can hold"):
        parse(text, "run")


def test_nesting_is_bounded_before_json_recurses_and_brackets_in_strings_do_not_count():
    deep = "[" * 100_000  # json.loads alone raises RecursionError on this
    with pytest.raises(FormatError, match=f"line 1: nested more than {MAX_DEPTH} levels deep"):
        parse(deep, "run")
    with pytest.raises(FormatError, match="line 3: nested more than"):
        parse('{\n"a": "[[[[",\n' + '{"a": ' * (MAX_DEPTH + 1), "run")
    with pytest.raises(FormatError, match="field format"):  # deep inside a string is only text
        parse(json.dumps({"format": "x", "note": "[" * 10_000}), "run")


def test_the_line_named_is_the_line_of_the_field_even_with_strings_that_look_like_json():
    text = '{\n "format": "teachagent.run/1",\n "task": "a \\"steps\\": [ {",\n "model": "m",\n "system": "",\n' \
           ' "tools": [],\n "steps": [],\n "answer": 3,\n "outcome": "answer"\n}'
    with pytest.raises(FormatError, match=r"^line 8, field answer: 3 is not of type 'string', 'null'$"):
        parse(text, "run")


@pytest.mark.parametrize("content, complaint", [
    (b"", "is empty"),
    (b" \n\n", "is empty"),
    (b'{"a": 1}\n\xff\xfe', r"not UTF-8 text \(line 2\)"),
])
def test_an_empty_or_binary_file_is_refused_and_left_as_it_was(tmp_path, content, complaint):
    path = tmp_path / "f.json"
    path.write_bytes(content)
    with pytest.raises(FormatError, match=complaint):
        read_text(path, "a saved run")
    assert path.read_bytes() == content


def test_a_folder_a_fifo_and_a_missing_file_are_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "pipe")  # opening it for reading the usual way would wait for a writer for ever
    with pytest.raises(FormatError, match="is not a regular file"):
        read_text(tmp_path / "pipe", "a saved run")
    with pytest.raises(FormatError, match="is a folder, not a saved run"):
        read_text(tmp_path, "a saved run")
    with pytest.raises(FormatError, match="there is no file at"):
        read_text(tmp_path / "none.json", "a saved run")
    with pytest.raises(FormatError, match="not a path a file can have"):
        read_text(str(tmp_path / "a\x00b"), "a saved run")


def refuse_all(path):
    raise FormatError("never")


def test_writable_refuses_what_it_would_destroy_and_follows_a_symlink(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "link.json").symlink_to(tmp_path / "target.json")
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
    os.mkfifo(tmp_path / "pipe")
    assert writable(tmp_path / "new.json", "a saved run", refuse_all) == tmp_path / "new.json"
    assert writable(tmp_path / "link.json", "a saved run", refuse_all) == tmp_path / "target.json"
    for path, complaint in [(tmp_path, "is a folder"), (tmp_path / "none" / "r.json", "folder .* does not exist"),
                            (tmp_path / "notes.txt" / "r.json", "does not exist"),
                            (tmp_path / "notes.txt", "already exists and is not a saved run, so it was left alone"),
                            (tmp_path / "loop.json", "a loop"), (tmp_path / "pipe", "not a regular file")]:
        with pytest.raises(FormatError, match=complaint):
            writable(path, "a saved run", refuse_all)
    assert (tmp_path / "notes.txt").read_text() == "mine"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to any folder")
def test_writable_refuses_a_folder_it_cannot_write_to(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(FormatError, match="is not writable"):
        writable(locked / "r.json", "a saved run", refuse_all)
