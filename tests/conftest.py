"""Test settings and fixtures shared by every test file.

Property-based tests explore the same examples on every run (derandomize) and keep no
example database, so a CI run is deterministic: it passes or fails the same way twice.
"""

import pytest
from hypothesis import settings

settings.register_profile("teachagent", derandomize=True, database=None, deadline=None)
settings.load_profile("teachagent")


@pytest.fixture(autouse=True)
def servers_are_marked(request):
    """A test that starts a fake API server must say so with `@pytest.mark.server`, which keeps it out of
    the quick tier (docs/tests.md): otherwise that tier would quietly grow servers again."""
    from fake_anthropic import FakeAnthropic

    before = FakeAnthropic.started
    yield
    if FakeAnthropic.started != before and not request.node.get_closest_marker("server"):
        pytest.fail("this test starts a fake API server: mark it @pytest.mark.server", pytrace=False)


@pytest.fixture(autouse=True)
def quick_sdk_retries(request, monkeypatch):
    """The SDKs wait 0.5 s, then 1 s, ... between tries; against a local fake that is only idle
    time, so the wait starts at 10 ms. What is retried, how often, and the Retry-After a server
    sends are all unchanged. (Private names of the SDKs: if one is renamed, the waits are just longer.)"""
    if not request.node.get_closest_marker("server"):
        return  # nothing to wait for, and no SDK to import
    for sdk in ("anthropic", "openai"):
        monkeypatch.setattr(f"{sdk}._base_client.INITIAL_RETRY_DELAY", 0.01, raising=False)


@pytest.fixture
def openai_fake(monkeypatch):
    """A fake chat-completions server on 127.0.0.1 (tests/fake_openai.py), with no proxy, key or base URL
    of the machine's in the way."""
    from fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def said(capsys):
    """What an exercise check printed, which must be exactly one line (never a traceback).

    `said()` gives the whole line; `said("4.1")` also checks it is about exercise 4.1 and
    gives what follows "exercise 4.1: ".
    """

    def printed(exercise: str | None = None) -> str:
        out = capsys.readouterr().out
        assert out.count("\n") == 1, out
        if exercise is None:
            return out
        assert out.startswith(f"exercise {exercise}: "), out
        return out.removeprefix(f"exercise {exercise}: ")

    return printed


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium for a browser test file (tests/browser.py); each file brings its own `lab`."""
    from browser import launch_chromium

    with launch_chromium() as browser:
        yield browser


@pytest.fixture
def page(lab, chromium):
    """A fresh page in that Chromium; when the test ends it is closed and the kernels it started shut down."""
    from browser import chromium_page, end_sessions

    with chromium_page(chromium) as page:
        yield page
    end_sessions(lab)
