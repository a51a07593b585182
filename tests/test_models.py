"""The scripted model that offline lessons run on."""

import pytest

from teachagent import (
    Message,
    Model,
    PromptTooLong,
    Response,
    ScriptedModel,
    ScriptExhausted,
    Text,
    ToolCall,
    ToolResult,
    Usage,
    WithWindow,
    call,
    latest_results,
    tokens,
)
from teachagent.models import is_scripted, own_count, suggested_steps

HI = [Message("user", "hi")]


def play(model, n, messages=HI):
    """The responses to n calls with the same context."""
    return [model.complete("", messages) for _ in range(n)]


# --- playing a script ------------------------------------------------------------------


def test_steps_play_in_order():
    assert [r.text for r in play(ScriptedModel(["one", "two", "three"]), 3)] == ["one", "two", "three"]


def test_str_step_ends_the_turn():
    response = ScriptedModel(["Hello!"]).complete("", HI)
    assert (response.content, response.stop_reason) == ([Text("Hello!")], "end_turn")


def test_call_step_is_a_tool_use():
    response = ScriptedModel([call("read_file", path="notes.txt")]).complete("", HI)
    assert response.stop_reason == "tool_use"
    assert response.tool_calls == [ToolCall("toolu_001", "read_file", {"path": "notes.txt"})]


def test_tool_call_ids_count_up_across_steps():
    model = ScriptedModel([call("a"), [Text("Two at once."), call("b"), call("c")]])
    ids = [c.id for r in play(model, 2) for c in r.tool_calls]
    assert ids == ["toolu_001", "toolu_002", "toolu_003"]


def test_a_tool_call_that_has_an_id_keeps_it():
    response = ScriptedModel([ToolCall("my_id", "ls", {})]).complete("", HI)
    assert response.tool_calls[0].id == "my_id"


def test_list_step_gives_its_blocks():
    response = ScriptedModel([[Text("Let me look."), call("ls")]]).complete("", HI)
    assert response.content == [Text("Let me look."), ToolCall("toolu_001", "ls", {})]


def test_response_step_keeps_its_stop_reason():
    response = ScriptedModel([Response([Text("I can't help with that.")], "refusal")]).complete("", HI)
    assert (response.text, response.stop_reason) == ("I can't help with that.", "refusal")


def test_callable_step_reacts_to_the_tool_result():
    """The scripted agent reads what the tool returned and builds its answer from it."""

    def summarize(messages):
        (result,) = latest_results(messages)
        return f"Your notes say: {result.content}"

    model = ScriptedModel([call("read_file", path="notes.txt"), summarize])
    messages = list(HI)
    first = model.complete("", messages)
    messages += [first.to_message(), Message("user", [ToolResult(first.tool_calls[0].id, "buy milk")])]

    assert model.complete("", messages).text == "Your notes say: buy milk"


def test_callable_step_sees_the_conversation_so_far():
    seen = []
    ScriptedModel([lambda messages: seen.append(messages) or "ok"]).complete("", HI)
    assert seen == [HI]


def test_latest_results_only_looks_at_the_last_message():
    result = ToolResult("toolu_001", "42")
    assert latest_results([]) == []
    assert latest_results([Message("user", [result])]) == [result]
    assert latest_results([Message("user", [result]), Message("assistant", "thanks")]) == []


# --- usage -------------------------------------------------------------------------------


def test_usage_counts_the_context_read_and_the_reply_written():
    system = "You are a helpful assistant."
    tools = [{"name": "ls", "description": "List files.", "input_schema": {"type": "object"}}]
    messages = [Message("user", "hello world"), Message("assistant", "Hello, world!"), Message("user", "list them")]
    response = ScriptedModel([[Text("Sure."), call("ls")]]).complete(system, messages, tools)
    assert response.usage == Usage(
        input_tokens=tokens.context_tokens(system, messages, tools),
        output_tokens=tokens.count_tokens("Sure.") + tokens.block_tokens(response.tool_calls[0]),
    )


def test_usage_grows_with_the_conversation_as_a_full_recount_would():
    """The model counts only the new messages of a growing conversation; the number is the recount's."""
    tools = [{"name": "ls", "description": "List files.", "input_schema": {"type": "object"}}]
    model = ScriptedModel(lambda messages: [Text(f"step {len(messages)}"), call("ls")])
    messages = [Message("user", "hello world")]
    for k in range(6):
        response = model.complete("Be brief.", messages, tools)
        assert response.usage.input_tokens == tokens.context_tokens("Be brief.", messages, tools)
        messages += [response.to_message(), Message("user", [ToolResult(response.tool_calls[0].id, "a b " * k)])]


@pytest.mark.parametrize("change", ["new system", "new tools", "shorter", "first replaced", "last replaced",
                                    "rebuilt list", "other conversation"])
def test_usage_of_a_context_that_does_not_continue_the_last_one_is_recounted(change):
    tools = [{"name": "ls", "description": "List files.", "input_schema": {"type": "object"}}]
    model = ScriptedModel(lambda messages: "ok")
    messages = [Message("user", "one two"), Message("assistant", "three"), Message("user", "four five six")]
    model.complete("Be brief.", messages, tools)
    system = "Be very brief." if change == "new system" else "Be brief."
    if change == "new tools":
        tools = [*tools, {"name": "cat", "description": "Print a file.", "input_schema": {"type": "object"}}]
    elif change == "shorter":
        messages = messages[:1]
    elif change == "first replaced":
        messages[0] = Message("user", "a much longer first message than before")
    elif change == "last replaced":
        messages[-1] = Message("user", "seven")
    elif change == "rebuilt list":
        messages = [Message(m.role, m.content) for m in messages] + [Message("assistant", "eight nine")]
    elif change == "other conversation":
        model.complete("", [Message("user", "something else entirely")])
    assert model.complete(system, messages, tools).usage.input_tokens == tokens.context_tokens(system, messages, tools)


def test_usage_of_a_known_reply():
    assert ScriptedModel(["hello world"]).complete("", HI).usage.output_tokens == 2


# --- max_tokens ----------------------------------------------------------------------------


def test_reply_longer_than_max_tokens_is_cut():
    response = ScriptedModel(["hello world, this is long"]).complete("", HI, max_tokens=2)
    assert (response.text, response.stop_reason, response.usage.output_tokens) == ("hello world", "max_tokens", 2)


def test_a_tool_call_that_does_not_fit_is_dropped():
    model = ScriptedModel([[Text("hello world"), call("read_file", path="notes.txt")]])
    response = model.complete("", HI, max_tokens=3)
    assert (response.content, response.stop_reason) == ([Text("hello world")], "max_tokens")


def test_blocks_that_fit_before_the_cut_are_kept():
    ls = call("ls")
    budget = tokens.block_tokens(ls)  # exactly the tool call, no room for the text after it
    response = ScriptedModel([[ls, Text("hello world")]]).complete("", HI, max_tokens=budget)
    assert (response.content, response.stop_reason) == ([ToolCall("toolu_001", "ls", {})], "max_tokens")


def test_reply_that_fits_exactly_is_not_cut():
    response = ScriptedModel(["hello world"]).complete("", HI, max_tokens=2)
    assert (response.text, response.stop_reason) == ("hello world", "end_turn")


# --- the context window ----------------------------------------------------------------------


def test_a_context_larger_than_the_window_is_refused_with_its_count_and_the_window():
    read = tokens.context_tokens("", HI)
    model = WithWindow(ScriptedModel(["hello"]), read - 1)
    with pytest.raises(PromptTooLong) as caught:
        model.complete("", HI)
    assert (caught.value.tokens, caught.value.window, caught.value.model) == (read, read - 1, "scripted")
    assert f"{read} tokens > {read - 1} maximum" in str(caught.value)
    assert caught.value._render_traceback_() == [f"PromptTooLong: {caught.value}"]  # one line in Jupyter
    assert model.model.played == 0  # the model read nothing, so no step was used up


def test_a_reply_that_would_run_past_the_window_is_cut_where_it_ends():
    read = tokens.context_tokens("", HI)
    response = WithWindow(ScriptedModel(["hello world, this is long"]), read + 2).complete("", HI)
    assert (response.text, response.stop_reason) == ("hello world", "model_context_window_exceeded")
    assert (response.usage.input_tokens, response.usage.output_tokens) == (read, 2)


def test_whichever_limit_comes_first_cuts_the_reply_and_names_the_stop_reason():
    read = tokens.context_tokens("", HI)
    model = WithWindow(ScriptedModel(["hello world, this is long"] * 2), read + 3)
    assert model.complete("", HI, max_tokens=2).stop_reason == "max_tokens"  # max_tokens is reached first
    assert model.complete("", HI, max_tokens=5).stop_reason == "model_context_window_exceeded"


def test_a_reply_that_fits_the_window_is_not_cut():
    read = tokens.context_tokens("", HI)
    response = WithWindow(ScriptedModel(["hello world"]), read + 2).complete("", HI)
    assert (response.text, response.stop_reason) == ("hello world", "end_turn")


@pytest.mark.parametrize("max_tokens", [0, -1, 1.5, "100"])
def test_bad_max_tokens(max_tokens):
    with pytest.raises(ValueError, match="max_tokens must be a whole number of at least 1"):
        ScriptedModel(["hi"]).complete("", HI, max_tokens=max_tokens)


# --- running out, replaying, bad steps ------------------------------------------------------


def test_running_out_says_how_many_steps_and_suggests_reset():
    model = ScriptedModel(["one", "two"])
    play(model, 2)
    with pytest.raises(ScriptExhausted, match=r"has 2 steps and was asked for step 3.*\.reset\(\)"):
        model.complete("", HI)


def test_reset_replays_the_script_with_the_same_ids():
    model = ScriptedModel([call("ls"), "done"])
    first = play(model, 2)
    model.reset()
    assert play(model, 2) == first


@pytest.mark.parametrize(
    "step",
    [42, None, {"type": "text", "text": "hi"}, lambda messages: None],
    ids=["int", "none", "api-dict", "callable-returning-none"],
)
def test_a_garbage_step_is_a_type_error(step):
    with pytest.raises(TypeError, match="a script step must give"):
        ScriptedModel([step]).complete("", HI)


def test_a_list_step_with_a_tool_result_is_a_type_error():
    """Tool results come from our code; a script that makes the model write one is wrong."""
    with pytest.raises(TypeError, match="a model writes Text, ToolCall and thinking blocks, never"):
        ScriptedModel([[ToolResult("toolu_001", "ok")]]).complete("", HI)


# --- what it is -------------------------------------------------------------------------------


def test_scripted_model_is_a_model():
    assert isinstance(ScriptedModel(["hi"]), Model)
    assert not isinstance(object(), Model)


def test_repr_says_steps_and_progress():
    model = ScriptedModel(["one", "two"], name="demo")
    model.complete("", HI)
    assert repr(model) == "ScriptedModel(name='demo', steps=2, played=1)"


def test_a_cut_never_leaves_half_a_character():
    """Cutting inside a multi-token character drops it rather than writing U+FFFD."""
    reply = ScriptedModel(["🦜🦜🦜"]).complete("", [Message("user", "hi")], max_tokens=4)
    assert reply.text == "🦜" and reply.stop_reason == "max_tokens"


def test_tool_exchanges_pair_each_call_with_its_result_in_order():
    from teachagent import ToolResult, tool_exchanges

    first, second = ToolCall("a", "read", {"path": "x"}), ToolCall("b", "read", {"path": "y"})
    messages = [
        Message("user", "task"),
        Message("assistant", [first, second]),
        Message("user", [ToolResult("b", "Y"), ToolResult("a", "X", is_error=True), ToolResult("stray", "?")]),
    ]
    assert tool_exchanges(messages) == [(second, ToolResult("b", "Y")), (first, ToolResult("a", "X", is_error=True))]
    assert tool_exchanges([]) == []


def test_a_scripted_model_can_think_first_and_thinking_counts_as_output():
    from teachagent.thinking import Thinking
    from teachagent.tokens import count_tokens

    thought = Thinking("First I check what was asked.", "sig")
    reply = ScriptedModel([[thought, Text("Done.")]]).complete("", HI)
    assert reply.thoughts == [thought] and reply.text == "Done."
    assert reply.usage.output_tokens == count_tokens(thought.thinking) + count_tokens("Done.")


def test_max_tokens_cuts_into_thinking_first():
    from teachagent.thinking import Thinking

    reply = ScriptedModel([[Thinking("one two three four five six seven", "sig"), Text("answer")]]).complete("", HI, max_tokens=3)
    assert reply.stop_reason == "max_tokens" and reply.text == ""
    assert reply.thoughts[0].thinking == "one two three" and reply.thoughts[0].signature == "sig"


def test_the_protocol_declares_what_a_model_may_say_of_itself_with_defaults():
    class Echo(Model):
        name = "echo"

        def complete(self, system, messages, tools=(), max_tokens=1024, tool_choice="auto", answer_form=None):
            return ScriptedModel([messages[-1].text]).complete(system, messages, tools, max_tokens)

    echo, hello = Echo(), [Message("user", "hello")]
    assert (is_scripted(echo), suggested_steps(echo), own_count(echo, "", hello, [])) == (False, None, None)
    assert is_scripted(ScriptedModel(["hi"])) and suggested_steps(ScriptedModel(["hi"])) is None

    class Plain:  # a model that does not subclass Model says nothing of itself: the same defaults
        name = "plain"

        def complete(self, system, messages, tools, max_tokens):
            return ScriptedModel(["hi"]).complete(system, messages, tools, max_tokens)

    assert (is_scripted(Plain()), suggested_steps(Plain()), own_count(Plain(), "", hello, [])) == (False, None, None)

    class Counting(Echo):
        step_budget = 4

        def count_tokens(self, system, messages, tools=()):
            return 99

    assert (suggested_steps(Counting()), own_count(Counting(), "", hello, [])) == (4, 99)
