"""Hostile input, round five (issue 41), the ideas' floor (teachagent/*.py): what a run loads back is what was
saved; a reply is frozen when the loop takes it; an evaluation keeps every judged result; an approver runs under
the tools' guard; a dollar budget prices its worst case at the price's highest rate; compaction's mark cannot be
forged; what cannot be taken is one line naming the setting or argument.

The floor below (teachagent/base/) is tested in test_hostile5_base.py, the course's in test_hostile5_course.py.
"""

from __future__ import annotations

import contextlib
import math
import sqlite3

import numpy as np
import pytest
from fake_openai import completion_body
from hypothesis import given, settings
from hypothesis import strategies as st

from teachagent import Agent, EvalTask, ScriptedModel, call, evaluate_agent, tool
from teachagent.base.errors import CourseError, SettingError
from teachagent.compaction import MARK, Compaction, is_compacted
from teachagent.cost import PRICES, Price, run_cost
from teachagent.dispatch import ask_in_terminal
from teachagent.estimate import Estimate
from teachagent.memory import MemoryStore, MemoryStoreError
from teachagent.messages import Message, Response, Text, ToolCall, ToolResult
from teachagent.scripted import latest_results
from teachagent.tokens import context_tokens
from teachagent.trace import Run
from teachagent.usage import Usage

any_character = st.characters(codec=None, exclude_categories=())  # halves of surrogate pairs and controls included
SPLIT_PAIR = "\ud83d\ude00"  # the two halves of 😀's surrogate pair, as two characters of a str
any_text = st.lists(st.one_of(any_character, st.just(SPLIT_PAIR), st.just("\ud83d"), st.just("\ude00")),
                    max_size=12).map("".join)


@tool
def echo(text: str) -> str:
    """Say the text back."""
    return text


# --- what loads back is what was saved ------------------------------------------------------------------


@settings(max_examples=50)
@given(task=any_text, said=any_text, returned=any_text, answer=any_text)
def test_a_run_of_any_text_loads_back_equal_to_the_run_that_was_saved(tmp_path_factory, task, said, returned, answer):
    @tool
    def fetch(text: str) -> str:
        """Fetch something."""
        return returned

    run = Agent(ScriptedModel([call("fetch", text=said), answer]), [fetch], system=task).run(task)
    assert Run.load(run.save(tmp_path_factory.mktemp("run") / "run.json")) == run  # through the file's bytes


def test_the_halves_of_a_surrogate_pair_written_apart_save_and_load_back_as_the_run_holds_them(tmp_path):
    run = Agent(ScriptedModel([call("echo", text=f"a {SPLIT_PAIR}"), f"It is {SPLIT_PAIR}."]), [echo]).run(
        f"Say {SPLIT_PAIR}.")
    assert Run.load(run.save(tmp_path / "run.json")) == run
    assert run.answer == "It is 😀." and run.task == "Say 😀."  # the one character the two halves make


# --- a reply is frozen when the loop takes it ----------------------------------------------------------


class KeepsItsCalls:
    """A model written by hand that keeps the calls it returned and changes them afterwards."""

    name = "a model that keeps its calls"

    def __init__(self) -> None:
        self.made: list[ToolCall] = []

    def complete(self, system, messages, tools=(), max_tokens=1024) -> Response:
        for made in self.made:  # what it returned before, changed once the loop has run it
            made.input = ["a", "list"]
            made.name = "another_tool"
        if len(self.made) == 2:
            return Response([Text("done")], "end_turn")
        self.made.append(ToolCall(f"c{len(self.made)}", "echo", {"text": "hi"}))
        return Response([self.made[-1]], "tool_use")


def test_a_reply_the_model_changes_after_returning_it_is_saved_as_the_loop_ran_it(tmp_path):
    run = Agent(KeepsItsCalls(), [echo]).run("go")
    assert run.outcome == "answer" and [s.results[0].content for s in run.steps[:2]] == ["hi", "hi"]
    assert [c.input for s in run.steps for c in s.response.tool_calls] == [{"text": "hi"}, {"text": "hi"}]
    assert Run.load(run.save(tmp_path / "run.json")) == run


CHANGES = {
    "input to a list": lambda r: setattr(r.content[0], "input", ["a", "list"]),
    "input's value": lambda r: r.content[0].input.update(text=float("nan")),
    "call's name": lambda r: setattr(r.content[0], "name", "another_tool"),
    "call's id": lambda r: setattr(r.content[0], "id", 7),
    "a block added": lambda r: r.content.append(Text("added later")),
    "stop reason": lambda r: setattr(r, "stop_reason", "no such reason"),
    "usage": lambda r: setattr(r, "usage", "a lot"),
}


@settings(max_examples=30)
@given(st.lists(st.sampled_from(sorted(CHANGES)), min_size=1, max_size=4))
def test_whatever_a_model_does_to_the_replies_it_returned_the_run_holds_and_saves_what_the_loop_ran(changes):
    returned: list[Response] = []

    class Meddling:
        name = "a model that changes its earlier replies"

        def complete(self, system, messages, tools=(), max_tokens=1024):
            for reply in returned:
                for change in changes:
                    with contextlib.suppress(Exception):  # one change may undo what the next one needs
                        CHANGES[change](reply)
            if len(returned) == 3:
                return Response([Text("done")], "end_turn")
            returned.append(Response([ToolCall(f"c{len(returned)}", "echo", {"text": "hi"})], "tool_use", Usage(5, 2)))
            return returned[-1]

    run = Agent(Meddling(), [echo]).run("go")
    assert run.outcome == "answer" and len(run.steps) == 4
    assert [(c.id, c.name, c.input) for s in run.steps[:3] for c in s.response.tool_calls] == [
        (f"c{i}", "echo", {"text": "hi"}) for i in range(3)]
    assert [s.results[0].content for s in run.steps[:3]] == ["hi"] * 3
    assert Run.from_json(run.to_json()) == run


# --- an evaluation keeps every judged result --------------------------------------------------------------


def answering(answer):
    def run_on(question):
        return Agent(ScriptedModel([answer])).run(question)
    return run_on


def test_a_checker_that_raises_fails_its_task_with_the_reason_and_every_other_task_is_kept():
    def broken(answer):
        raise KeyError("the checker's own bug")

    tasks = [EvalTask("a", "q1", lambda a: True), EvalTask("b", "q2", broken), EvalTask("c", "q3", lambda a: True)]
    evaluation = evaluate_agent(answering("42"), tasks, "label")
    assert [r.passed for r in evaluation.results] == [True, False, True]
    assert "KeyError" in evaluation.results[1].reason and "checker" in evaluation.results[1].reason
    assert "KeyError" in evaluation.table()


def test_a_run_that_fails_on_task_4_of_5_is_recorded_as_failed_with_its_reason_and_the_others_are_kept():
    def run_on(question):
        if question == "q4":
            raise ConnectionError("the connection dropped")
        return answering("42")(question)

    tasks = [EvalTask(f"t{i}", f"q{i}", lambda a: "42" in a) for i in range(1, 6)]
    evaluation = evaluate_agent(run_on, tasks, "label")
    assert [r.passed for r in evaluation.results] == [True, True, True, False, True]
    failed = evaluation.results[3]
    assert failed.run.outcome == "error" and "ConnectionError: the connection dropped" in failed.reason
    assert evaluation.estimate.trials == 5 and "ConnectionError" in evaluation.table()


def test_an_agent_error_keeps_the_partial_run_of_its_task():
    def boom(messages):
        raise TimeoutError("the server went quiet")

    def run_on(question):
        return Agent(ScriptedModel([call("echo", text="x"), boom]), [echo]).run(question)

    (result,) = evaluate_agent(run_on, [EvalTask("t", "q", lambda a: True)], "label").results
    assert not result.passed and len(result.run.steps) == 1 and "TimeoutError" in result.reason


def test_a_checker_that_is_not_a_function_is_refused_when_the_task_is_made():
    with pytest.raises(CourseError, match="check") as refused:
        EvalTask("a", "q", 42)
    assert "\n" not in str(refused.value)


def test_tasks_given_as_a_generator_are_all_evaluated():
    tasks = (EvalTask(f"t{i}", f"q{i}", lambda a: True) for i in range(3))
    evaluation = evaluate_agent(answering("yes"), tasks, "label")
    assert evaluation.estimate.trials == 3 and evaluation.table().count("passed") == 3


@settings(max_examples=40)
@given(st.lists(st.sampled_from(["right", "wrong", "checker raises", "checker says np.True_", "run raises",
                                 "not a run"]), min_size=1, max_size=6))
def test_every_task_of_any_evaluation_has_one_result_in_order_passed_only_on_a_checkers_true(kinds):
    def checker(kind):
        def check(answer):
            if kind == "checker raises":
                raise ValueError("no")
            return np.True_ if kind == "checker says np.True_" else kind == "right"
        return check

    def run_on(question):
        kind = kinds[int(question)]
        if kind == "run raises":
            raise OSError("dropped")
        return 42 if kind == "not a run" else answering("an answer")(question)

    tasks = [EvalTask(f"t{i}", str(i), checker(kind)) for i, kind in enumerate(kinds)]
    evaluation = evaluate_agent(run_on, iter(tasks), "label")
    assert [r.task.name for r in evaluation.results] == [t.name for t in tasks]
    assert [r.passed for r in evaluation.results] == [kind == "right" for kind in kinds]
    assert all(r.reason for r, kind in zip(evaluation.results, kinds) if kind not in ("right", "wrong"))
    assert evaluation.table().count("\n") == len(kinds) + 2  # the label, the header, a line a task, the rate


# --- approvals run under the tools' guard ------------------------------------------------------------------


def writer(written):
    @tool(ask_first=True)
    def write_note(path: str) -> str:
        """Write a note."""
        written.append(path)
        return f"wrote {path}"

    return write_note


def test_an_approver_that_raises_is_an_error_result_and_the_models_step_is_recorded():
    written = []

    def approve(call):
        raise RuntimeError("the approval widget broke")

    model = ScriptedModel([call("write_note", path="a.txt"), lambda m: latest_results(m)[0].content])
    run = Agent(model, [writer(written)], approve=approve).run("Write a.txt.")
    assert run.outcome == "answer" and len(run.steps) == 2 and written == []
    result = run.steps[0].results[0]
    assert result.is_error and "approve raised RuntimeError: the approval widget broke" in result.content


@pytest.mark.parametrize("answer", [np.True_, 1, "yes", None])
def test_an_approver_that_answers_anything_but_true_or_false_does_not_run_the_tool_and_the_run_goes_on(answer):
    written = []
    model = ScriptedModel([call("write_note", path="a.txt"), "done"])
    run = Agent(model, [writer(written)], approve=lambda c: answer).run("Write a.txt.")
    assert run.outcome == "answer" and len(run.steps) == 2 and written == []
    result = run.steps[0].results[0]
    assert result.is_error and "approve must answer True or False" in result.content and "not run" in result.content


@settings(max_examples=30)
@given(st.lists(st.sampled_from([True, False, "raise", np.True_, 0, "y"]), min_size=1, max_size=5))
def test_whatever_an_approver_does_every_step_is_recorded_and_only_true_runs_the_tool(answers):
    written, asked = [], iter(answers)

    def approve(c):
        answer = next(asked)
        if answer == "raise":
            raise ValueError("no")
        return answer

    model = ScriptedModel([call("write_note", path=f"{i}.txt") for i in range(len(answers))] + ["done"])
    run = Agent(model, [writer(written)], approve=approve, max_steps=len(answers) + 1).run("go")
    assert run.outcome == "answer" and len(run.steps) == len(answers) + 1
    assert written == [f"{i}.txt" for i, a in enumerate(answers) if a is True]


def test_the_terminal_prompt_shows_a_models_controls_and_a_lone_surrogate_as_escapes(monkeypatch):
    prompts = []
    monkeypatch.setattr("builtins.input", lambda prompt: prompts.append(prompt) or "n")
    assert ask_in_terminal(ToolCall("c1", "write\u202enote", {"path": "a\u202etxt.exe\x9b2J\ud800"})) is False
    (prompt,) = prompts
    prompt.encode("utf-8")
    assert not any(ch in prompt for ch in "\u202e\x9b\ud800") and "a\\u202etxt.exe\\x9b2J\\ud800" in prompt


def test_a_lone_surrogate_in_a_call_to_an_ask_first_tool_does_not_crash_the_loop(monkeypatch):
    def strict_terminal(prompt):
        prompt.encode("utf-8")  # what writing it to a UTF-8 terminal does
        return "y"

    monkeypatch.setattr("builtins.input", strict_terminal)
    written = []
    run = Agent(ScriptedModel([call("write_note", path="a\ud800.txt"), "done"]), [writer(written)]).run("go")
    assert run.outcome == "answer" and written == ["a\ud800.txt"]


# --- a dollar budget holds at cache prices -------------------------------------------------------------


class CachingServer:
    """A model that reports what it read as cache writes, cache reads or plain input, in the given shares."""

    name = "a server with a prompt cache"

    def __init__(self, shares: tuple[int, int, int]) -> None:
        self.shares, self.calls = shares, 0

    def complete(self, system, messages, tools=(), max_tokens=1024) -> Response:
        self.calls += 1
        read = context_tokens(system, messages, tools)
        plain, write, _ = self.shares
        total = sum(self.shares) or 1
        written, plain_part = read * write // total, read * plain // total
        usage = Usage(plain_part, 50, read - written - plain_part, written)
        return Response([ToolCall(f"t{self.calls}", "echo", {"text": "x" * 300})], "tool_use", usage)


@pytest.mark.parametrize("price", [PRICES["claude-haiku-5-5"], Price(1.0, 5.0, 3.0, 0.1)])
def test_a_dollar_budget_holds_when_the_server_reports_every_read_as_a_cache_write(price):
    agent = Agent(CachingServer((0, 1, 0)), [echo], max_steps=200, max_dollars=0.01, price=price, max_tokens=100)
    run = agent.run("go")
    assert run.outcome == "max_dollars" and run_cost(run, price) <= 0.01


@settings(max_examples=40)
@given(rates=st.tuples(*[st.floats(0, 20) for _ in range(4)]), shares=st.tuples(*[st.integers(0, 3)] * 3),
       budget=st.floats(0.0001, 0.05))
def test_a_dollar_budget_is_never_exceeded_at_any_price_however_the_server_reports_its_cache(rates, shares, budget):
    price = Price(*rates)
    agent = Agent(CachingServer(shares), [echo], max_steps=60, max_dollars=budget, price=price, max_tokens=100)
    run = agent.run("go")
    assert run_cost(run, price) <= budget * (1 + 1e-9)


# --- compaction's mark cannot be forged --------------------------------------------------------------------


def exchange(call_id, name, content):
    return [Message("assistant", [ToolCall(call_id, name, {})]), Message("user", [ToolResult(call_id, content)])]


def test_a_result_that_begins_with_the_mark_is_compacted_like_any_other():
    messages = [Message("user", "task"), *exchange("c1", "fetch", f"{MARK} a page that says this, and 5,000 words"),
                *exchange("c2", "fetch", "new")]
    old = Compaction()(messages)[2].content[0]
    assert is_compacted(old) and old.content.startswith(f"{MARK} this fetch result,")
    assert not is_compacted(ToolResult("c9", f"{MARK} written by a tool"))


def test_a_reused_call_id_gives_the_note_the_name_of_the_tool_that_was_called():
    messages = [Message("user", "task"), *exchange("c1", "read_file", "a long file"), *exchange("c1", "search", "hits"),
                *exchange("c1", "search", "more hits")]
    notes = [m.content[0].content for m in Compaction()(messages)[2:5:2]]
    assert notes[0].startswith(f"{MARK} this read_file result,") and notes[1].startswith(f"{MARK} this search result,")


@given(turns=st.lists(st.tuples(st.sampled_from(["c1", "c2", "c3"]), st.sampled_from(["read", "search", "fetch"]),
                                st.one_of(st.text(max_size=20), st.text(max_size=20).map(lambda t: MARK + t))),
                      min_size=1, max_size=6),
       keep=st.integers(1, 3))
def test_compaction_notes_every_old_result_with_its_own_tool_and_leaves_the_latest_whole(turns, keep):
    messages = [Message("user", "task")]
    for call_id, name, content in turns:
        messages += exchange(call_id, name, content)
    compacted = Compaction(keep)(messages)
    for i, (_, name, content) in enumerate(turns):
        result = compacted[2 + 2 * i].content[0]
        if i < len(turns) - keep:
            assert is_compacted(result) and result.content.startswith(f"{MARK} this {name} result,")
        else:
            assert not is_compacted(result) and result.content == content
    assert Compaction(keep)(compacted) == compacted  # a second pass changes nothing


# --- what cannot be taken is one line naming the setting or argument ------------------------------------


def test_a_price_given_by_name_to_an_agent_is_one_line_naming_price():
    with pytest.raises(SettingError, match=r"price must be a Price .*PRICES\['claude-haiku-5-5'\]") as refused:
        Agent(ScriptedModel(["x"]), max_dollars=1.0, price="claude-haiku-5-5")
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("probability", [math.nan, math.inf, True, "0.5", -0.1])
def test_estimate_agrees_with_what_is_not_a_probability_is_one_line(probability):
    with pytest.raises(SettingError, match="probability must be a number between 0 and 1"):
        Estimate(3, 10).agrees_with(probability)


@pytest.mark.parametrize("name", ["", "   ", "claude-haiku-5-5\nInjected: header", "claude\x1b[2J", "a b"])
def test_a_blank_or_broken_claude_model_setting_is_refused_or_unset(monkeypatch, name):
    from teachagent.claude import DEFAULT_MODEL, Claude

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "x" * 40)
    monkeypatch.setenv("TEACHAGENT_CLAUDE_MODEL", name)
    if not name.strip():
        assert Claude().name == DEFAULT_MODEL
        return
    with pytest.raises(SettingError, match="TEACHAGENT_CLAUDE_MODEL") as refused:
        Claude()
    assert "\n" not in str(refused.value)
    monkeypatch.delenv("TEACHAGENT_CLAUDE_MODEL")
    with pytest.raises(SettingError, match="model"):
        Claude(name)


@pytest.mark.parametrize("address", ["http://127.0.0.1:99999/v1", "not a url", "ws://127.0.0.1:8080/v1", "http:///v1",
                                     "http://127.0.0.1:port/v1"])
def test_a_server_address_no_call_could_use_is_refused_at_once_in_one_line(address, monkeypatch):
    from teachagent.openai_compatible import OpenAICompatible

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(SettingError, match="base_url") as refused:
        OpenAICompatible("llama3.2", address)
    assert "\n" not in str(refused.value)
    monkeypatch.setenv("TEACHAGENT_BASE_URL", address)
    monkeypatch.setenv("TEACHAGENT_MODEL", "llama3.2")
    from teachagent.course.modes import select_model

    with pytest.raises(SettingError, match="TEACHAGENT_BASE_URL"):
        select_model(mode="live", quiet=True)


def test_a_nul_in_a_memory_files_path_is_one_line(tmp_path):
    with pytest.raises(MemoryStoreError, match="not a path") as refused:
        MemoryStore(tmp_path / "notes\x00.sqlite")
    assert "\n" not in str(refused.value)


def test_a_memory_store_writes_nothing_into_another_programs_file_swapped_in_under_its_path(tmp_path):
    path = tmp_path / "notes.sqlite"
    store = MemoryStore(path)
    store.save("mine")
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, "
                   "created TEXT NOT NULL DEFAULT (datetime('now')))")  # a table like ours, in a file that is not
        db.execute("INSERT INTO notes (text) VALUES ('theirs')")
        db.execute("PRAGMA application_id = 1234")
    db.close()
    other.replace(path)  # another program's database swapped in under the store's path
    before = path.read_bytes()
    with pytest.raises(MemoryStoreError, match="something else"):
        store.save("a note for another program's file")
    with pytest.raises(MemoryStoreError, match="something else"):
        store.all()
    assert path.read_bytes() == before


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("where", ["prompt_tokens", "cached_tokens"])
@pytest.mark.parametrize("count", ["12", True, 12.0, -1, [12]])
def test_a_count_a_server_sends_that_is_not_a_whole_number_is_refused_at_the_top_level_and_nested(openai_fake, where,
                                                                                                  count):
    from teachagent.base.http import UnexpectedReply
    from teachagent.openai_compatible import OpenAICompatible

    usage = {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25, "prompt_tokens_details": {"cached_tokens": 4}}
    if where == "prompt_tokens":
        usage["prompt_tokens"] = count
    else:
        usage["prompt_tokens_details"]["cached_tokens"] = count
    openai_fake.queue((200, completion_body("hi", usage=usage), {}))
    with pytest.raises(UnexpectedReply, match=where) as refused:
        OpenAICompatible("m", openai_fake.base_url).complete("", [Message("user", "hi")])
    assert "\n" not in str(refused.value)



@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("field", ["cache_read_input_tokens", "cache_creation_input_tokens", "input_tokens"])
def test_a_count_claudes_api_sends_that_is_not_a_whole_number_is_refused(field, monkeypatch):
    from fake_anthropic import FakeAnthropic, message_body, text_block

    from teachagent.base.http import UnexpectedReply
    from teachagent.claude import Claude

    body = message_body([text_block("hi")])
    body["usage"][field] = "12"
    with FakeAnthropic() as fake:
        fake.queue((200, body, {}))
        with pytest.raises(UnexpectedReply, match=field):
            Claude(api_key="sk-ant-api03-" + "x" * 40, base_url=fake.base_url).complete("", [Message("user", "hi")])


def test_the_page_a_person_reads_when_playing_the_model_shows_a_tools_controls_as_escapes(monkeypatch, capsys):
    from teachagent.human import ask_in_terminal as page_in_terminal

    monkeypatch.setattr("builtins.input", lambda prompt: "")
    page_in_terminal("a tool said: \x1b[2J\u202eexe.gpj\nnext line", None)
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\\x1b[2J\\u202eexe.gpj\nnext line" in out
