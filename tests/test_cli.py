"""`python -m teachagent`: the research agent in a terminal."""

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import teachagent.__main__ as cli
from teachagent import ScriptedModel, call
from teachagent.research.researcher import QUESTION, research_agent
from teachagent.trace import Run


def test_default_run_prints_every_step_and_the_answer(capsys):
    expected = research_agent("excerpt").run(QUESTION)  # the same scripted run, for its c_k and Z

    assert cli.main([]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert "scripted" in first and "not Claude" in first
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


def test_an_unwritable_json_path_exits_2_after_the_summary(tmp_path, capsys):
    path = tmp_path / "no such folder" / "run.json"
    assert cli.main(["--json", str(path)]) == 2
    out, err = capsys.readouterr()
    assert "outcome: answer" in out and "K = 4 steps" in out
    assert f"cannot save the run to {path}" in err and "No such file or directory" in err
    assert "Traceback" not in err


def test_live_without_a_key_exits_2_naming_the_variable(monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert cli.main(["--live"]) == 2
    out, err = capsys.readouterr()
    assert "ANTHROPIC_API_KEY" in err and len(err.strip().splitlines()) == 1
    assert out == ""


def test_a_failed_model_call_exits_1_and_keeps_the_partial_run(monkeypatch, tmp_path, capsys):
    def broken_researcher(strategy, model=None, **options):
        script = [call("read", doc_id="no-such-article"), lambda messages: 1 / 0]
        return research_agent(strategy, model=ScriptedModel(script), **options)

    monkeypatch.setattr(cli, "research_agent", broken_researcher)
    path = tmp_path / "partial.json"
    assert cli.main(["--json", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "got:   ERROR " in out  # the failed read in step 1 is marked
    assert err.strip().splitlines() == ["teachagent: the model call at step 2 failed: ZeroDivisionError: division by zero"]
    run = Run.from_json(path.read_text(encoding="utf-8"))
    assert (len(run.steps), run.outcome) == (1, "error")


def test_python_dash_m_teachagent_runs_in_a_fresh_process():
    done = subprocess.run(
        [sys.executable, "-m", "teachagent", "--strategy", "excerpt"],
        capture_output=True, text=True, encoding="utf-8", timeout=60, cwd=Path(__file__).parent,
    )
    assert done.returncode == 0, done.stderr
    assert "not Claude" in done.stdout.splitlines()[0]
    assert "0.119" in done.stdout and "outcome: answer" in done.stdout


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
