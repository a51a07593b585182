"""A fuzzer run over the sandboxes, the file formats and the settings, a few thousand cases on every CI run.

The file tool's fence, the calculator's limits and the tool time limit are what stand
between text a model writes and the machine. Each is thrown thousands of generated
inputs; none may escape its sandbox, raise out of the dispatcher, or hang.

Saved runs and cassettes are what a learner edits, truncates or gets from someone else,
and the settings (flags of the terminal demo, TEACHAGENT_* variables) are what they type.
Mutated files must load or be refused with the format's own error, and leave the file as
it was; any setting must give a model, a one-line error or argparse's usage, never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_research import _finite_or_refused as finite_or_refused_fast

import teachagent.__main__ as cli
from teachagent.agent import Agent
from teachagent.base.errors import CourseError
from teachagent.base.formats import FormatError
from teachagent.course.modes import select_model
from teachagent.course.replay import CassetteError, Player, Recorder, read_cassette
from teachagent.dispatch import Dispatcher
from teachagent.messages import Message, Response, ToolCall, ToolResult
from teachagent.scripted import ScriptedModel, call
from teachagent.tools import read_file_tool, tool
from teachagent.trace import Run

pytestmark = pytest.mark.fuzz  # thousands of cases: the whole suite runs them, the quick tier leaves them out
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


# --- the file formats --------------------------------------------------------------------------

FILES = settings(FUZZ, max_examples=300, deadline=5000)  # 5 s: a guard against unbounded work, not a speed test
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                    max_leaves=12)
LITERALS = st.sampled_from(["null", "NaN", "-Infinity", "1e999", "9" * 400, "[" * 300, '"\\ud800"', "{}", "[]",
                            "true", "-1", "0.5", '""', '"tool_result"', "12.0"])


@tool
def double(n: int) -> str:
    """Double a number."""
    return str(2 * n)


def a_run() -> Run:
    script = [call("double", n=21), call("halve", n=2), "It is 42."]
    return Agent(ScriptedModel(script), tools=[double], system="Use tools.").run("Double 21.")


SAVED = a_run().to_json()


def paths_in(value, path=()):
    """Every place in a JSON value, as the keys and indexes that lead to it."""
    yield list(path)
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from paths_in(item, (*path, key))


@st.composite
def mutated(draw, saved: str):
    """`saved` with one place replaced by generated JSON or a hostile literal, a key dropped, or the text cut."""
    data = json.loads(saved)
    places = list(paths_in(data))
    path = draw(st.sampled_from(places))
    how = draw(st.sampled_from(["value", "literal", "drop", "cut"]))
    if how == "cut":
        return saved[: draw(st.integers(0, len(saved)))]
    if not path:
        return draw(st.text(max_size=50)) if how == "literal" else json.dumps(draw(JSON))
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    if how == "drop":
        del parent[path[-1]]
        return json.dumps(data, indent=1)
    marker = "\u2603MARK\u2603"
    parent[path[-1]] = marker if how == "literal" else draw(JSON)
    return json.dumps(data, indent=1).replace(json.dumps(marker), draw(LITERALS))


def usable(run: Run) -> None:
    """What everything downstream does with a loaded run must work too."""
    assert isinstance(repr(run), str) and run.Z >= 0 and run.messages
    assert Run.from_json(run.to_json()) == run


@FILES
@given(text=mutated(SAVED))
def test_a_mutated_saved_run_loads_or_is_refused_clearly(text):
    try:
        run = Run.from_json(text)
    except FormatError as error:
        assert str(error).startswith("not a saved Run: line ") and "\n" not in str(error)
        return
    usable(run)


@pytest.fixture(scope="module")
def cassette_text(tmp_path_factory):
    cassette = tmp_path_factory.mktemp("cassette") / "c.jsonl"
    model = ScriptedModel([call("double", n=21), "It is 42."])
    model.count_tokens = lambda system, messages, tools=(): 7
    recorder = Recorder(model, cassette)
    Agent(recorder, [double], system="Use tools.").run("Double 21.")
    recorder.count_tokens("", [Message("user", "hi")])
    recorder.finish()
    return cassette.read_text(encoding="utf-8")


@FILES
@given(data=st.data())
def test_a_mutated_cassette_replays_or_is_refused_clearly_and_is_left_as_it_was(tmp_path_factory, cassette_text, data):
    lines = cassette_text.splitlines()
    at = data.draw(st.integers(0, len(lines) - 1))
    lines[at] = data.draw(mutated(lines[at])).replace("\n", " ")
    if data.draw(st.booleans()):
        lines[0] = data.draw(st.sampled_from(['{"format": "teachagent.cassette/1"}', lines[0]]))
    path = tmp_path_factory.mktemp("mutated") / "c.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    before = path.read_bytes()
    try:
        player = Player(path)
    except CassetteError as error:
        assert "\n" not in str(error)
    else:  # every recorded answer must be readable by the player
        assert all(Response.from_dict(r["response"]) for r in read_cassette(path) if r["kind"] == "complete")
        assert isinstance(repr(player), str)
    assert path.read_bytes() == before


@settings(FUZZ, max_examples=150, deadline=5000)
@given(content=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_bytes_load_as_a_run_or_a_cassette_or_are_refused_clearly(tmp_path_factory, content):
    path = tmp_path_factory.mktemp("bytes") / "file.json"
    path.write_bytes(content)
    with contextlib.suppress(FormatError):
        usable(Run.load(path))
    with contextlib.suppress(CassetteError):
        read_cassette(path)
    assert path.read_bytes() == content


# --- the settings ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    """Paths a learner might give: new, a folder, a missing folder, a file of theirs, a symlink, a loop."""
    base = tmp_path_factory.mktemp("settings")
    (base / "notes.txt").write_text("mine")
    (base / "link.json").symlink_to(base / "target.json")
    (base / "loop.json").symlink_to(base / "loop.json")
    return base, [str(base / name) for name in ["run.json", "", "none/run.json", "notes.txt", "link.json", "loop.json",
                                                "notes.txt/x.json", "c.jsonl", "d.jsonl.1-1.draft"]]


VALUES = st.sampled_from(["0", "1", "2", "-1", "1e9", "nan", "inf", "two", "", " ", "3.5", "offline", "live",
                          "record", "replay", "LIVE", " replay ", "excerpt", "everything", "∑é", "\udcff"])
FLAGS = st.sampled_from(["--max-steps", "--mode", "--strategy", "--json", "--cassette", "--question", "--live", "--x"])


@settings(FUZZ, max_examples=60, deadline=10_000)
@given(data=st.data())
def test_any_flags_give_a_run_a_one_line_error_or_usage_never_a_traceback(places, data):
    base, paths = places
    argv = []
    for flag in data.draw(st.lists(FLAGS, max_size=4)):
        value = data.draw(st.sampled_from(paths) if flag in ("--json", "--cassette") else VALUES)
        argv += [flag] if flag == "--live" else [flag, value]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as stopped:  # argparse: usage and the problem, exit code 2
            code = stopped.code
            assert code == 2 and "usage: teachagent" in err.getvalue()
    assert code in (0, 1, 2) and "Traceback" not in err.getvalue()
    if code == 2 and "usage:" not in err.getvalue():
        assert err.getvalue().count("\n") == 1
    assert (base / "notes.txt").read_text() == "mine"


@settings(FUZZ, max_examples=200, deadline=5000)
@given(mode=st.text(max_size=30) | VALUES, cassette=st.text(max_size=30), draft=st.text(max_size=30))
def test_any_mode_and_cassette_settings_give_a_model_or_a_course_error(places, mode, cassette, draft):
    base, _ = places
    with pytest.MonkeyPatch.context() as env:
        env.chdir(base)  # a relative cassette or draft path lands here, never in the repository
        for name, value in (("TEACHAGENT_MODE", mode), ("TEACHAGENT_CASSETTE", cassette), ("TEACHAGENT_DRAFT", draft)):
            if "\x00" in value or not value.isprintable():  # what an environment variable cannot hold
                env.delenv(name, raising=False)
            else:
                env.setenv(name, value)
        env.delenv("ANTHROPIC_API_KEY", raising=False)
        try:
            model = select_model(["hi"], quiet=True)
        except CourseError as error:
            assert "\n" not in str(error)
        else:
            assert hasattr(model, "complete")
    assert (base / "notes.txt").read_text() == "mine"
