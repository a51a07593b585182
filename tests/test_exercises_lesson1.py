"""The checks of lesson 1's exercises: the gap and wrong answers get "not yet", right ones "correct"."""

from __future__ import annotations

import re

import pytest

from teachagent import Message, ScriptedModel, context_tokens
from teachagent.exercises.lesson1 import check_second_call, check_smallest_whole, check_tokens_read, check_was_cut


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
    (lambda response: response.stop_reason != "end_turn" and response.usage.output_tokens > 0, "correct"),
    (lambda response: response.stop_reason == "max_tokens", "correct: 'Hello.' was cut (max_tokens)"),
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
    (lambda model, system, messages: by_loop(model, system, messages) + 0.0, "not yet: smallest_whole should return a whole"),
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


def test_code_that_crashes_is_not_yet(said):
    check_tokens_read(lambda system, history: history[99])
    assert said().startswith("exercise 1.4: not yet: your code raised IndexError")
