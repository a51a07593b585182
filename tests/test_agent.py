"""The agent loop: every stop reason, the step budget, c_k, errors, sub-agents."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teachagent.agent import Agent, AgentError
from teachagent.base.errors import PromptTooLong
from teachagent.messages import STOP_REASONS, STOPS, Message, Response, Stop, Text, ToolCall, ToolResult
from teachagent.scripted import ScriptedModel, call, latest_results
from teachagent.tokens import context_tokens
from teachagent.tools import tool
from teachagent.trace import OUTCOMES, Run
from teachagent.usage import Usage
from teachagent.window import WithWindow


@tool
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


def agent(script, **kw) -> Agent:
    return Agent(ScriptedModel(script), tools=[add], system="You add numbers.", **kw)


def test_a_final_answer_ends_the_run():
    run = agent(["It is 4."]).run("What is 2 + 2?")
    assert (run.outcome, run.answer, len(run.steps)) == ("answer", "It is 4.", 1)
    assert run.steps[0].results == []


def test_tool_results_go_back_to_the_model():
    def answer(messages):
        (result,) = latest_results(messages)
        return f"The sum is {result.content}."

    run = agent([call("add", a=2, b=3), answer]).run("Add 2 and 3.")
    assert run.answer == "The sum is 5."
    assert run.steps[0].results == [ToolResult("toolu_001", "5")]
    assert [m.role for m in run.messages] == ["user", "assistant", "user", "assistant"]


def test_several_calls_in_one_step_each_get_a_result_in_order():
    run = agent([[call("add", a=1, b=1), call("add", a=2, b=2)], "done"]).run("two sums")
    assert [r.content for r in run.steps[0].results] == ["2", "4"]
    assert [r.tool_use_id for r in run.steps[0].results] == ["toolu_001", "toolu_002"]


def test_errors_go_back_to_the_model_and_the_loop_goes_on():
    run = agent([call("subtract", a=1, b=1), call("add", a="one", b=1), call("add", a=1, b=1), "2"]).run("t")
    first, second, third = (s.results[0] for s in run.steps[:3])
    assert first.is_error and "no tool named 'subtract'" in first.content
    assert second.is_error and "input.a" in second.content
    assert not third.is_error and third.content == "2"
    assert run.outcome == "answer"


def test_the_budget_running_out_is_its_own_outcome():
    run = agent([call("add", a=1, b=1)] * 5, max_steps=3).run("loop forever")
    assert (run.outcome, run.answer, len(run.steps)) == ("max_steps", None, 3)
    assert all(s.results for s in run.steps)  # the last step's tools still ran


@pytest.mark.parametrize("reason", ["max_tokens", "refusal", "model_context_window_exceeded"])
def test_stop_reasons_that_end_a_run_without_an_answer(reason):
    run = agent([Response([Text("partial"), ToolCall("t1", "add", {"a": 1})], reason)]).run("t")
    assert (run.outcome, run.answer, len(run.steps)) == (reason, None, 1)
    assert run.steps[0].results == []  # a cut-off call is never run


def test_a_context_larger_than_the_model_window_ends_the_run_with_an_error_and_keeps_the_record():
    first = agent([call("add", a=1, b=2), "It is 3."]).run("What is 1 + 2?")
    window = first.steps[-1].context_tokens - 1  # step 1 fits, step 2 is refused
    model = WithWindow(ScriptedModel([call("add", a=1, b=2), "It is 3."]), window)
    with pytest.raises(AgentError, match="step 2 failed: PromptTooLong") as caught:
        Agent(model, tools=[add], system="You add numbers.").run("What is 1 + 2?")
    assert isinstance(caught.value.__cause__, PromptTooLong)
    assert caught.value._render_traceback_() == [f"AgentError: {caught.value}"]  # one line: a learner's error
    run = caught.value.run
    assert (run.outcome, run.answer, len(run.steps)) == ("error", None, 1)
    assert run.steps[0].results[0].content == "3"


def test_a_final_answer_cut_at_the_window_is_no_answer():
    first = agent([call("add", a=1, b=2), "The sum of one and two is three."]).run("What is 1 + 2?")
    window = first.steps[-1].context_tokens + 2  # the last context fits, with room for two tokens
    model = WithWindow(ScriptedModel([call("add", a=1, b=2), "The sum of one and two is three."]), window)
    run = Agent(model, tools=[add], system="You add numbers.").run("What is 1 + 2?")
    assert (run.outcome, run.answer, len(run.steps)) == ("model_context_window_exceeded", None, 2)
    assert run.steps[-1].response.text == "The sum"


def test_stop_sequence_is_a_final_answer():
    run = agent([Response([Text("4")], "stop_sequence")]).run("t")
    assert (run.outcome, run.answer) == ("answer", "4")


def test_pause_turn_sends_the_context_back_to_continue():
    run = agent([Response([Text("thinking...")], "pause_turn"), "finished"]).run("t")
    assert (run.outcome, run.answer, len(run.steps)) == ("answer", "finished", 2)
    assert [m.role for m in run.messages] == ["user", "assistant", "assistant"]


def test_tool_use_without_any_call_ends_the_run():
    run = agent([Response([Text("I will call a tool")], "tool_use")]).run("t")
    assert run.outcome == "tool_use"


def test_a_long_reply_cut_by_max_tokens_mid_call():
    run = agent([[Text("Let me add. " * 30), call("add", a=1, b=2)]], max_tokens=20).run("t")
    assert run.outcome == "max_tokens"
    assert run.steps[0].response.tool_calls == [] and run.steps[0].results == []


def test_c_k_is_what_the_model_read_at_every_step():
    model = ScriptedModel([call("add", a=1, b=2), call("add", a=3, b=4), call("nope"), "7"])
    run = Agent(model, tools=[add], system="You add.").run("Add things.")
    assert [s.context_tokens for s in run.steps] == [s.response.usage.input_tokens for s in run.steps]
    messages = run.messages
    for k, step in enumerate(run.steps, start=1):
        assert step.context_tokens == context_tokens(run.system, messages[: 2 * k - 1], run.tools)
    assert run.steps[0].context_tokens < run.steps[-1].context_tokens


def test_a_failing_model_call_keeps_the_partial_run():
    agent_ = agent([call("add", a=1, b=1)])  # one step, then the script runs out
    with pytest.raises(AgentError, match="step 2") as caught:
        agent_.run("t")
    partial = caught.value.run
    assert isinstance(partial, Run) and partial.outcome == "error" and len(partial.steps) == 1
    assert agent_.runs[-1] is partial


def test_on_step_sees_every_step_as_it_happens():
    seen = []
    run = agent([call("add", a=1, b=1), "2"], on_step=lambda step, run: seen.append((step.index, len(run.steps)))).run("t")
    assert seen == [(1, 1), (2, 2)] and run.outcome == "answer"


def test_an_on_step_that_raises_ends_the_run_as_an_agent_error_that_keeps_it():
    def watcher(step, run):
        if step.index == 2:
            raise KeyError("a typo in my own hook")

    agent_ = agent([call("add", a=1, b=1), call("add", a=2, b=2), "4"], on_step=watcher)
    with pytest.raises(AgentError, match="on_step after step 2 failed: KeyError") as caught:
        agent_.run("t")
    assert caught.value.run is agent_.runs[-1]
    assert caught.value.run.outcome == "error" and len(caught.value.run.steps) == 2
    # a bug in the hook keeps its whole traceback in Jupyter, pointing at the learner's line
    assert isinstance(caught.value.__cause__, KeyError) and not hasattr(caught.value, "_render_traceback_")


def test_ctrl_c_in_on_step_still_stops_the_run():
    def watcher(step, run):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        agent([call("add", a=1, b=1), "2"], on_step=watcher).run("t")


@pytest.mark.parametrize("bad", [0, -1, 2.5, "3"])
def test_max_steps_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match="max_steps"):
        agent(["x"], max_steps=bad)


def test_a_sub_agent_returns_only_its_answer():
    adder = ScriptedModel([call("add", a=20, b=22), lambda m: f"The total is {latest_results(m)[0].content}."])
    child = Agent(adder, tools=[add])
    helper = child.as_tool("adder", "Delegate an addition to a helper agent.")
    parent = Agent(ScriptedModel([call("adder", task="add 20 and 22"), lambda m: latest_results(m)[0].content]), tools=[helper])

    run = parent.run("What is 20 + 22?")
    assert run.answer == "The total is 42."
    parent_text = run.to_json()
    assert "add 20 and 22" in parent_text and '"name": "add"' not in parent_text  # the child's call stays in the child
    assert len(child.runs) == 1 and child.runs[0].steps[0].response.tool_calls[0].name == "add"


def test_a_sub_agent_without_an_answer_is_an_error_result():
    child = Agent(ScriptedModel([call("add", a=1, b=1)] * 3), tools=[add], max_steps=2)
    parent = Agent(ScriptedModel([call("helper", task="x"), "gave up"]), tools=[child.as_tool("helper", "A helper.")])
    result = parent.run("t").steps[0].results[0]
    assert result.is_error and "max_steps" in result.content


def test_repr_names_model_tools_and_budget():
    assert repr(agent(["x"], max_steps=4)) == "Agent(model='scripted', tools=['add'], max_steps=4)"


def test_the_history_sent_is_the_trajectory():
    seen: list[list[Message]] = []

    def spy(messages):
        seen.append(messages)
        return call("add", a=1, b=1) if len(seen) < 3 else "done"

    run = agent(spy).run("t")
    assert [len(m) for m in seen] == [1, 3, 5]
    assert seen[-1] == run.messages[:-1]


def test_a_token_budget_ends_the_run_before_the_call_that_would_exceed_it():
    free = agent([call("add", a=1, b=1)] * 6 + ["done"], max_steps=10).run("t")
    z = [s.context_tokens for s in free.steps]
    budget = sum(z[:3])  # room for exactly three calls
    capped = agent([call("add", a=1, b=1)] * 6 + ["done"], max_steps=10, max_input_tokens=budget).run("t")
    assert (capped.outcome, len(capped.steps)) == ("max_input_tokens", 3)
    assert sum(s.context_tokens for s in capped.steps) <= budget


def test_a_dollar_budget_counts_the_worst_case_of_the_next_call():
    from teachagent.budget import worst_call
    from teachagent.cost import PRICES, run_cost

    price = PRICES["claude-haiku-5-5"]
    free = agent([call("add", a=1, b=1)] * 6 + ["done"], max_steps=10, max_tokens=100).run("t")
    worst_next = worst_call(price, free.steps[2].context_tokens, 100)  # its read at the dearest rate: cache writes
    assert worst_next == price.dollars(Usage(0, 100, cache_creation_input_tokens=free.steps[2].context_tokens))
    budget = sum(price.dollars(s.response.usage) for s in free.steps[:2]) + worst_next  # exactly three calls fit
    capped = agent([call("add", a=1, b=1)] * 6 + ["done"], max_steps=10, max_tokens=100, max_dollars=budget, price=price).run("t")
    assert (capped.outcome, len(capped.steps)) == ("max_dollars", 3)
    assert run_cost(capped, "claude-haiku-5-5") <= budget


@pytest.mark.parametrize("kw", [{"max_input_tokens": -1}, {"max_dollars": "1"}, {"max_context_tokens": True}])
def test_budgets_must_be_non_negative_numbers(kw):
    with pytest.raises(ValueError, match="must be a number between 0 and "):
        agent(["x"], **kw)


def test_a_dollar_budget_needs_a_price():
    with pytest.raises(ValueError, match="max_dollars needs a price"):
        agent(["x"], max_dollars=0.01)


# --- nothing escapes the loop as a raw exception ---------------------------------------


class Replies:
    """A hand-written model that returns whatever it is given, Response or not."""

    name = "hand-written"

    def __init__(self, *replies):
        self.replies = list(replies)

    def complete(self, system, messages, tools, max_tokens):
        return self.replies.pop(0)


FIRST = Response([ToolCall("toolu_1", "add", {"a": 1, "b": 2})], "tool_use", Usage(10, 5))


def fails_with_the_run(model) -> AgentError:
    """The AgentError the run ends in, after checking it carries a partial run that saves and loads."""
    with pytest.raises(AgentError) as caught:
        Agent(model, tools=[add]).run("add")
    error = caught.value
    assert error.run.outcome == "error" and len(error.run.steps) == 1
    assert Run.from_json(error.run.to_json()).steps[0].results[0].content == "3"
    assert error._render_traceback_() == [f"AgentError: {error}"]  # one line in Jupyter
    return error


@pytest.mark.parametrize("reply", ["It is 3.", None, {"content": [], "stop_reason": "end_turn"}, Text("3")])
def test_a_reply_that_is_not_a_response_ends_the_run_with_an_agent_error(reply):
    error = fails_with_the_run(Replies(FIRST, reply))
    assert "step 2" in str(error) and "Model.complete must return a Response" in str(error)


@given(
    field=st.sampled_from(["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]),
    value=st.one_of(
        st.booleans(), st.integers(max_value=-1), st.floats(), st.text(max_size=5), st.none(), st.just([1])
    ),
)
@settings(max_examples=60)
def test_usage_that_is_not_a_count_ends_the_run_with_an_agent_error(field, value):
    bad = Response([Text("3")], "end_turn", Usage(10, 5))
    setattr(bad.usage, field, value)
    error = fails_with_the_run(Replies(FIRST, bad))
    assert f"usage.{field} must be a whole number of at least 0" in str(error)


def test_a_usage_that_is_not_a_usage_ends_the_run_with_an_agent_error():
    bad = Response([Text("3")], "end_turn")
    bad.usage = {"input_tokens": 10}
    assert "usage must be a Usage, got dict" in str(fails_with_the_run(Replies(FIRST, bad)))


def test_tool_input_that_is_not_json_ends_the_run_with_an_agent_error():
    bad = Response([ToolCall("toolu_2", "add", {"a": {1, 2}, "b": 1})], "tool_use")
    assert "cannot be written as JSON" in str(fails_with_the_run(Replies(FIRST, bad)))


def test_a_tool_that_calls_sys_exit_is_an_error_result_and_the_run_goes_on():
    @tool
    def leave() -> str:
        """Leaves."""
        raise SystemExit("bye")

    run = Agent(ScriptedModel([call("leave"), "I could not leave."]), tools=[leave]).run("leave")
    assert run.outcome == "answer"
    assert run.steps[0].results[0].is_error and "sys.exit('bye')" in run.steps[0].results[0].content


@pytest.mark.parametrize("timeout", [None, 5])
def test_ctrl_c_in_a_tool_stops_the_run(timeout):
    @tool(timeout=timeout)
    def wait() -> str:
        """Waits, and is interrupted."""
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Agent(ScriptedModel([call("wait"), "never reached"]), tools=[wait]).run("wait")


def test_tools_assigned_after_the_agent_was_made_are_used_from_the_next_run():
    @tool
    def double(n: int) -> str:
        """Double a number."""
        return str(2 * n)

    agent = Agent(ScriptedModel([call("double", n=4), "8."] * 2), tools=[add])
    first = agent.run("Double 4.")
    assert first.steps[0].results[0].is_error  # no such tool yet
    agent.tools = [add, double]
    second = agent.run("Double 4.")
    assert [t["name"] for t in second.tools] == ["add", "double"]
    assert (second.steps[0].results[0].content, second.answer) == ("8", "8.")
    assert repr(agent) == "Agent(model='scripted', tools=['add', 'double'], max_steps=10)"
    with pytest.raises(TypeError, match="Dispatcher takes Tool objects"):
        agent.tools = ["not a tool"]  # refused when assigned, not at the next run


def test_a_generator_of_tools_is_not_used_up_by_the_first_run():
    agent = Agent(ScriptedModel([call("add", a=1, b=2), "3."] * 2), tools=(t for t in [add]))
    assert [t.name for t in agent.tools] == ["add"]  # read once and kept, not left an empty generator
    runs = [agent.run("What is 1 + 2?") for _ in range(2)]
    assert [[t["name"] for t in run.tools] for run in runs] == [["add"], ["add"]]
    assert [run.steps[0].results[0].content for run in runs] == ["3", "3"]
    assert [t.name for t in agent.tools] == ["add"]


@pytest.mark.parametrize("reason", STOP_REASONS)
def test_the_loop_does_what_the_table_says_for_every_stop_reason(reason):
    move, words = STOPS[reason]
    blocks = [Text("so far"), ToolCall("", "add", {"a": 1, "b": 2})] if reason == "tool_use" else [Text("so far")]
    run = agent([Response(blocks, reason), "done"]).run("t")
    if move == "answer":
        assert (run.outcome, run.answer, len(run.steps)) == ("answer", "so far", 1)
    elif move == "end":  # the stop reason is the run's outcome, and the outcome says it in the table's words
        assert (run.outcome, run.answer, len(run.steps), OUTCOMES[reason]) == (reason, None, 1, words)
    else:  # continue or resume: the grown context goes back for another step
        assert move in ("continue", "resume") and (run.outcome, run.answer, len(run.steps)) == ("answer", "done", 2)


def test_a_new_stop_reason_is_one_row_and_a_continue_row_runs_its_calls(monkeypatch):
    monkeypatch.setitem(STOPS, "interrupted", Stop("continue", "the server interrupted the turn; send it back to go on"))
    run = agent([Response([ToolCall("", "add", {"a": 1, "b": 2})], "interrupted"), "done"]).run("t")
    assert [s.response.stop_reason for s in run.steps] == ["interrupted", "end_turn"]
    assert run.steps[0].results[0].content == "3" and (run.outcome, run.answer) == ("answer", "done")
    monkeypatch.setitem(STOPS, "interrupted", Stop("end", "the server gave up on the turn"))
    ended = agent([Response([Text("so far")], "interrupted")]).run("t")
    assert (ended.outcome, ended.answer, len(ended.steps)) == ("interrupted", None, 1)
