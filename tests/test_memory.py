"""Memory: the plan, long-term notes on SQLite, sub-agents and the limit on working memory.

Covers teachagent/memory.py and the parts of the loop that notebooks/04_memory.ipynb
leans on: `Agent(max_context_tokens=...)`, `WithWindow(model, window)` and
`Agent.as_tool`. Everything is offline and deterministic; subprocess waits are bounded.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teachagent.agent import Agent, AgentError
from teachagent.base.errors import PromptTooLong
from teachagent.dispatch import Dispatcher
from teachagent.memory import MAX_SEARCH_WORDS, MemoryStore, MemoryStoreError, Note, memory_tools
from teachagent.messages import Message, ToolCall, ToolResult
from teachagent.plan import find_plan, write_plan
from teachagent.scripted import ScriptedModel, call, latest_results
from teachagent.tokens import context_tokens
from teachagent.tools import tool
from teachagent.window import WithWindow

PROCESS_TIMEOUT = 30  # seconds; a healthy subprocess here takes well under one


class RecordingModel(ScriptedModel):
    """A ScriptedModel that keeps what it was sent on every call: (system, messages as dicts)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.seen: list[tuple[str, list[dict]]] = []

    def complete(self, system, messages, tools=(), max_tokens=1024):
        self.seen.append((system, [m.to_dict() for m in messages]))  # a snapshot: the agent's list grows later
        return super().complete(system, messages, tools, max_tokens)


def python(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run `code` in a fresh Python process, bounded in time; fail the test on a non-zero exit."""
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=PROCESS_TIMEOUT,
    )
    assert done.returncode == 0, f"the subprocess failed:\n{done.stderr}"
    return done


# --- the plan ---------------------------------------------------------------------------


def test_a_plan_round_trips_through_text():
    items = [(True, "read the notes"), (False, "search for the date"), (False, "write the answer")]
    text = write_plan(items)
    assert text == "Plan:\n1. [x] read the notes\n2. [ ] search for the date\n3. [ ] write the answer"
    assert find_plan(text) == items


def test_done_and_open_items_are_told_apart():
    assert find_plan(write_plan([(True, "a"), (True, "b")])) == [(True, "a"), (True, "b")]
    assert find_plan(write_plan([(False, "a"), (False, "b")])) == [(False, "a"), (False, "b")]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Just an answer: 42.",
        "Plan: none needed.",
        "1. [x] a list with no Plan: line above it",
        "Plan:\n- [x] bullets",
    ],
)
def test_text_without_a_plan_gives_none(text):
    assert find_plan(text) is None


def test_a_plan_inside_prose_is_found_and_the_prose_is_left_out():
    text = (
        "I have read the task and will work through it step by step.\n"
        "Plan:\n"
        "1. [x] list the files\n"
        "2. [ ] read report.txt\n"
        "Now I call read_file on report.txt. 3. [ ] is not an item."
    )
    assert find_plan(text) == [(True, "list the files"), (False, "read report.txt")]


def test_an_upper_case_x_counts_as_done():
    assert find_plan("Plan:\n1. [X] first\n2. [ ] second") == [(True, "first"), (False, "second")]


# --- MemoryStore ------------------------------------------------------------------------


@pytest.fixture
def store(tmp_path) -> MemoryStore:
    return MemoryStore(tmp_path / "notes.db")


def test_save_returns_the_note_and_all_lists_them_oldest_first(store):
    first = store.save("  The user prefers metric units.  ")
    second = store.save("The project deadline is 14 March.")
    assert first == Note(1, "The user prefers metric units.")  # stripped
    assert second.id == 2 and str(second) == "[2] The project deadline is 14 March."
    assert store.all() == [first, second]


def test_search_needs_every_word_and_ignores_case(store):
    store.save("Paris is the capital of France")
    store.save("Rome is the capital of Italy")
    store.save("paris has a river, the Seine")
    assert [n.text for n in store.search("PARIS capital")] == ["Paris is the capital of France"]
    assert [n.text for n in store.search("paris")] == ["paris has a river, the Seine", "Paris is the capital of France"]
    assert store.search("paris rome") == []
    assert store.search("Berlin") == []


def test_search_reads_percent_underscore_and_backslash_literally(store):
    store.save("the battery was at 100% this morning")
    store.save("the run took 100 steps")
    store.save("snake_case names")
    store.save("snakeXcase is not the same")
    store.save(r"files live in C:\temp")
    store.save("nothing special here")
    assert [n.text for n in store.search("100%")] == ["the battery was at 100% this morning"]
    assert [n.text for n in store.search("%")] == ["the battery was at 100% this morning"]
    assert [n.text for n in store.search("snake_case")] == ["snake_case names"]
    assert [n.text for n in store.search("_")] == ["snake_case names"]
    assert [n.text for n in store.search("C:\\temp")] == [r"files live in C:\temp"]
    assert store.search("\\") == [Note(5, r"files live in C:\temp")]


def test_search_gives_the_newest_first_up_to_the_limit(store):
    for i in range(7):
        store.save(f"meeting note {i}")
    store.save("unrelated")
    assert [n.text for n in store.search("meeting")] == [f"meeting note {i}" for i in (6, 5, 4, 3, 2)]  # default 5
    assert [n.id for n in store.search("meeting", limit=3)] == [7, 6, 5]
    assert len(store.search("note", limit=100)) == 7


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_a_note_without_text_is_refused_and_nothing_is_saved(store, text):
    with pytest.raises(ValueError, match="needs some text"):
        store.save(text)
    assert store.all() == []


@pytest.mark.parametrize("query", ["", "   "])
def test_a_search_without_words_is_refused(store, query):
    store.save("something")
    with pytest.raises(ValueError, match="at least one word"):
        store.search(query)


def test_as_context_gives_the_newest_notes_oldest_first(store):
    assert store.as_context() == "Notes from earlier sessions: none yet."
    for i in range(4):
        store.save(f"fact {i}")
    assert store.as_context() == "Notes from earlier sessions:\n- fact 0\n- fact 1\n- fact 2\n- fact 3"
    assert store.as_context(limit=2) == "Notes from earlier sessions:\n- fact 2\n- fact 3"


def test_as_context_with_a_limit_of_zero_gives_no_notes(store):
    store.save("fact 0")
    assert store.as_context(limit=0) == "Notes from earlier sessions: none yet."


def test_repr_names_the_file(tmp_path):
    path = tmp_path / "notes.db"
    assert repr(MemoryStore(path)) == f"MemoryStore({str(path)!r})"


def test_a_new_store_on_the_same_file_sees_the_notes(tmp_path):
    MemoryStore(tmp_path / "notes.db").save("kept on disk")
    assert [n.text for n in MemoryStore(str(tmp_path / "notes.db")).all()] == ["kept on disk"]


# --- persistence across sessions: two agents, one file ------------------------------------


NOTE = "The user's cat is called Miso and is allergic to fish."


def first_session(path: Path) -> None:
    store = MemoryStore(path)
    agent = Agent(ScriptedModel([call("save_note", text=NOTE), "I will remember that."]), tools=memory_tools(store))
    run = agent.run("My cat is called Miso and is allergic to fish; remember it.")
    assert run.outcome == "answer"
    assert run.steps[0].results == [ToolResult("toolu_001", "saved as note 1")]


def test_a_later_session_finds_a_note_only_by_searching(tmp_path):
    path = tmp_path / "memory.db"
    first_session(path)

    def answer(messages):
        (result,) = latest_results(messages)
        return f"From memory: {result.content}"

    model = RecordingModel([call("search_notes", query="cat"), answer])
    agent = Agent(model, tools=memory_tools(MemoryStore(path)), system="You are a helpful assistant.")
    run = agent.run("What is my cat called?")

    system, messages = model.seen[0]  # c_1: the fresh context of the new session
    assert messages == [Message("user", "What is my cat called?").to_dict()]
    assert "Miso" not in system + json.dumps(messages)
    assert run.steps[0].response.tool_calls == [ToolCall("toolu_001", "search_notes", {"query": "cat"})]
    assert run.steps[0].results == [ToolResult("toolu_001", f"[1] {NOTE}")]  # the note enters through the tool
    assert "Miso" in json.dumps(model.seen[1][1])
    assert (run.outcome, run.answer) == ("answer", f"From memory: [1] {NOTE}")


def test_a_later_session_gets_the_note_in_c1_when_our_code_puts_it_there(tmp_path):
    path = tmp_path / "memory.db"
    first_session(path)
    store = MemoryStore(path)
    system = "You are a helpful assistant.\n\n" + store.as_context()

    model = RecordingModel(["Your cat is called Miso."])
    agent = Agent(model, tools=memory_tools(store), system=system)
    run = agent.run("What is my cat called?")

    assert len(model.seen) == 1 and NOTE in model.seen[0][0]  # in the system prompt of the first call
    assert model.seen[0][1] == [Message("user", "What is my cat called?").to_dict()]
    assert [s.response.tool_calls for s in run.steps] == [[]]  # no tool was called
    assert run.steps[0].context_tokens == context_tokens(system, [Message("user", run.task)], agent.specs)
    assert run.answer == "Your cat is called Miso."


# --- persistence across processes ---------------------------------------------------------


def test_a_note_saved_by_another_process_is_read_here(tmp_path):
    path = tmp_path / "memory.db"
    code = "import sys\nfrom teachagent.memory import MemoryStore\nMemoryStore(sys.argv[1]).save(sys.argv[2])"
    python(code, path, "saved by a child process", cwd=tmp_path)
    assert MemoryStore(path).all() == [Note(1, "saved by a child process")]


def test_a_note_saved_here_is_read_by_another_process(tmp_path):
    path = tmp_path / "memory.db"
    MemoryStore(path).save("saved by the test process")
    code = (
        "import json, sys\nfrom teachagent.memory import MemoryStore\n"
        "print(json.dumps([[n.id, n.text] for n in MemoryStore(sys.argv[1]).search('test process')]))"
    )
    done = python(code, path, cwd=tmp_path)
    assert json.loads(done.stdout) == [[1, "saved by the test process"]]


WRITER = """
import sys, time
from pathlib import Path
from teachagent.memory import MemoryStore

path, writer, folder = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
(folder / f"ready-{writer}").touch()
deadline = time.monotonic() + 20
while not (folder / "go").exists():  # start together with the other writers
    if time.monotonic() > deadline:
        sys.exit("no go signal")
    time.sleep(0.005)
store = MemoryStore(path)  # the file does not exist yet: creating the table races too
for i in range(25):
    store.save(f"writer {writer} note {i}")
"""


def test_concurrent_writers_in_separate_processes_lose_nothing(tmp_path):
    path, writers = tmp_path / "shared.db", 4
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(w), str(tmp_path)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(writers)
    ]
    try:
        deadline = time.monotonic() + PROCESS_TIMEOUT
        while not all((tmp_path / f"ready-{w}").exists() for w in range(writers)):
            assert time.monotonic() < deadline, "the writers did not start in time"
            assert all(p.poll() is None for p in procs), "a writer exited before the start"
            time.sleep(0.005)
        (tmp_path / "go").touch()
        outputs = [p.communicate(timeout=PROCESS_TIMEOUT) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=5)

    for p, (out, err) in zip(procs, outputs):
        assert (p.returncode, out, err) == (0, "", "")
    notes = MemoryStore(path).all()
    texts = [n.text for n in notes]
    assert len(notes) == 100
    assert sorted(n.id for n in notes) == list(range(1, 101))
    assert set(texts) == {f"writer {w} note {i}" for w in range(writers) for i in range(25)}
    for w in range(writers):  # each writer's notes kept their order
        mine = [t for t in texts if t.startswith(f"writer {w} ")]
        assert mine == [f"writer {w} note {i}" for i in range(25)]


# --- a locked file, a corrupt file ----------------------------------------------------------


def test_a_locked_file_is_a_clear_error_and_nothing_is_half_written(tmp_path):
    path = tmp_path / "memory.db"
    store = MemoryStore(path, timeout=0.2)
    store.save("before the lock")
    before = path.read_bytes()

    locker = sqlite3.connect(path, isolation_level=None)
    try:
        locker.execute("BEGIN EXCLUSIVE")
        started = time.monotonic()
        with pytest.raises(MemoryStoreError, match="locked") as caught:
            store.save("during the lock")
        waited = time.monotonic() - started
        assert str(path) in str(caught.value)
        assert 0.1 <= waited < 3  # it waited about `timeout` for the other writer, then gave up
        with pytest.raises(MemoryStoreError, match="locked"):
            store.search("lock")  # an exclusive lock keeps readers out too
    finally:
        locker.execute("ROLLBACK")
        locker.close()

    assert path.read_bytes() == before
    assert not Path(f"{path}-journal").exists()
    assert [n.text for n in store.all()] == ["before the lock"]
    assert store.save("after the lock") == Note(2, "after the lock")


def real_store_bytes(folder: Path, notes: int = 300) -> bytes:
    """The bytes of a real store holding `notes` notes (several pages)."""
    store = MemoryStore(folder / "real.db")
    for i in range(notes):
        store.save(f"note number {i}: " + "words " * 8)
    return (folder / "real.db").read_bytes()


def damaged_files(folder: Path) -> dict[str, bytes]:
    real = real_store_bytes(folder)
    assert len(real) > 8 * 4096 and real.startswith(b"SQLite format 3\x00")
    return {
        "random bytes": random.Random(0).randbytes(4096),
        "a text file": b"Shopping list\n- eggs\n- milk\n" * 40,
        "a short text file": b"hello\n",
        "the first half of a store": real[: len(real) // 2],
        "the first page of a store": real[:4096],
        "the first 1000 bytes of a store": real[:1000],
        "the 100-byte header of a store": real[:100],
    }


def test_a_corrupt_or_foreign_file_is_refused_and_left_unchanged(tmp_path):
    for name, data in damaged_files(tmp_path).items():
        path = tmp_path / "damaged.db"
        path.write_bytes(data)
        with pytest.raises(MemoryStoreError, match="cannot use the memory file") as caught:
            MemoryStore(path)
        assert str(path) in str(caught.value), name
        assert path.read_bytes() == data, f"{name}: the file was changed"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.db", "real.db"], name  # no journal left


def test_a_store_with_a_damaged_data_page_is_refused_and_left_unchanged(tmp_path):
    real = real_store_bytes(tmp_path, notes=100)
    pages = len(real) // 4096
    assert pages >= 3
    for page in range(1, pages):  # page 0 holds the header and the schema, tested above
        data = real[: page * 4096] + bytes(4096) + real[(page + 1) * 4096 :]
        path = tmp_path / f"zeroed-page-{page}.db"
        path.write_bytes(data)
        try:
            MemoryStore(path).save("written into a damaged file")
        except MemoryStoreError:
            pass
        else:
            pytest.fail(f"a store with page {page} zeroed was opened and written to")
        assert path.read_bytes() == data, f"page {page}: the file was changed"


def foreign_databases(tmp_path) -> dict[str, bytes]:
    """SQLite files that belong to something else, as bytes."""
    made = {}
    for name, statements in {
        "an app's users table": ["CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)",
                                 "INSERT INTO users (email) VALUES ('a@example.com')"],
        "a notes table of another shape": ["CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"],
        "our table beside others": ["CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, created TEXT)",
                                    "CREATE TABLE cookies (name TEXT)"],
        "an empty database of another program": ["PRAGMA application_id = 1234"],
    }.items():
        path = tmp_path / f"{len(made)}.sqlite"
        with closing(sqlite3.connect(path)) as db, db:
            for statement in statements:
                db.execute(statement)
        made[name] = path.read_bytes()
        path.unlink()
    return made


def test_a_sqlite_file_of_something_else_is_refused_and_left_byte_for_byte(tmp_path):
    for name, data in foreign_databases(tmp_path).items():
        path = tmp_path / "theirs.sqlite"
        path.write_bytes(data)
        with pytest.raises(MemoryStoreError, match="is a SQLite database of something else") as caught:
            MemoryStore(path)
        assert caught.value._render_traceback_() == [f"MemoryStoreError: {caught.value}"], name  # one line
        assert path.read_bytes() == data, f"{name}: the file was changed"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.sqlite"], name  # no journal left


def test_a_new_store_marks_its_file_and_an_older_unmarked_one_is_still_used(tmp_path):
    from teachagent.memory import APPLICATION_ID

    MemoryStore(tmp_path / "new.db").save("hello")
    with closing(sqlite3.connect(tmp_path / "new.db")) as db:
        assert db.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
    old = tmp_path / "old.db"  # as MemoryStore made it before it wrote an id
    with closing(sqlite3.connect(old)) as db, db:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, "
                   "created TEXT NOT NULL DEFAULT (datetime('now')))")
        db.execute("INSERT INTO notes (text) VALUES ('kept')")
    assert [n.text for n in MemoryStore(old).all()] == ["kept"]


def test_saving_the_same_text_again_gives_back_the_same_note(store):
    first = store.save("The meeting moved to Friday.")
    store.save("Something else.")
    assert store.save("  The meeting moved to Friday. ") == first
    assert [n.id for n in store.all()] == [1, 2]


def test_a_save_that_timed_out_is_not_duplicated_when_the_model_retries(tmp_path):
    """The tool times out while another connection holds the file; the save lands later; the retry finds it."""
    store = MemoryStore(tmp_path / "notes.db", timeout=10)
    save_note = memory_tools(store)[0]
    save_note.timeout = 0.2
    dispatcher = Dispatcher([save_note])
    blocker = sqlite3.connect(store.path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the file for a while
    first = dispatcher(ToolCall("1", "save_note", {"text": "step one is done"}))
    assert first.is_error and "did not finish within 0.2 s" in first.content
    blocker.execute("COMMIT")
    blocker.close()
    deadline = time.monotonic() + 10
    while not store.all():  # the abandoned save goes on and lands
        assert time.monotonic() < deadline
        time.sleep(0.02)
    retry = dispatcher(ToolCall("2", "save_note", {"text": "step one is done"}))
    assert retry == ToolResult("2", "saved as note 1")
    assert store.all() == [Note(1, "step one is done")]


@pytest.mark.parametrize("words", [MAX_SEARCH_WORDS + 1, 3000, 40_000])
def test_a_search_with_too_many_words_is_refused_without_blaming_the_file(store, words):
    store.save("w1 w2")
    with pytest.raises(ValueError, match=f"a search takes at most {MAX_SEARCH_WORDS} words") as caught:
        store.search(" ".join(f"w{i}" for i in range(words)))
    assert "memory file" not in str(caught.value) and len(str(caught.value)) < 300


def test_a_very_long_word_is_refused_without_blaming_the_file(store):
    with pytest.raises(ValueError, match="1,000 characters") as caught:
        store.search("x" * 100_000)
    assert "memory file" not in str(caught.value)


@pytest.mark.parametrize("text, says", [
    ("\ud800", "a character that is not valid Unicode text"),
    ("before \udfff after", "a character that is not valid Unicode text ('\\udfff' at position 7"),
    ("ok \udc80", "a character that is not valid Unicode text"),
    ("a\x00b", "a NUL character"),
])
def test_lone_surrogates_and_nul_are_refused_clearly_in_a_search_and_a_save(store, text, says):
    for act, what in ((store.search, "a search"), (store.save, "a note")):
        with pytest.raises(ValueError, match=re.escape(f"{what} holds {says}")) as caught:
            act(text)
        assert "memory file" not in str(caught.value)
    assert store.all() == []


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
                        min_size=1, max_size=12),
                min_size=1, max_size=4))
@settings(max_examples=150)
def test_any_saved_words_are_found_literally_whatever_they_hold(tmp_path_factory, words):
    """FTS and LIKE syntax (quotes, *, %, _, NEAR, parentheses) is matched as plain characters."""
    store = MemoryStore(tmp_path_factory.mktemp("m") / "notes.db")
    words = [w for w in " ".join(words).split() if w]
    if not words:
        return
    note = store.save(" ".join(words))
    for word in words:
        assert note in store.search(word)
    assert note in store.search(" ".join(words[:MAX_SEARCH_WORDS]))


# --- the memory tools, through the dispatcher -------------------------------------------------


def test_memory_tools_save_search_and_list_through_the_dispatcher(store):
    dispatch = Dispatcher(memory_tools(store))
    assert dispatch.names == ["save_note", "search_notes", "list_notes"]
    assert dispatch(ToolCall("t0", "list_notes", {})) == ToolResult("t0", "long-term memory is empty")
    assert dispatch(ToolCall("t1", "save_note", {"text": "Deploys happen on Fridays."})) == ToolResult(
        "t1", "saved as note 1"
    )
    assert dispatch(ToolCall("t2", "save_note", {"text": "The staging server is db-2."})) == ToolResult(
        "t2", "saved as note 2"
    )
    assert dispatch(ToolCall("t3", "search_notes", {"query": "FRIDAYS deploys"})) == ToolResult(
        "t3", "[1] Deploys happen on Fridays."
    )
    assert dispatch(ToolCall("t4", "search_notes", {"query": "Mondays"})) == ToolResult(
        "t4", "no notes contain all of: Mondays"
    )
    assert dispatch(ToolCall("t5", "list_notes", {})) == ToolResult(
        "t5", "[1] Deploys happen on Fridays.\n[2] The staging server is db-2."
    )


@pytest.mark.parametrize(
    "tool_input, says",
    [
        ({}, "'text' is a required property"),
        ({"note": "wrong key"}, "'text' is a required property"),
        ({"text": 42}, "is not of type 'string'"),
        ({"text": "   "}, "ValueError: a note needs some text"),
    ],
)
def test_bad_input_to_save_note_is_an_error_result_and_saves_nothing(store, tool_input, says):
    result = Dispatcher(memory_tools(store))(ToolCall("t1", "save_note", tool_input))
    assert result.is_error and says in result.content
    assert store.all() == []


def test_an_empty_search_is_an_error_result(store):
    result = Dispatcher(memory_tools(store))(ToolCall("t1", "search_notes", {"query": " "}))
    assert result.is_error and "at least one word" in result.content


def test_a_corrupt_file_makes_the_tools_return_errors_not_raise(tmp_path):
    path = tmp_path / "memory.db"
    dispatch = Dispatcher(memory_tools(MemoryStore(path)))
    garbage = b"this file was overwritten by something else\n" * 50
    path.write_bytes(garbage)
    calls = [
        ToolCall("t1", "save_note", {"text": "a new note"}),
        ToolCall("t2", "search_notes", {"query": "note"}),
        ToolCall("t3", "list_notes", {}),
    ]
    for c in calls:
        result = dispatch(c)
        assert result.tool_use_id == c.id and result.is_error
        assert result.content.startswith("MemoryStoreError: cannot use the memory file")
        assert "file is not a database" in result.content
    assert path.read_bytes() == garbage


# --- sub-agents -------------------------------------------------------------------------------


SOURCE = {
    "a": "INNER-RESULT-A " + "The bridge was opened to traffic in 1932 after six years of work. " * 20,
    "b": "INNER-RESULT-B " + "Records from the city archive give the opening year as 1932. " * 20,
}
CHILD_ANSWER = "Both sources say the bridge opened in 1932."


@tool
def lookup(source: str) -> str:
    """Look up one source.

    Args:
        source: the source's letter.
    """
    return SOURCE[source]


def researcher() -> Agent:
    script = [call("lookup", source="a"), call("lookup", source="b"), CHILD_ANSWER]
    return Agent(ScriptedModel(script, name="child"), tools=[lookup], system="You research one question.")


def test_a_sub_agent_keeps_its_inner_work_out_of_the_parent():
    child = researcher()
    delegate = child.as_tool("research", "Research a question and return a short answer.")
    parent = Agent(
        ScriptedModel([call("research", task="When did the bridge open?"), "It opened in 1932."], name="parent"),
        tools=[delegate],
        system="You answer questions.",
    )
    run = parent.run("When did the bridge open?")

    assert (run.outcome, run.answer) == ("answer", "It opened in 1932.")
    assert run.steps[0].results == [ToolResult("toolu_001", CHILD_ANSWER)]  # only the child's answer
    seen_by_parent = json.dumps([m.to_dict() for m in run.messages]) + run.to_json()
    assert "INNER-RESULT" not in seen_by_parent
    assert '"lookup"' not in seen_by_parent
    assert CHILD_ANSWER in seen_by_parent

    (child_run,) = child.runs  # the inner run is kept, whole, on the child
    assert child_run.task == "When did the bridge open?"
    assert (child_run.outcome, child_run.answer) == ("answer", CHILD_ANSWER)
    assert [[c.name for c in s.response.tool_calls] for s in child_run.steps] == [["lookup"], ["lookup"], []]
    assert [r.content for s in child_run.steps for r in s.results] == [SOURCE["a"], SOURCE["b"]]

    inline = Agent(
        ScriptedModel([call("lookup", source="a"), call("lookup", source="b"), "It opened in 1932."]),
        tools=[lookup],
        system="You answer questions.",
    ).run("When did the bridge open?")
    assert inline.answer == run.answer

    def z(r):
        return sum(s.context_tokens for s in r.steps)

    assert max(s.context_tokens for s in run.steps) < max(s.context_tokens for s in inline.steps)
    assert z(run) < z(inline)
    assert z(inline) - z(run) > 200  # the two sources, read twice by the inline agent, never reach the parent


def test_a_sub_agent_that_gives_no_answer_is_an_error_result_for_the_parent():
    child = Agent(ScriptedModel([call("lookup", source="a")] * 3), tools=[lookup], max_steps=2)
    parent = Agent(
        ScriptedModel([call("research", task="x"), "I could not find out."]), tools=[child.as_tool("research", "R.")]
    )
    run = parent.run("When did the bridge open?")
    (result,) = run.steps[0].results
    assert result.is_error and "outcome: max_steps" in result.content
    assert "INNER-RESULT" not in run.to_json()
    assert child.runs[0].outcome == "max_steps" and len(child.runs[0].steps) == 2


# --- the limit on working memory --------------------------------------------------------------


PAGE = "lorem ipsum dolor sit amet " * 40


@tool
def fetch() -> str:
    """Fetch the next page."""
    return PAGE


def reader(**kw) -> Agent:
    script = [call("fetch"), call("fetch"), call("fetch"), "done"]
    window = kw.pop("context_window", None)
    model = ScriptedModel(script) if window is None else WithWindow(ScriptedModel(script), window)
    return Agent(model, tools=[fetch], system="You read pages.", **kw)


def unlimited_c_k() -> list[int]:
    run = reader().run("Read three pages.")
    assert run.outcome == "answer" and len(run.steps) == 4
    return [s.context_tokens for s in run.steps]


@pytest.mark.parametrize("allowed_steps", [0, 1, 2, 3])
def test_max_context_tokens_stops_before_the_call_that_would_exceed_it(allowed_steps):
    c = unlimited_c_k()
    assert c == sorted(c) and len(set(c)) == 4
    limit = c[allowed_steps] - 1  # the call at step allowed_steps + 1 would read one token too many
    agent = reader(max_context_tokens=limit)
    run = agent.run("Read three pages.")

    assert run.outcome == "max_context_tokens" and run.answer is None
    assert len(run.steps) == allowed_steps
    assert agent.model.played == allowed_steps  # the call over the limit was never made
    assert [s.context_tokens for s in run.steps] == c[:allowed_steps]  # nothing was cut to fit
    assert all(s.context_tokens <= limit for s in run.steps)
    for k, step in enumerate(run.steps, start=1):
        assert all(r.content == PAGE for r in step.results)
        assert step.context_tokens == context_tokens(run.system, run.messages[: 2 * k - 1], run.tools)


def test_a_context_exactly_at_the_limit_is_allowed():
    c = unlimited_c_k()
    run = reader(max_context_tokens=c[1]).run("Read three pages.")
    assert (run.outcome, [s.context_tokens for s in run.steps]) == ("max_context_tokens", c[:2])
    run = reader(max_context_tokens=c[3]).run("Read three pages.")
    assert (run.outcome, run.answer, len(run.steps)) == ("answer", "done", 4)


def test_a_context_larger_than_the_scripted_window_ends_the_run_with_an_error():
    c = unlimited_c_k()
    agent = reader(context_window=c[2] - 1)  # steps 1 and 2 fit with their replies; the context of step 3 does not
    with pytest.raises(AgentError) as caught:
        agent.run("Read three pages.")

    too_long = caught.value.__cause__
    assert isinstance(too_long, PromptTooLong) and (too_long.tokens, too_long.window) == (c[2], c[2] - 1)
    run = caught.value.run  # the partial record is kept
    assert (run.outcome, run.answer, len(run.steps)) == ("error", None, 2)
    assert [s.context_tokens for s in run.steps] == c[:2]
    assert agent.model.model.played == 2  # the call that was refused used up no step of the script


def test_a_context_exactly_at_the_scripted_window_is_read_but_leaves_no_room_to_answer():
    c = unlimited_c_k()
    run = reader(context_window=c[3]).run("Read three pages.")  # the last context fills the window

    assert (run.outcome, run.answer, len(run.steps)) == ("model_context_window_exceeded", None, 4)
    last = run.steps[-1].response
    assert (last.stop_reason, last.content) == ("model_context_window_exceeded", [])
    assert (last.usage.input_tokens, last.usage.output_tokens) == (c[3], 0)


def test_a_scripted_context_window_on_a_single_call():
    model = WithWindow(ScriptedModel(["hi"]), 10)
    long = [Message("user", "word " * 50)]
    with pytest.raises(PromptTooLong, match=f"{context_tokens('', long)} tokens > 10 maximum"):
        model.complete("", long)
    assert model.model.played == 0
    assert model.complete("", [Message("user", "hello")]).text == "hi"
