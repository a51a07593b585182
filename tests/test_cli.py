"""`python -m teachagent`: the research agent in a terminal."""

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import nbformat
import pytest
from fake_anthropic import FakeAnthropic, error_body, message_body, policy_server, text_block

import teachagent.__main__ as cli
from teachagent import ScriptedModel, call
from teachagent.course.replay import read_cassette
from teachagent.research.corpus import Library
from teachagent.research.researcher import QUESTION, research_agent, search_and_excerpt
from teachagent.trace import Run

FAKE_KEY = "sk-ant-api03-" + "x" * 40


@pytest.fixture(autouse=True)
def no_mode_from_the_machine(monkeypatch):
    """The demo reads TEACHAGENT_MODE as the notebooks do: none may leak in from the machine running the tests."""
    for name in ("TEACHAGENT_BASE_URL", "TEACHAGENT_MODEL"):  # empty is unset; --base-url and --model overwrite them
        monkeypatch.setenv(name, "")


def test_default_run_prints_every_step_and_the_answer(capsys):
    expected = research_agent("excerpt").run(QUESTION)  # the same scripted run, for its c_k and Z

    assert cli.main([]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("[teachagent] offline mode") and "ScriptedModel" in err and "not Claude" in err
    assert err.count("\n") == 1  # the banner, on standard error: standard output is the run alone
    assert out.startswith("question: ")
    for step in expected.steps:
        assert f"step {step.index}: c_{step.index} = {step.context_tokens} tokens" in out
    assert "call:  search {" in out and "call:  calculate {" in out
    assert "0.119" in out and "0.126" in out
    assert "outcome: answer" in out
    assert f"K = 4 steps, Z = Σ c_k = {sum(s.context_tokens for s in expected.steps)} tokens" in out


def test_reading_everything_takes_11_steps(capsys):
    assert cli.main(["--strategy", "everything"]) == 0
    out = capsys.readouterr().out
    assert "K = 11 steps" in out and "step 11: c_11 = " in out


def test_a_run_out_of_steps_exits_1_and_says_why(capsys):
    assert cli.main(["--max-steps", "2"]) == 1
    out = capsys.readouterr().out
    assert "step budget ran out" in out and "outcome: max_steps" in out
    assert "final answer" not in out


@pytest.mark.parametrize("bad", ["0", "-1", "two"])
def test_max_steps_must_be_at_least_1(bad, capsys):
    with pytest.raises(SystemExit) as caught:
        cli.main(["--max-steps", bad])
    assert caught.value.code == 2
    assert "--max-steps" in capsys.readouterr().err


def test_json_saves_the_run(tmp_path, capsys):
    path = tmp_path / "run.json"
    assert cli.main(["--json", str(path)]) == 0
    assert str(path) in capsys.readouterr().out
    run = Run.from_json(path.read_text(encoding="utf-8"))
    assert (len(run.steps), run.outcome, run.scripted) == (4, "answer", True)
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary file left behind


def test_an_unwritable_json_path_exits_2_before_any_model_call(tmp_path, monkeypatch, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # a call would fail loudly
    cassette = tmp_path / "c.jsonl"
    for path, complaint in [(tmp_path / "no such folder" / "run.json", "the folder .* does not exist"),
                            (tmp_path, "is a folder; name a file"), (tmp_path / "loop.json", "a loop"),
                            (notes, "already exists and is not a saved run, so it was left alone; name a new file")]:
        assert cli.main(["--mode", "record", "--cassette", str(cassette), "--json", str(path)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and re.search(complaint, err), err
    assert notes.read_text() == "my notes"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loop.json", "notes.txt"]  # no draft, no cassette


def test_json_writes_through_a_symlink_and_replaces_an_earlier_run_whole(tmp_path, capsys):
    (tmp_path / "latest.json").symlink_to(tmp_path / "runs.json")
    assert cli.main(["--json", str(tmp_path / "latest.json")]) == 0
    assert f"run saved to {tmp_path / 'runs.json'}" in capsys.readouterr().out
    assert (tmp_path / "latest.json").is_symlink() and Run.load(tmp_path / "runs.json").outcome == "answer"
    assert cli.main(["--json", str(tmp_path / "runs.json"), "--max-steps", "2"]) == 1
    assert Run.load(tmp_path / "latest.json").outcome == "max_steps"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.json", "runs.json"]


@pytest.mark.parametrize("encoding", ["ascii", "cp1252", "latin-1"])
def test_the_demo_prints_in_any_terminal_encoding(encoding):
    done = subprocess.run([sys.executable, "-m", "teachagent", "--question", "Ist KL ein Abstand? ∑ ≠ é"],
                          capture_output=True, timeout=120, env={**os.environ, "PYTHONIOENCODING": encoding})
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode(encoding)
    assert "Z = \\u03a3 c_k = " in out and "outcome: answer" in out
    assert "Traceback" not in done.stderr.decode(encoding)


def test_live_without_a_key_exits_2_naming_the_variable(monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert cli.main(["--live"]) == 2
    out, err = capsys.readouterr()
    assert "ANTHROPIC_API_KEY" in err and len(err.strip().splitlines()) == 1
    assert out == ""


@pytest.mark.server  # starts a local fake API server
def test_live_with_a_server_runs_the_demo_against_it(capsys):
    from fake_openai import FakeOpenAI, completion_body

    with FakeOpenAI() as fake:
        fake.queue((200, completion_body("KL divergence is not a distance: it is not symmetric."), {}))
        assert cli.main(["--live", "--base-url", fake.base_url, "--model", "llama3.2"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith(f"[teachagent] live mode: llama3.2 at {fake.base_url}, an OpenAI-compatible server")
    assert "not symmetric" in out and fake.requests[0].body["model"] == "llama3.2"


def test_a_failed_model_call_exits_1_and_keeps_the_partial_run(monkeypatch, tmp_path, capsys):
    def broken_researcher(strategy, model=None, **options):
        script = [call("read", doc_id="no-such-article"), lambda messages: 1 / 0]
        return research_agent(strategy, model=ScriptedModel(script), **options)

    monkeypatch.setattr(cli, "research_agent", broken_researcher)
    path = tmp_path / "partial.json"
    assert cli.main(["--json", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "got:   ERROR " in out  # the failed read in step 1 is marked
    banner, failed = err.splitlines()
    assert banner.startswith("[teachagent] offline mode")
    assert failed == "teachagent: the model call at step 2 failed: ZeroDivisionError: division by zero"
    run = Run.from_json(path.read_text(encoding="utf-8"))
    assert (len(run.steps), run.outcome) == (1, "error")


def test_python_dash_m_teachagent_runs_in_a_fresh_process():
    done = subprocess.run(
        [sys.executable, "-m", "teachagent", "--strategy", "excerpt"],
        capture_output=True, text=True, encoding="utf-8", timeout=60, cwd=Path(__file__).parent,
    )
    assert done.returncode == 0, done.stderr
    assert "not Claude" in done.stderr and "not Claude" not in done.stdout
    assert "0.119" in done.stdout and "outcome: answer" in done.stdout


def test_help_lists_the_notebook_commands(capsys):
    with pytest.raises(SystemExit) as caught:
        cli.main(["--help"])
    assert caught.value.code == 0
    shown = capsys.readouterr().out
    assert "teachagent notebook {record,replay} NOTEBOOK [--mode live|local] [--cassette PATH]" in shown.splitlines()[1]
    said = " ".join(shown.split())
    assert ("notebook record runs a notebook against a real model (--mode live: Claude, or the server of --base-url and "
            "--model; --mode local: the small model in this process) and records every call") in said
    assert "notebook replay runs it again from that cassette, with no key and no network" in said


def test_a_question_the_script_ignores_is_noted_on_standard_error(capsys):
    assert cli.main(["--question", "Is entropy a distance?"]) == 0
    out, err = capsys.readouterr()
    assert "[teachagent] note: the scripted researcher answers the KL question whatever you ask." in err
    assert "[teachagent]" not in out and "question: Is entropy a distance?" in out


def test_the_console_script_points_at_main():
    (script,) = entry_points(group="console_scripts", name="teachagent")
    assert script.value == "teachagent.__main__:main"
    assert script.load() is cli.main


def test_a_reader_that_goes_away_ends_the_demo_quietly():
    """`python -m teachagent | head -3` must not end in a BrokenPipeError traceback."""
    shell = f"{sys.executable} -m teachagent | head -3"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
    assert len(done.stdout.splitlines()) == 3


# --- modes: the same select_model as the notebooks ------------------------------------------


def without_banners(out: str) -> list[str]:
    return [line for line in out.splitlines() if not line.startswith(("[teachagent]", "recorded to "))]


@pytest.fixture(scope="module")
def demo_recording(tmp_path_factory):
    """`--mode record` once, through the real SDK to the fake API: the cassette and what was printed."""
    cassette = tmp_path_factory.mktemp("demo") / "demo.jsonl"
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as env, FakeAnthropic(policy_server([search_and_excerpt(Library())])) as fake:
        env.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        env.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            assert cli.main(["--mode", "record", "--cassette", str(cassette)]) == 0
        assert len(fake.requests) == 4
    return cassette, printed.getvalue()


@pytest.mark.server  # starts a local fake API server
def test_a_run_recorded_through_the_sdk_replays_to_the_same_output(demo_recording, monkeypatch, capsys):
    cassette, recorded = demo_recording
    assert "record mode" in recorded and f"recorded to {cassette}" in recorded
    assert len(read_cassette(cassette)) == 4
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens: replay must not call out
    assert cli.main(["--mode", "replay", "--cassette", str(cassette)]) == 0
    replayed, banner = capsys.readouterr()
    assert "replay mode" in banner and "no API calls" in banner
    assert without_banners(replayed) == without_banners(recorded)
    assert "0.119" in replayed and "outcome: answer" in replayed


@pytest.mark.server  # starts a local fake API server
def test_a_question_never_recorded_is_one_line_with_the_fix(demo_recording, capsys):
    cassette, _ = demo_recording
    assert cli.main(["--mode", "replay", "--cassette", str(cassette), "--question", "Is entropy a distance?"]) == 1
    out, err = capsys.readouterr()
    banner, err = err.splitlines(keepends=True)  # the replay banner, then one line for the error
    assert banner.startswith("[teachagent] replay mode")
    assert err.startswith("teachagent: the model call at step 1 failed: CassetteError: ")
    assert "nearest recorded request: call 1 (1 message)" in err and 'now "Is entropy a distance?"' in err
    assert err.endswith("undo the change, or ask the instructor for a new recording\n")
    assert "outcome: error" in out


@pytest.mark.server  # starts a local fake API server
def test_a_failed_recording_keeps_the_old_cassette_and_still_saves_the_run(demo_recording, tmp_path, monkeypatch, capsys):
    cassette, path = tmp_path / "demo.jsonl", tmp_path / "partial.json"
    shutil.copy(demo_recording[0], cassette)
    before = cassette.read_bytes()
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    with FakeAnthropic(policy_server([search_and_excerpt(Library())])) as fake:
        fake.queue((200, message_body([text_block("Let me think.")], "pause_turn"), {}),
                   (500, error_body("api_error", "down"), {"x-should-retry": "false"}))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        assert cli.main(["--mode", "record", "--cassette", str(cassette), "--json", str(path)]) == 1
    banner, *err = capsys.readouterr().err.splitlines()
    assert banner.startswith("[teachagent] record mode")
    assert err[0].startswith("teachagent: the model call at step 2 failed: InternalServerError")
    assert err[1] == (f"teachagent: 1 of 2 calls failed, so {cassette} was left as it was "
                      "and the partial recording deleted; record again")
    assert cassette.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["demo.jsonl", "partial.json"]
    assert Run.from_json(path.read_text(encoding="utf-8")).outcome == "error"


@pytest.mark.parametrize("mode", ["record", "replay"])
def test_a_cassette_mode_needs_a_cassette(mode, capsys):
    with pytest.raises(SystemExit) as caught:
        cli.main(["--mode", mode])
    assert caught.value.code == 2 and f"--mode {mode} needs --cassette PATH" in capsys.readouterr().err


def test_record_refuses_a_notebook_or_a_folder_as_its_cassette_before_any_call(tmp_path, monkeypatch, capsys):
    notebook = tmp_path / "lesson.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), notebook)
    before = notebook.read_bytes()
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # a call would fail loudly
    assert cli.main(["--mode", "record", "--cassette", str(notebook)]) == 2
    assert cli.main(["--mode", "record", "--cassette", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    refused = f"teachagent: {notebook} is a notebook, so it was left alone; record to a new .jsonl file or to a cassette"
    assert err.splitlines() == [refused,
                                f"teachagent: {tmp_path} is a folder, not a cassette; name a .jsonl file to record to"]
    assert "question:" not in out and notebook.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson.ipynb"]


# --- notebook record and replay -------------------------------------------------------------


def lesson(path: Path, *cells: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


CALL = ("from teachagent import Message, select_model\nmodel = select_model(script=['unused'])\n"
        "print(model.complete('', [Message('user', 'hi')], [], 50).text)")


@pytest.mark.parametrize("mode", ["record", "replay"])
@pytest.mark.parametrize("absent", [["nbclient"], ["nbclient", "nbformat"]])
def test_notebook_commands_without_the_notebook_extra_say_what_to_install(tmp_path, monkeypatch, capsys, mode, absent):
    notebook = lesson(tmp_path / "lesson.ipynb", "open('ran', 'w').close()")
    for name in absent:
        monkeypatch.setitem(sys.modules, name, None)  # what Python finds when the package is not installed
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    assert cli.main(["notebook", mode, str(notebook)]) == 2
    out, err = capsys.readouterr()
    assert err == (f"teachagent: notebook {mode} needs {' and '.join(absent)}: pip install \"teachagent[notebook]\" "
                   "(in a clone: pip install -e \".[notebook]\")\n")
    assert out == "" and sorted(p.name for p in tmp_path.iterdir()) == ["lesson.ipynb"]


def test_notebook_record_refuses_a_notebook_as_its_cassette(tmp_path, monkeypatch, capsys):
    notebook = lesson(tmp_path / "lesson.ipynb", CALL)
    before = notebook.read_bytes()
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    assert cli.main(["notebook", "record", str(notebook), "--cassette", str(notebook)]) == 2
    out, err = capsys.readouterr()
    assert err == f"teachagent: {notebook} is a notebook, so it was left alone; record to a new .jsonl file or to a cassette\n"
    assert out == "" and notebook.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson.ipynb"]


def test_notebook_record_without_a_key_stops_before_any_cell(tmp_path, capsys):
    notebook = lesson(tmp_path / "lesson.ipynb", "open('ran', 'w').close()", CALL)
    assert cli.main(["notebook", "record", str(notebook)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "ANTHROPIC_API_KEY" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson.ipynb"]  # no cell ran, no draft was made


@pytest.mark.parametrize("mode", ["record", "replay"])
def test_every_bad_notebook_input_is_one_line_and_exit_code_2(tmp_path, monkeypatch, capsys, mode):
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    notebook = lesson(tmp_path / "lesson.ipynb", "open('ran', 'w').close()", CALL)
    (tmp_path / "notes.txt").write_text("not a notebook")
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    (tmp_path / "binary.ipynb").write_bytes(b"\xff\xfe")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    cases = [([str(tmp_path / "none.ipynb")], "there is no file at"),
             ([str(tmp_path)], "is a folder, not a notebook"),
             ([str(tmp_path / "notes.txt")], "is not a notebook \\(NotJSONError"),
             ([str(tmp_path / "list.ipynb")], "is not a notebook \\(AttributeError"),
             ([str(tmp_path / "binary.ipynb")], "not UTF-8 text"),
             ([str(notebook), "--cassette", str(tmp_path)], "is a folder"),
             ([str(notebook), "--cassette", str(tmp_path / "notes.txt")], "not a cassette")]
    for args, complaint in cases:
        assert cli.main(["notebook", mode, *args]) == 2, args
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and err.startswith("teachagent: ") and re.search(complaint, err), err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no cell ran, nothing was written


def test_a_bad_notebook_mode_is_argparses_usage_and_exit_code_2(capsys):
    with pytest.raises(SystemExit) as caught:
        cli.main(["notebook", "play", "lesson.ipynb"])
    assert caught.value.code == 2 and "invalid choice: 'play'" in capsys.readouterr().err


@pytest.mark.server  # starts a local fake API server
@pytest.mark.notebook  # starts a Jupyter kernel
def test_a_failed_notebook_recording_leaves_the_old_cassette_and_prints_no_colour_codes(tmp_path, monkeypatch, capfd):
    """Run as an instructor runs it, output piped (captured at the file descriptors, no terminal):
    progress and one plain line saying what happened."""
    notebook = lesson(tmp_path / "lesson.ipynb", CALL, "1 / 0")
    cassette = tmp_path / "cassettes" / "lesson.jsonl"
    cassette.parent.mkdir()
    cassette.write_text('{"format": "teachagent.cassette/2"}\n', encoding="utf-8")
    before = cassette.read_bytes()
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    with FakeAnthropic(policy_server([lambda messages: "Hello!"])) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        assert cli.main(["notebook", "record", str(notebook)]) == 1
        assert len(fake.requests) == 1  # the first cell's call was made and recorded, then the second cell failed
    out, err = capfd.readouterr()
    assert "\x1b" not in out + err
    assert "cell 1/2 done" in out
    assert err.splitlines()[-1] == (
        f"teachagent: {notebook} stopped at code cell 2 of 2: ZeroDivisionError: division by zero; "
        f"{cassette} was left as it was and the partial recording deleted")
    assert cassette.read_bytes() == before
    assert sorted(p.name for p in cassette.parent.iterdir()) == ["lesson.jsonl"]


@pytest.mark.server  # starts a local fake API server
@pytest.mark.notebook  # starts a Jupyter kernel
def test_a_whole_notebook_recording_replaces_the_cassette(tmp_path, monkeypatch, capsys):
    notebook = lesson(tmp_path / "lesson.ipynb", CALL)
    cassette = tmp_path / "cassettes" / "lesson.jsonl"
    cassette.parent.mkdir()
    cassette.write_text('{"format": "teachagent.cassette/1"}\n', encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    with FakeAnthropic(policy_server([lambda messages: "Hello!"])) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        assert cli.main(["notebook", "record", str(notebook)]) == 0
    assert [r["response"]["content"][0]["text"] for r in read_cassette(cassette)] == ["Hello!"]
    assert sorted(p.name for p in cassette.parent.iterdir()) == ["lesson.jsonl"]
    assert capsys.readouterr().out.splitlines()[-1] == f"record finished: {cassette}"


def test_notebook_record_from_the_local_model_without_its_install_stops_before_any_cell(tmp_path, monkeypatch, capsys):
    import importlib.util

    notebook = lesson(tmp_path / "lesson.ipynb", "open('ran', 'w').close()", CALL)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "xllamacpp" else real(name, *a))
    assert cli.main(["notebook", "record", str(notebook), "--mode", "local"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "local mode needs llama.cpp's server (the xllamacpp package)" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson.ipynb"]  # no cell ran, no draft was made


@pytest.mark.parametrize("args, complaint", [
    (["replay", "lesson.ipynb", "--mode", "local"], "replay plays the cassette's own"),
    (["record", "lesson.ipynb", "--mode", "local", "--model", "m"], "--mode local runs the small model itself"),
    (["record", "lesson.ipynb", "--mode", "offline"], "invalid choice: 'offline'"),
])
def test_notebook_options_that_choose_no_model_to_record_are_refused(args, complaint, capsys):
    with pytest.raises(SystemExit) as caught:
        cli.main(["notebook", *args])
    assert caught.value.code == 2 and complaint in capsys.readouterr().err


def test_the_demo_passes_its_server_to_select_model_and_leaves_the_environment_alone(monkeypatch, capsys):
    monkeypatch.delenv("TEACHAGENT_BASE_URL")
    monkeypatch.delenv("TEACHAGENT_MODEL")
    assert cli.main(["--mode", "offline", "--base-url", "http://127.0.0.1:9/v1", "--model", "llama3.2"]) == 0
    assert "TEACHAGENT_BASE_URL" not in os.environ and "TEACHAGENT_MODEL" not in os.environ


def small_model_server(body):
    """A fake OpenAI-compatible model that doubles the task's number with the tool, then says the result."""
    from fake_openai import completion_body, function_call

    last = body["messages"][-1]
    if last["role"] == "tool":
        return 200, completion_body(f"It is {last['content']}.", model="tiny"), {}
    number = int(re.search(r"\d+", json.dumps(last["content"])).group())
    return 200, completion_body(None, [function_call(f"call_{number}", "double", {"n": number})], "tool_calls",
                                model="tiny"), {}


REAL_RUN_LESSON = (
    "from teachagent import Agent, call, real_model_run, select_model, tool\n\n@tool\ndef double(n: int) -> str:\n"
    "    '''Double a number.'''\n    return str(2 * n)\n\n"
    "model = select_model(script=[call('double', n=21), 'It is 42.'])",
    "print(Agent(model, [double], system='Use tools.').run('Double 21.').answer)",
    "real = real_model_run(lambda m: Agent(m, [double], system='Use tools.').run('Double 4.'), 'cassettes/lesson.jsonl')",
)


@pytest.mark.server  # starts a local fake API server
@pytest.mark.notebook  # starts Jupyter kernels
def test_one_recording_from_a_server_holds_the_lesson_and_its_real_model_run_and_replays_it_all(tmp_path, capsys):
    from fake_openai import FakeOpenAI

    from teachagent.course.notebook_runner import run_notebook

    notebook = lesson(tmp_path / "lesson.ipynb", *REAL_RUN_LESSON)
    cassette = tmp_path / "cassettes" / "lesson.jsonl"
    with FakeOpenAI(small_model_server) as fake:  # no cassette yet: the real_model_run cell records into the new one
        assert cli.main(["notebook", "record", str(notebook), "--mode", "live", "--base-url", fake.base_url,
                         "--model", "tiny"]) == 0
    assert len(fake.requests) == 4 and not os.environ.get("TEACHAGENT_BASE_URL")
    header = cassette.read_text(encoding="utf-8").splitlines()[0]
    assert '"recorded_from": "tiny (live mode, an OpenAI-compatible server)"' in header and fake.base_url not in header
    capsys.readouterr()
    replayed = run_notebook(notebook, "replay", progress=lambda line: None)  # the server is gone: the cassette answers
    banner, answer, real = ("".join(o.get("text", "") for o in cell.outputs) for cell in replayed.cells)
    assert banner == ("[teachagent] replay mode: a recording of tiny (live mode, an OpenAI-compatible server), "
                      f"read back from {cassette}; no API calls.\n")
    assert answer == "It is 42.\n"
    assert real.startswith(f"a real model's run, tiny (live mode, an OpenAI-compatible server), the model that plays "
                           f"yours in this mode, played from {cassette}: "
                           "2 steps, 1 tool call, Z = ") and real.endswith(", answered 'It is 8.'\n")


def run_cli(*args, typed=""):
    return subprocess.run([sys.executable, "-m", "teachagent", *args], input=typed, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "TEACHAGENT_MODE": "offline"})


def test_human_plays_the_research_agent_in_the_terminal():
    typed = 'call search {"query": "KL divergence symmetric"}\n\nKL is not symmetric, so not a distance.\n\n'
    done = run_cli("--human", typed=typed)
    assert done.returncode == 0, done.stderr
    assert "you are the model" in done.stdout and "=== call 2: the model reads c_2 = " in done.stdout
    assert "kl-divergence" in done.stdout  # the real search tool answered the call typed at the prompt
    assert "final answer: KL is not symmetric, so not a distance." in done.stdout


def test_human_hint_comes_from_each_research_tools_schema_and_each_step_prints_only_what_is_new():
    typed = ('call search {"query": "KL divergence symmetric"}\n\ncall calculate {"expression": "1 + 1"}\n\n'
             '/page\n\nKL is not symmetric.\n\n')
    done = run_cli("--human", typed=typed)
    assert done.returncode == 0, done.stderr
    hint = done.stdout.splitlines()[0]
    assert 'call search {"query": "..."}' in hint and 'call read {"doc_id": "kl-divergence"}' in hint
    assert 'call calculate {"expression": "..."}' in hint and "path" not in hint  # no research tool takes a path
    pages = done.stdout.split("=== call ")[1:]
    assert [page.count("[system]") for page in pages] == [1, 0, 0, 1]  # the whole page first, then on request only
    assert "kl-divergence" in pages[1] and "result of call calculate" in pages[2] and "kl-divergence" not in pages[2]


def test_human_who_stops_typing_ends_the_run_in_one_line():
    done = run_cli("--human", typed="")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].endswith("you stopped playing the model (end of input) before the run ended")


def test_human_cannot_be_combined_with_a_live_mode():
    done = run_cli("--human", "--mode", "replay", "--cassette", "x.jsonl")
    assert done.returncode == 2 and "cannot be combined with --mode replay" in done.stderr
