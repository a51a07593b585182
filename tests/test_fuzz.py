"""A fuzzer run over the sandboxes, a few thousand cases on every CI run.

The file tool's fence, the calculator's limits and the tool time limit are what stand
between text a model writes and the machine. Each is thrown thousands of generated
inputs; none may escape its sandbox, raise out of the dispatcher, or hang.
"""

from __future__ import annotations

import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_research import _finite_or_refused as finite_or_refused_fast

from teachagent.dispatch import Dispatcher
from teachagent.messages import ToolCall, ToolResult
from teachagent.tools import read_file_tool, tool

FUZZ = settings(derandomize=True, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SECRET = "the password is swordfish"


@pytest.fixture(scope="module")
def fenced(tmp_path_factory):
    """A folder with files, a subfolder, links out of it, and a secret beside it."""
    base = tmp_path_factory.mktemp("fuzz")
    root = base / "root"
    (root / "docs").mkdir(parents=True)
    (root / "notes.txt").write_text("inside")
    (root / "docs" / "a.md").write_text("also inside")
    (base / "secret.txt").write_text(SECRET)
    (root / "link_out.txt").symlink_to(base / "secret.txt")
    (root / "dir_out").symlink_to(base)
    (root / "loop").symlink_to(root / "loop")
    return root, Dispatcher([read_file_tool(root)])


PATH_PARTS = st.sampled_from(["..", ".", "", "/", "notes.txt", "docs", "a.md", "link_out.txt", "dir_out",
                              "secret.txt", "loop", "~", "\x00", "%2e%2e", "..\\..", "root"])
PATHS = st.one_of(st.lists(PATH_PARTS, max_size=8).map("/".join), st.text(max_size=300))


@settings(FUZZ, max_examples=2500)
@given(path=PATHS)
def test_read_file_never_leaves_its_folder(fenced, path):
    root, dispatcher = fenced
    result = dispatcher(ToolCall("f", "read_file", {"path": path}))
    assert isinstance(result, ToolResult) and SECRET not in result.content
    if not result.is_error:  # a success must be a file whose real path is inside the folder
        assert os.path.realpath(root / path).startswith(str(root.resolve()) + os.sep)


ARITHMETIC = st.text(alphabet="0123456789.+-*/^()e ,", max_size=60)
PIECES = ["log2(", "ln(", "sqrt(", "exp(", "abs(", "pi", "e", "**", "9" * 20, "1e308",
          "(", ")", "-", "/0", "__import__", "'a'", "[1]", "lambda x: x", "x.y"]
WORDS = st.lists(st.sampled_from(PIECES), max_size=25).map("".join)


@settings(FUZZ, max_examples=3000)
@given(expression=st.one_of(ARITHMETIC, WORDS, st.text(max_size=400)))
def test_the_calculator_answers_or_refuses_quickly(expression):
    finite_or_refused_fast(expression)


@tool(timeout=0.01)
def nap(milliseconds: int) -> str:
    """Sleep for a while, then say so."""
    time.sleep(milliseconds / 1000)
    return "awake"


@settings(FUZZ, max_examples=50)
@given(milliseconds=st.integers(min_value=0, max_value=3000))
def test_a_tool_past_its_time_limit_is_cut_off_on_time(milliseconds):
    started = time.perf_counter()
    result = Dispatcher([nap])(ToolCall("n", "nap", {"milliseconds": milliseconds}))
    waited = time.perf_counter() - started
    # near the 10 ms limit, not the up to 3 s the tool sleeps; 1 s leaves room for a busy machine
    assert waited < 1.0
    assert result.content == "awake" or (result.is_error and "did not finish within 0.01 s" in result.content)
