"""Every notebook in live mode, against a fake API that plays a model unlike our scripted ones.

A lesson is written around its scripted model, but a learner with a key gets Claude,
which thinks first, calls tools in its own order, writes more, and sometimes answers
without a tool. `plausible_model.plausible_reply` plays such a model on the local fake
Messages API (tests/fake_anthropic.py), through the real anthropic SDK. Each notebook must
run to its end and say what that model did, never stop on an error.

Each notebook runs on a copy in a temporary folder, so nothing it writes lands beside the
real notebooks. No key, no network: the fake listens on 127.0.0.1.
"""

from __future__ import annotations

import pytest
from fake_anthropic import FakeAnthropic
from live_notebooks import NOTEBOOKS, check_ran_live, execute_copy, uses_a_model
from plausible_model import MAX_TOOL_ROUNDS, claude_count, plausible_reply

# Where this model chooses differently from the script, the lesson must say what it did.
MUST_SHOW = {
    "02_tools.ipynb": ["your model answered without calling add", "your model wrote no tool call", "no round trip",
                       "scripted reference: wrote 'The sum is 10000.'"],
    "04_memory.ipynb": ["long-term memory now holds nothing: it called no tool, and it answered",
                        ": (no plan written)", "a scripted session 1 saves it now"],
    "05_research_kl.ipynb": ["D_KL(0.5‖0.7) = 0.126 bits", "D_KL(0.7‖0.5) = 0.119 bits",
                             "the answer's numbers came from the tool", "articles read whole: 0 of 10",
                             "this run never read mutual-information"],
    # (exercise 8.2's reference solution, checked with this model's c1 and d, fails the run loudly if it is wrong)
    "08_capstone.ipynb": ["tools called, in order: list_notes", "K = 5 calls (the plan: 9)"],
    "09_mcp.ipynb": ["your model:", "scripted reference: ", "Z, tokens read"],
}


@pytest.mark.models  # every lesson under another model: the step of its own, with the poor models and the recordings
@pytest.mark.server  # starts a local fake API server
@pytest.mark.notebook  # starts a Jupyter kernel
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_live_with_another_model(notebook, tmp_path, monkeypatch):
    with FakeAnthropic(plausible_reply, counter=claude_count) as fake:
        monkeypatch.setenv("TEACHAGENT_MODE", "live")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake-key-for-tests")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        nb = execute_copy(notebook, tmp_path, timeout=120)
        asked = [r for r in fake.requests if r.path == "/v1/messages"]

    check_ran_live(nb, MUST_SHOW.get(notebook.name, []))
    assert bool(asked) == uses_a_model(nb)  # every model call went to the fake, and only lessons with a model made any


@pytest.mark.server  # starts a local fake API server
def test_the_plausible_model_is_deterministic_and_stops():
    """Same request, same reply; and a tool that keeps pointing to one more file cannot keep it reading."""
    from teachagent import Agent, tool
    from teachagent.claude import Claude

    @tool
    def read_file(path: str) -> str:
        """Read a file.

        Args:
            path: the file's path, such as 'start.md'.
        """
        return f"This file points on to {path.removesuffix('.md')}-next.md."

    with FakeAnthropic(plausible_reply, counter=claude_count) as fake:
        claude = Claude("claude-test", api_key="test-key", base_url=fake.base_url, max_retries=0, timeout=10)
        first, again = (Agent(claude, [read_file], max_steps=20).run("Read the files.") for _ in range(2))
    assert [s.response.to_dict() for s in first.steps] == [s.response.to_dict() for s in again.steps]
    assert first.outcome == "answer" and len(first.steps) == MAX_TOOL_ROUNDS + 1
