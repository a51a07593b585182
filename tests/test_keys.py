"""An API key never travels further than the SDK: not into an error, a notebook, a saved run or a cassette.

The usual accident is a key read from a .env file saved with Windows line endings, which
ends in "\r". The HTTP library would refuse that header and quote it, key and all, in an
error that Jupyter shows and saves into the notebook. So such a key is refused before any
request, with a message that names the problem and not the key.
"""

from __future__ import annotations

import json
import traceback

import nbformat
import pytest
from fake_anthropic import EchoAuthorization, FakeAnthropic, message_body, text_block
from shown import everything_shown

from teachagent.agent import Agent, AgentError
from teachagent.base.errors import SettingError
from teachagent.claude import Claude, MissingAPIKey
from teachagent.course.replay import Recorder
from teachagent.openai_compatible import OpenAICompatible

SECRET = "Q7mZr2XkP9wLb4NcT1vHs8JdF3gYe6Ua"  # a made-up key body; never a real key
GOOD_KEY = "sk-ant-api03-" + SECRET


def leaks(text: str) -> bool:
    """Whether any 8 characters in a row of the key's secret part appear in `text`."""
    return any(SECRET[i : i + 8] in text for i in range(len(SECRET) - 7))


@pytest.mark.parametrize("key", [GOOD_KEY + "\r", GOOD_KEY + "\n", " " + GOOD_KEY, GOOD_KEY[:20] + "\t" + GOOD_KEY[20:],
                                 GOOD_KEY + "\x00", GOOD_KEY + "\u200b"],
                         ids=["cr", "lf", "leading-space", "tab", "nul", "zero-width-space"])
def test_a_key_with_whitespace_or_a_control_character_is_refused_without_quoting_it(key):
    with pytest.raises(MissingAPIKey) as caught:
        Claude("claude-test", api_key=key)
    shown = "".join(traceback.format_exception(caught.value)) + repr(caught.value)
    assert "whitespace or a control character" in str(caught.value) and "\n" not in str(caught.value)
    assert not leaks(shown)
    assert caught.value._render_traceback_() == [f"MissingAPIKey: {caught.value}"]


@pytest.mark.server  # starts a local fake API server
def test_the_key_is_not_in_the_adapter_repr_a_saved_run_or_a_cassette(tmp_path, monkeypatch):
    with FakeAnthropic() as fake:
        fake.queue((200, message_body([text_block("Hi.")]), {}))
        claude = Claude("claude-test", api_key=GOOD_KEY, base_url=fake.base_url, max_retries=0, timeout=5)
        recorder = Recorder(claude, tmp_path / "c.jsonl")
        run = Agent(recorder, []).run("Hello.")
        recorder.finish()
    headers = fake.requests[0].headers
    assert headers.get("authorization", "").endswith(SECRET) or headers.get("x-api-key") == GOOD_KEY
    written = "".join(p.read_text() for p in tmp_path.iterdir() if p.is_file())
    assert written and not leaks(written + run.to_json() + repr(claude) + repr(recorder) + repr(run))


@pytest.mark.notebook  # starts a Jupyter kernel
def test_a_notebook_with_a_bad_key_shows_one_line_and_saves_no_part_of_the_key(tmp_path, monkeypatch):
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    monkeypatch.setenv("TEACHAGENT_MODE", "live")
    monkeypatch.setenv("ANTHROPIC_API_KEY", GOOD_KEY + "\r")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from teachagent import select_model\nmodel = select_model(script=['hi'])")]
    with pytest.raises(CellExecutionError):
        NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    path = tmp_path / "lesson.ipynb"
    nbformat.write(nb, path)
    error = nb.cells[0].outputs[-1]
    assert error["output_type"] == "error" and error["ename"] == "MissingAPIKey"
    assert len(error["traceback"]) == 1 and "whitespace or a control character" in error["traceback"][0]
    assert not leaks(path.read_text(encoding="utf-8")) and not leaks(json.dumps(nb))


@pytest.mark.server  # starts a local fake API server
def test_a_server_that_echoes_the_key_in_a_401_puts_it_in_no_error(monkeypatch):
    import anthropic  # here, not at the top: the quick tier collects this file without paying for the SDK's import

    with FakeAnthropic() as fake:
        fake.queue(EchoAuthorization())
        claude = Claude("claude-test", api_key=GOOD_KEY, base_url=fake.base_url, max_retries=0, timeout=5)
        with pytest.raises(AgentError) as caught:
            Agent(claude, []).run("Hello.")
    assert isinstance(caught.value.__cause__, anthropic.AuthenticationError)
    assert "Bearer [the API key]" in str(caught.value)
    assert not leaks(everything_shown(caught.value))


def test_a_client_that_cannot_be_built_is_one_line_with_no_key_in_its_frames():
    with pytest.raises(SettingError) as caught:
        Claude("claude-test", api_key=GOOD_KEY, base_url="http://[::1")
    assert "cannot be made" in str(caught.value) and "\n" not in str(caught.value)
    assert not leaks(everything_shown(caught.value))


@pytest.mark.parametrize("adapter", [Claude, OpenAICompatible])
def test_an_adapter_that_could_not_be_made_is_still_safe_to_print(adapter):
    """A traceback through a constructor that raised prints its `self`: half-built, it must still have a repr."""
    half_built = adapter.__new__(adapter)
    assert "(not set yet)" in repr(half_built)


def test_the_connection_shows_neither_the_key_nor_the_addresss_credentials(monkeypatch):
    from teachagent.base.http import Connection, Secret

    monkeypatch.setenv("OPENAI_API_KEY", GOOD_KEY)
    connection = Connection.read(Secret(""), "OPENAI_API_KEY", "http://ann:pw@127.0.0.1:9/v1?api_key=x", "OPENAI_BASE_URL")
    assert connection.secret.reveal() == GOOD_KEY and GOOD_KEY not in repr(connection)
    assert "pw" not in repr(connection) and "api_key=x" not in repr(connection) and "127.0.0.1:9" in repr(connection)
