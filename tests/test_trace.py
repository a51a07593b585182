"""The Run record: exact JSON round trips and clear errors on anything else."""

from __future__ import annotations

import json

import pytest

from teachagent.agent import Agent
from teachagent.base.formats import FormatError
from teachagent.scripted import ScriptedModel, call
from teachagent.tools import tool
from teachagent.trace import Run, Step


@tool
def shout(text: str) -> str:
    """Return the text in capitals."""
    return text.upper()


def sample_run() -> Run:
    script = [call("shout", text="héllo <b>"), call("whisper", text="x"), "HÉLLO <B>"]
    return Agent(ScriptedModel(script), tools=[shout], system="Be loud.").run("Shout hello.")


def test_json_round_trip_is_exact():
    run = sample_run()
    again = Run.from_json(run.to_json())
    assert again == run
    assert again.to_json() == run.to_json()
    assert again.steps[1].results[0].is_error


def test_messages_rebuild_the_conversation():
    run = sample_run()
    assert [m.role for m in run.messages] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert run.messages[0].text == "Shout hello."


@pytest.mark.parametrize(
    "text, complaint",
    [
        ("{not json", "line 1: not valid JSON"),
        ("[1, 2]", "not of type 'object'"),
        (json.dumps({"format": "something/else"}), "field format: 'teachagent.run/1' was expected"),
        (json.dumps({"format": "teachagent.run/1", "task": "t"}), "'model' is a required property"),
    ],
)
def test_anything_but_a_saved_run_is_a_clear_error(text, complaint):
    with pytest.raises(ValueError, match=complaint):
        Run.from_json(text)


def test_a_corrupted_step_is_a_clear_error():
    data = json.loads(sample_run().to_json())
    data["steps"][0]["response"]["stop_reason"] = "bored"
    with pytest.raises(ValueError, match=r"not a saved Run: line \d+, field steps\[0\].response.stop_reason: 'bored' is not"):
        Run.from_json(json.dumps(data))


def test_reprs_are_short_and_informative():
    run = sample_run()
    assert repr(run) == f"Run(task='Shout hello.', model='scripted', steps=3, outcome='answer', Z={sum(run.context_sizes)})"
    assert repr(run.steps[1]).startswith("Step(k=2, c_k=") and "calls=[whisper], errors=1" in repr(run.steps[1])
    assert isinstance(run.steps[0], Step)


@pytest.mark.parametrize("reply, says_something", [(");", False), ("   ", False), ("", False), ("42", True), ("Ada.", True)])
def test_a_final_reply_with_no_letter_or_digit_is_no_answer(reply, says_something):
    run = Agent(ScriptedModel([reply])).run("t")
    assert run.answered is says_something and (run.answer == reply) is says_something
    assert run.outcome == ("answer" if says_something else "empty_answer")
    assert says_something or run.notes[-1].startswith("step 1: the final reply is no answer: it says nothing")


def test_only_a_run_that_ended_with_an_answer_answered():
    run = Agent(ScriptedModel(lambda messages: call("shout", text="x")), [shout], max_steps=2).run("t")
    assert run.outcome == "max_steps" and not run.answered and run.answer is None


def test_a_scripted_run_says_so_in_its_repr_and_json():
    run = Agent(ScriptedModel(["hi"], name="tutor")).run("t")
    assert run.scripted and "tutor (scripted)" in repr(run)
    assert Run.from_json(run.to_json()).scripted


def test_z_is_the_sum_of_every_context():
    run = sample_run()
    assert run.Z == sum(s.context_tokens for s in run.steps) > 0
    assert Run("t", "m").Z == 0


# --- saving to and loading from a file -------------------------------------------------------


def test_save_and_load_round_trip_exactly_and_leave_no_temporary_file(tmp_path):
    run = sample_run()
    path = run.save(tmp_path / "run.json")
    assert Run.load(path) == run and path.read_text(encoding="utf-8") == run.to_json()
    run.answer = "again"
    run.save(path)  # replacing an earlier saved run is what saving is for
    assert Run.load(path).answer == "again" and [p.name for p in tmp_path.iterdir()] == ["run.json"]


def test_a_lone_surrogate_a_model_wrote_is_saved_as_an_escape_and_read_back(tmp_path):
    run = Agent(ScriptedModel(["half a pair: \ud83d"])).run("t")
    assert Run.load(run.save(tmp_path / "run.json")) == run


def saved_text() -> str:
    return sample_run().to_json()


def damaged(field: str, value: str) -> str:
    """The saved run with the first `"field": ...` value on a line of its own replaced by `value`, verbatim."""
    lines = saved_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(f'"{field}": '))
    indent, comma = lines[at][: len(lines[at]) - len(lines[at].lstrip())], "," if lines[at].endswith(",") else ""
    lines[at] = f'{indent}"{field}": {value}{comma}'
    return "\n".join(lines)


@pytest.mark.parametrize("field, value, complaint", [
    ("task", "null", r"field task: None is not of type 'string'"),
    ("context_tokens", '"12"', r"field steps\[0\].context_tokens: '12' is not of type 'integer'"),
    ("context_tokens", "true", r"field steps\[0\].context_tokens: True is not of type 'integer'"),
    ("context_tokens", "12.0", r"field steps\[0\].context_tokens: 12.0 is not of type 'integer'"),
    ("context_tokens", "10000000000000000", r"field steps\[0\].context_tokens: 10000000000000000 is greater than"),
    ("seconds", "NaN", r"field steps\[0\].seconds: NaN is not a number a course file can hold"),
    ("seconds", "-Infinity", r"field steps\[0\].seconds: -Infinity is not a number"),
    ("seconds", "1e999", r"field steps\[0\].seconds: 1e999 is not a number"),
    ("index", "9" * 5000, r"field steps\[0\].index: 9999.* is not a number a course file can hold"),
    ("outcome", '"won"', r"field outcome: 'won' is not one of"),
    ("is_error", '"yes"', r"field steps\[1\].results\[0\].is_error: 'yes' is not of type 'boolean'"),
    ("name", '""', r"field tools\[0\].name: '' should be non-empty"),
    ("scripted", '"yes"', r"field scripted: 'yes' is not of type 'boolean'"),
    ("notes", "[" * 200, r"nested more than 100 levels deep"),
])
def test_a_damaged_saved_run_names_the_line_and_field_and_is_left_as_it_was(tmp_path, field, value, complaint):
    text = damaged(field, value)
    line = next(i for i, row in enumerate(text.splitlines(), start=1) if row.strip().startswith(f'"{field}": '))
    path = tmp_path / "run.json"
    path.write_text(text, encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(FormatError, match=rf"^not a saved Run: line {line}(, {complaint}|: {complaint})") as caught:
        Run.load(path)
    assert isinstance(caught.value, ValueError) and "\n" not in str(caught.value)
    with pytest.raises(FormatError):  # and saving over it is refused: it is no longer a saved run
        sample_run().save(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("content, complaint", [
    (b"", "is empty"), (b"\xff\xfe{}", "not UTF-8"), (b"[1]", "not of type 'object'"),
    (b'{"format": "teachagent.cassette/2"}', "field format: 'teachagent.run/1' was expected"),
])
def test_a_file_that_is_no_saved_run_is_a_clear_error(tmp_path, content, complaint):
    path = tmp_path / "run.json"
    path.write_bytes(content)
    with pytest.raises(FormatError, match=complaint):
        Run.load(path)
    with pytest.raises(FormatError, match="is a folder, not a saved run"):
        Run.load(tmp_path)
    assert path.read_bytes() == content


def test_saving_refuses_a_folder_or_a_file_that_is_not_a_run_and_writes_through_a_symlink(tmp_path):
    run = sample_run()
    notebook = tmp_path / "lesson.ipynb"
    notebook.write_text('{"cells": []}')
    with pytest.raises(FormatError, match="already exists and is not a saved run, so it was left alone"):
        run.save(notebook)
    with pytest.raises(FormatError, match="is a folder"):
        run.save(tmp_path)
    assert notebook.read_text() == '{"cells": []}'
    (tmp_path / "latest.json").symlink_to(tmp_path / "runs.json")
    assert run.save(tmp_path / "latest.json") == tmp_path / "runs.json"
    assert (tmp_path / "latest.json").is_symlink() and Run.load(tmp_path / "latest.json") == run


def test_a_save_that_fails_half_way_leaves_the_old_file_byte_for_byte(tmp_path, monkeypatch):
    from teachagent.base import formats

    path = sample_run().save(tmp_path / "run.json")
    before, inode = path.read_bytes(), path.stat().st_ino

    def disk_full(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(formats.os, "replace", disk_full)
    changed = sample_run()
    changed.answer = "new"
    with pytest.raises(OSError, match="No space left"):
        changed.save(path)
    assert path.read_bytes() == before and path.stat().st_ino == inode
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]
