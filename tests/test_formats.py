"""The course's file formats: strict JSON, one schema each, errors naming the line and the field."""

from __future__ import annotations

import json
import os
from importlib.resources import files

import pytest

from teachagent.base.errors import CourseError
from teachagent.base.formats import MAX_DEPTH, FormatError, parse, read_text, validator, writable
from teachagent.messages import STOP_REASONS, STOPS
from teachagent.trace import OUTCOMES


def schema(name: str) -> dict:
    return json.loads(files("teachagent.base").joinpath(f"schemas/{name}.schema.json").read_text(encoding="utf-8"))


def test_the_schemas_ship_with_the_package_and_are_valid():
    from jsonschema import Draft202012Validator

    for name in ("run", "cassette", "shared"):
        Draft202012Validator.check_schema(schema(name))


def test_the_shared_definitions_are_written_once_and_the_enums_come_from_the_tables():
    run, cassette, shared = schema("run"), schema("cassette"), schema("shared")
    for name in ("count", "block", "model_block", "usage", "response", "tool_spec", "stop_reason"):
        assert name in shared["$defs"] and name not in run["$defs"] and name not in cassette["$defs"], name
    files_text = "".join(json.dumps(schema(name)) for name in ("run", "cassette", "shared"))
    assert '"end_turn"' not in files_text and '"max_steps"' not in files_text  # no table is copied into a file
    assert validator("run").schema["$defs"]["outcome"]["enum"] == list(OUTCOMES)


def _run_that_stopped(reason: str) -> str:
    response = {"content": [{"type": "text", "text": "hi"}], "stop_reason": reason, "usage": {}}
    step = {"index": 1, "context_tokens": 3, "response": response, "results": [], "seconds": 0.0}
    return json.dumps({"format": "teachagent.run/1", "task": "t", "model": "m", "system": "", "tools": [],
                       "steps": [step], "answer": None, "outcome": "running"})


def _cassette_record_that_stopped(reason: str) -> str:
    response = {"content": [], "stop_reason": reason, "usage": {"input_tokens": 1}}
    return json.dumps({"kind": "complete", "request": {"model": "m", "messages": []}, "response": response})


def test_a_stop_reason_added_to_the_table_is_one_both_formats_accept(monkeypatch):
    for text in (_run_that_stopped("compaction"), _cassette_record_that_stopped("compaction")):
        with pytest.raises(FormatError, match="'compaction' is not one of"):
            parse(text, "run" if "format" in text else "cassette")
    monkeypatch.setitem(STOPS, "compaction", ("continue", "the server compacted the context"))
    assert parse(_run_that_stopped("compaction"), "run")["steps"][0]["response"]["stop_reason"] == "compaction"
    assert parse(_cassette_record_that_stopped("compaction"), "cassette")["response"]["stop_reason"] == "compaction"


def test_a_stop_reason_not_in_the_table_is_refused_by_both_formats():
    for reason in STOP_REASONS:
        parse(_run_that_stopped(reason), "run")
        parse(_cassette_record_that_stopped(reason), "cassette")
    with pytest.raises(FormatError, match=r"field steps\[0\]\.response\.stop_reason: 'bored' is not one of"):
        parse(_run_that_stopped("bored"), "run")
    with pytest.raises(FormatError, match=r"field response\.stop_reason: 'bored' is not one of"):
        parse(_cassette_record_that_stopped("bored"), "cassette")


def test_an_outcome_added_to_the_table_is_one_a_saved_run_may_hold(monkeypatch):
    text = _run_that_stopped("end_turn").replace('"running"', '"max_minutes"')
    with pytest.raises(FormatError, match="field outcome: 'max_minutes' is not one of"):
        parse(text, "run")
    monkeypatch.setitem(OUTCOMES, "max_minutes", "the run's time budget ran out")
    assert parse(text, "run")["outcome"] == "max_minutes"


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
