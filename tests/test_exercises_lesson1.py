"""The checks of lesson 1's exercises: the gap and wrong answers get "not yet", right ones "correct"."""

from __future__ import annotations

import re

import pytest
from learner_objects import AlwaysEqual, LyingInt

from teachagent import Message, ScriptedModel, context_tokens
from teachagent.exercises.lesson1 import (
    check_second_call,
    check_smallest_whole,
    check_tokens_read,
    check_was_cut,
    compare_read_guess,
)


def receptionist(messages):  # the notebook's policy
    everything_said = " ".join(m.text for m in messages if m.role == "user")
    name = re.search(r"my name is (\w+)", everything_said, re.IGNORECASE)
    question = messages[-1].text.lower()
    if "my name" in question and "?" in question:
        return f"Your name is {name[1]}." if name else "I don't know your name: nobody told me in this conversation."
    if name and name[0].lower() in question:
        return f"Nice to meet you, {name[1]}! How can I help?"
    return "Glad to help. Tell me more about what you need."


@pytest.mark.parametrize("was_cut, verdict", [
    (lambda response: ..., "not yet: `was_cut(response)` is still ..."),
    (lambda response: not response.text.endswith("."), "not yet: was_cut says False for the reply 'Hello.'"),
    (lambda response: response.stop_reason, "not yet: was_cut should return True or False"),
    # "not finished normally" is not "cut": a refusal and a stop sequence end a reply too
    (lambda response: response.stop_reason != "end_turn",
     "not yet: was_cut says True for the reply \"I can't help with\", whose stop_reason is 'refusal'"),
    (lambda response: response.stop_reason not in ("end_turn", "refusal"),
     "not yet: was_cut says True for the reply 'Your room is 12', whose stop_reason is 'stop_sequence'"),
    (lambda response: response.stop_reason == "max_tokens", "correct: right on all six replies"),
    # other right styles
    (lambda response: response.stop_reason in ("max_tokens",), "correct"),
    (lambda response: response.stop_reason in ("max_tokens", "model_context_window_exceeded"), "correct"),
    (lambda response: True if response.stop_reason == "max_tokens" else False, "correct"),
    (lambda response: bool(response.usage.output_tokens) and response.stop_reason.startswith("max"), "correct"),
    # the text heuristics the exercise warns against, defeated by the hidden replies it names
    (lambda response: len(response.text) < 10, "not yet: was_cut says False for the reply 'Your room is'"),
    (lambda response: not response.text.rstrip().endswith((".", "!", "?")),
     "not yet: was_cut says False for the reply 'Hello.'"),
    (lambda response: response.text[-1:] != "." or len(response.text) < 10,
     "not yet: was_cut says True for the reply 'Welcome aboard'"),
    (lambda response: response.usage.output_tokens < 5, "not yet"),
])
def test_was_cut(was_cut, verdict, said):
    check_was_cut(was_cut)
    assert said().startswith(f"exercise 1.1: {verdict}")


hello = Message("user", "Hi! My name is Grace.")
question = Message("user", "What is my name?")
reply = ScriptedModel(receptionist).complete("", [hello], [], 200)


@pytest.mark.parametrize("second_call, verdict", [
    (..., "not yet: `second_call` is still ..."),
    ([question], "not yet: the receptionist answered \"I don't know your name"),
    ([hello, reply.to_message()], "not yet: the last message should be the guest's question"),
    (["Hi! My name is Grace.", "What is my name?"], "not yet: `second_call` should be a list of Message objects"),
    ([Message("user", "Hi! My name is Grace. What is my name?")], "not yet: the model's first reply is not in the history"),
    ([hello, question], "not yet: the roles ['user', 'user'] should take turns"),
    ([hello, Message("assistant", "Hello there."), question], "not yet: the model's first reply is not in the history"),
    ([hello, reply.to_message(), question],
     "correct: sent 3 messages, and the scripted receptionist answered 'Your name is Grace.'"),
])
def test_second_call(second_call, verdict, said):
    check_second_call(second_call, reply, ScriptedModel(receptionist))
    assert said().startswith(f"exercise 1.2: {verdict}")


def by_loop(model, system, messages):
    return next(n for n in range(1, 100) if model.complete(system, messages, [], n).stop_reason == "end_turn")


@pytest.mark.parametrize("smallest_whole, verdict", [
    (lambda model, system, messages: ..., "not yet: `smallest_whole(model, system, messages)` is still ..."),
    (lambda model, system, messages: 5, "not yet: with max_tokens=5 the reply 'Nice to meet you, Ada! How can I help?' is still"),
    (lambda model, system, messages: 12, "not yet: 'Good morning.' already comes back whole with max_tokens=11, below your 12"),
    (lambda model, system, messages: 200, "not yet: 'Nice to meet you, Ada! How can I help?' already comes back whole"),
    (lambda model, system, messages: by_loop(model, system, messages) + 0.5,
     "not yet: `smallest_whole(model, system, messages)` should be a whole number"),
    (by_loop, "correct: the smallest max_tokens is"),
    (lambda model, system, messages: model.complete(system, messages, [], 1000).usage.output_tokens, "correct"),
])
def test_smallest_whole(smallest_whole, verdict, said):
    check_smallest_whole(smallest_whole)
    assert said().startswith(f"exercise 1.3: {verdict}")


def every_call(system, history):
    return sum(context_tokens(system, history[: 2 * k - 1]) for k in range(1, len(history) // 2 + 1))


def each_user_turn(system, history):
    return sum(context_tokens(system, history[: i + 1]) for i, m in enumerate(history) if m.role == "user")


@pytest.mark.parametrize("tokens_read, verdict", [
    (lambda system, history: ..., "not yet: `tokens_read(system, history)` is still ..."),
    (lambda system, history: context_tokens(system, history), "not yet: for a conversation of 3 turns you counted"),
    (lambda system, history: context_tokens(system, history[:-1]), "not yet: for a conversation of 3 turns you counted"),
    (lambda system, history: 115, "not yet: for a conversation of 3 turns you counted 115"),
    (lambda system, history: len(history) // 2 * context_tokens(system, history[:1]), "not yet"),
    (every_call, "correct: your counts match what the calls read by their own usage"),
    (each_user_turn, "correct"),
])
def test_tokens_read(tokens_read, verdict, said):
    check_tokens_read(tokens_read)
    assert said().startswith(f"exercise 1.4: {verdict}")


@pytest.mark.parametrize("second_call", [
    [Message("user", "Hi! My name is Grace."), reply.to_message(), Message("user", "What is my name?")],
    [hello, Message("assistant", reply.text), Message("user", "Sorry, what is my name?")],
    [hello, reply.to_message(), Message("user", "Can you tell me what my name is?")],
])
def test_second_call_other_right_styles(second_call, said):
    check_second_call(second_call, reply, ScriptedModel(receptionist))
    assert said("1.2").startswith("correct")


def test_smallest_whole_other_right_styles(said):
    def counting_up(model, system, messages):
        n = 1
        while model.complete(system, messages, [], n).stop_reason == "max_tokens":
            n += 1
        return n

    def bisect(model, system, messages):
        low, high = 1, 1024
        while low < high:
            middle = (low + high) // 2
            low, high = (middle + 1, high) if model.complete(system, messages, [], middle).stop_reason == "max_tokens" \
                else (low, middle)
        return low

    for answer in (counting_up, bisect, lambda model, system, messages: float(by_loop(model, system, messages))):
        check_smallest_whole(answer)
        assert said("1.3").startswith("correct"), answer


def test_tokens_read_other_right_styles(said):
    def running(system, history):
        total, sent = 0, []
        for message in history:
            sent.append(message)
            if message.role == "user":
                total += context_tokens(system, sent)
        return total

    for answer in (running, lambda system, history: sum(
            context_tokens(system, history[:k]) for k in range(1, len(history) + 1, 2))):
        check_tokens_read(answer)
        assert said("1.4").startswith("correct"), answer


class BrokenStr(Exception):
    def __str__(self):
        raise RuntimeError("no message")


class BadBool:
    def __bool__(self):
        raise RuntimeError("no truth")

    def __str__(self):
        raise RuntimeError("no text")


class BadLen(list):
    def __len__(self):
        raise RuntimeError("no length")


def exits(*args):
    import sys

    sys.exit(1)


def raises_broken(*args):
    raise BrokenStr()


@pytest.mark.parametrize("check, answer, verdict", [
    (check_was_cut, lambda response: AlwaysEqual(), "not yet: was_cut should return True or False, not an object"),
    (check_smallest_whole, lambda *a: AlwaysEqual(), "not yet: `smallest_whole(model, system, messages)` should be a number"),
    (check_smallest_whole, lambda *a: LyingInt(1), "not yet: with max_tokens=1 the reply"),
    (check_tokens_read, lambda system, history: AlwaysEqual(), "not yet: `tokens_read(system, history)` should be a number"),
    (check_tokens_read, lambda system, history: LyingInt(7), "not yet: for a conversation of 3 turns you counted 7"),
    (check_tokens_read, exits, "not yet: your code called sys.exit()"),
    (check_was_cut, lambda response: BadBool(), "not yet: was_cut should return True or False, not an object of type BadBool"),
    (check_tokens_read, lambda system, history: BadBool(), "not yet: `tokens_read(system, history)` should be a number"),
    (check_was_cut, raises_broken, "not yet: your code raised BrokenStr (whose message could not be shown)"),
])
def test_hostile_answers_get_one_line(check, answer, verdict, said):
    check(answer)
    assert said().split(": ", 1)[1].startswith(verdict)


@pytest.mark.parametrize("question, right, wrong", [("1.1", "c", "ab"), ("1.2", "a", "bc"), ("1.3", "b", "ac")])
def test_quiz(question, right, wrong, capsys):
    from teachagent.exercises import quiz

    for choice in (right, right.upper(), f" ({right}) "):
        quiz(question, choice)
        assert capsys.readouterr().out.startswith(f"quiz {question}: correct: ({right})")
    for choice in wrong:
        quiz(question, choice)
        assert capsys.readouterr().out.startswith(f"quiz {question}: not yet: ({choice}) is not it")
    for hostile in (AlwaysEqual(), LyingInt(2), ..., "z"):
        quiz(question, hostile)
        out = capsys.readouterr().out
        assert out.startswith(f"quiz {question}: not yet") and out.count("\n") == 1


def test_a_history_whose_len_raises_is_one_line(said):
    check_second_call(BadLen([hello, reply.to_message(), question]), reply, ScriptedModel(receptionist))
    assert said("1.2").startswith("not yet")


def test_code_that_crashes_is_not_yet(said):
    check_tokens_read(lambda system, history: history[99])
    assert said().startswith("exercise 1.4: not yet: your code raised IndexError")


def test_the_guess_of_section_5_is_compared_in_one_line(capsys):
    model = ScriptedModel(receptionist)
    history, replies = [], []
    for turn in ("Hello! My name is Ada.", "What is my name?"):
        history.append(Message("user", turn))
        replies.append(model.complete("Be brief.", history, [], 200))
        history.append(replies[-1].to_message())
    held = context_tokens("Be brief.", history)
    read = sum(reply.usage.total_input_tokens for reply in replies)
    compare_read_guess(..., replies, held)
    assert capsys.readouterr().out.startswith("no guess yet: write a number")
    compare_read_guess("more", replies, held)
    assert capsys.readouterr().out.startswith("your guess is 'more', not a number")
    compare_read_guess(2, replies, held)
    said = capsys.readouterr().out
    assert said == (f"you guessed 2; the 2 calls read {read} tokens, {read / held:.1f} times the {held} "
                    "tokens of the final history\n")
