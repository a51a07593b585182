"""Record and replay: cassettes replay runs exactly, refuse changed requests, and never hold a key."""

from __future__ import annotations

import json

import nbformat
import pytest

from fake_anthropic import FakeAnthropic, message_body, text_block, tool_use_block
from teachagent import __main__ as cli
from teachagent.agent import Agent, AgentError
from teachagent.claude import Claude
from teachagent.models import ScriptedModel, call
from teachagent.replay import FORMAT, CassetteError, Player, Recorder, first_difference, read_cassette, run_notebook
from teachagent.tools import tool

FAKE_KEY = "sk-ant-api03-" + "x" * 40


@tool
def double(n: int) -> str:
    """Double a number."""
    return str(2 * n)


def scripted():
    return ScriptedModel([call("double", n=21), lambda m: f"It is {m[-1].content[0].content}."])


def record(path, task="Double 21."):
    return Agent(Recorder(scripted(), path), [double], system="Use tools.").run(task)


def test_a_replayed_run_is_the_recorded_run(tmp_path):
    cassette = tmp_path / "c.jsonl"
    recorded = record(cassette)
    replayed = Agent(Player(cassette), [double], system="Use tools.").run("Double 21.")
    assert [s.to_dict() | {"seconds": 0} for s in replayed.steps] == [s.to_dict() | {"seconds": 0} for s in recorded.steps]
    assert replayed.answer == "It is 42." and replayed.model == "scripted (replayed)"


def test_a_changed_prompt_says_which_call_diverged_and_how(tmp_path):
    cassette = tmp_path / "c.jsonl"
    record(cassette)
    with pytest.raises(AgentError, match=r"call 1 differs.*messages\[0\]\.content\[0\]\.text was \"Double 21\.\" "
                                          r"when recorded, now \"Double 22\.\"") as caught:
        Agent(Player(cassette), [double], system="Use tools.").run("Double 22.")
    assert isinstance(caught.value.__cause__, CassetteError) and caught.value.run.steps == []


def test_a_changed_system_prompt_or_toolset_is_caught(tmp_path):
    cassette = tmp_path / "c.jsonl"
    record(cassette)
    with pytest.raises(AgentError, match="request.system was"):
        Agent(Player(cassette), [double], system="Be brief.").run("Double 21.")
    with pytest.raises(AgentError, match="request.tools had 1 items when recorded, now 0"):
        Agent(Player(cassette), [], system="Use tools.").run("Double 21.")


def test_asking_for_more_calls_than_recorded_is_an_error(tmp_path):
    cassette = tmp_path / "c.jsonl"
    record(cassette)
    player = Player(cassette)
    Agent(player, [double], system="Use tools.").run("Double 21.")
    with pytest.raises(AgentError, match="holds 2 calls and call 3 was asked for"):
        Agent(player, [double], system="Use tools.").run("Double 21.")


@pytest.mark.parametrize(
    "damage, complaint",
    [
        (lambda text: text[: len(text) - 25], "damaged at line 3"),  # cut short while recording
        (lambda text: text.replace('"stop_reason": "end_turn"', '"stop_reason": "bored"'), "damaged at line 3"),
        (lambda text: "hello\n" + text, "not a cassette"),
        (lambda text: "", "not a cassette"),
    ],
)
def test_a_damaged_cassette_is_a_clear_error(tmp_path, damage, complaint):
    cassette = tmp_path / "c.jsonl"
    record(cassette)
    cassette.write_text(damage(cassette.read_text()))
    with pytest.raises(CassetteError, match=complaint):
        Player(cassette)


def test_a_missing_or_binary_cassette_is_a_clear_error(tmp_path):
    with pytest.raises(CassetteError, match="there is no cassette"):
        read_cassette(tmp_path / "none.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(CassetteError, match="not UTF-8"):
        read_cassette(tmp_path / "bin.jsonl")


def test_first_difference_names_the_place():
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == "request.a[1].b was 2 when recorded, now 3"
    assert first_difference({"a": 1}, {"a": 1, "c": 2}) == "request.c is new"
    assert first_difference([1, 2], [1, 2]) is None


def test_recording_claude_keeps_no_key_and_no_headers(tmp_path, monkeypatch):
    cassette = tmp_path / "c.jsonl"
    with FakeAnthropic() as fake:
        fake.queue((200, message_body([tool_use_block("toolu_1", "double", {"n": 21})], "tool_use"), {}),
                   (200, message_body([text_block("It is 42.")]), {}))
        claude = Claude("claude-test", api_key=FAKE_KEY, base_url=fake.base_url, max_retries=0, timeout=5)
        run = Agent(Recorder(claude, cassette), [double]).run("Double 21.")
    text = cassette.read_text()
    assert run.answer == "It is 42." and len(read_cassette(cassette)) == 2
    assert FAKE_KEY not in text and "authorization" not in text.lower() and "x-api-key" not in text.lower()
    assert json.loads(text.splitlines()[0]) == {"format": FORMAT}


NOTEBOOK = [
    "from teachagent import Message, select_model\nmodel = select_model(script=['unused offline'])",
    "reply = model.complete('Be brief.', [Message('user', {prompt!r})], [], 100)\nprint(reply.text, reply.usage.output_tokens)",
]


def make_notebook(path, prompt):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src.format(prompt=prompt)) for src in NOTEBOOK]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def outputs(nb):
    return [[o.get("text") for o in cell.outputs if o.get("name") == "stdout"] for cell in nb.cells]


def test_a_recorded_notebook_replays_to_identical_outputs_offline(tmp_path, monkeypatch):
    notebook, cassette = tmp_path / "lesson.ipynb", tmp_path / "cassettes" / "lesson.jsonl"
    make_notebook(notebook, "Say hello.")
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    progress: list[str] = []
    with FakeAnthropic() as fake:
        fake.queue((200, message_body([text_block("Hello from Claude.")]), {}))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        recorded = run_notebook(notebook, "record", progress=progress.append)
    assert "cell 2/2 done" in progress[-1] and cassette.exists()

    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens: replay must not call out
    replayed = run_notebook(notebook, "replay", progress=lambda line: None)
    assert outputs(replayed)[1:] == outputs(recorded)[1:]  # all but the banner, which names the mode
    assert "Hello from Claude." in outputs(replayed)[1][0]
    assert "replay mode" in replayed.cells[0].outputs[0]["text"]

    make_notebook(notebook, "Say goodbye.")
    with pytest.raises(CassetteError, match="call 1 differs.*\"Say hello.\" when recorded, now \"Say goodbye.\""):
        run_notebook(notebook, "replay", progress=lambda line: None)


def test_the_notebook_command_reports_a_missing_cassette(tmp_path, capsys):
    notebook = tmp_path / "lesson.ipynb"
    make_notebook(notebook, "Hi.")
    assert cli.main(["notebook", "replay", str(notebook)]) == 1
    assert "there is no cassette" in capsys.readouterr().err


def policy_server(policies):
    """A responder that plays our scripted researchers as if it were Claude, one conversation each.

    A conversation that starts afresh (one message) takes the next policy in turn; the
    policy's reply is sent back in the Messages API's shape, through the real SDK.
    """
    from teachagent.messages import Message
    from teachagent.models import ScriptedModel

    turn = {"policy": None, "next": 0}

    def respond(body):
        messages = [Message.from_dict(m) for m in body["messages"]]
        if len(messages) == 1:
            turn["policy"], turn["next"] = ScriptedModel(policies[turn["next"] % len(policies)]), turn["next"] + 1
        reply = turn["policy"].complete(body.get("system", ""), messages, body.get("tools", []), body["max_tokens"])
        usage = {"input_tokens": reply.usage.input_tokens, "output_tokens": reply.usage.output_tokens}
        return 200, message_body([b.to_dict() for b in reply.content], reply.stop_reason, usage=usage), {}

    return respond


def test_lesson_5_runs_live_through_the_sdk_then_replays_offline_identically(tmp_path, monkeypatch):
    """The real lesson, live mode's code path end to end, recorded, then replayed with no server."""
    import shutil
    from pathlib import Path

    from teachagent.research.corpus import Library
    from teachagent.research.researcher import read_everything, search_and_excerpt

    lesson = tmp_path / "05_research_kl.ipynb"
    shutil.copy(Path(__file__).parent.parent / "notebooks" / "05_research_kl.ipynb", lesson)
    library = Library()
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    with FakeAnthropic(policy_server([search_and_excerpt(library), read_everything(library)])) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        recorded = run_notebook(lesson, "record", progress=lambda line: None)
        calls = len(fake.requests)
    assert calls == 4 + 11  # the excerpt run and the read-everything run, every call through the SDK

    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens there
    replayed = run_notebook(lesson, "replay", progress=lambda line: None)

    def texts(nb):  # each cell's printed text and rich outputs, less the line that names the mode
        cells = []
        for cell in nb.cells:
            printed = "".join(str(o.get("text", "")) for o in cell.get("outputs", []))
            shown = [str(o.get("data", {}).get(kind, "")) for o in cell.get("outputs", []) for kind in ("text/html", "text/plain")]
            cells.append("\n".join(line for line in printed.splitlines() if not line.startswith("[teachagent]")) + "".join(shown))
        return cells

    assert [t.replace(" (replayed)", "") for t in texts(replayed)] == texts(recorded)
    assert any("0.119" in t and "0.126" in t for t in texts(replayed))
