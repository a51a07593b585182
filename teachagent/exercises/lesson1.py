"""Checks for the exercises and the quiz of notebooks/01_bare_chat.ipynb.

Each check plays its own `ScriptedModel`, so it means the same thing offline and live.
The reference solutions are in solutions/lesson1.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..messages import Message, Response, Text
from ..models import Model
from ..scripted import ScriptedModel
from ..tokens import context_tokens, count_tokens
from ..usage import Usage
from .checks import check, describe, expect, filled, whole
from .guesses import guess_line
from .quizzes import Question

GUEST = "Grace"  # the name the guest of exercise 1.2 gives
_COMPLETE = ScriptedModel.complete  # as the course wrote it: what a learner's code rebinds later cannot judge its own answer


def _saying(text: str) -> ScriptedModel:
    """A scripted model that replies `text` to anything."""
    return ScriptedModel(lambda messages: text)


def _reply(text: str, max_tokens: int) -> Response:
    """The reply `text`, written under the cap `max_tokens`."""
    return _saying(text).complete("", [Message("user", "Hello!")], [], max_tokens)


def _ended(text: str, stop_reason: str) -> Response:
    """A reply `text` that ended for `stop_reason`, as a real model's may: not cut, yet not end_turn."""
    return Response([Text(text)], stop_reason, Usage(5, count_tokens(text)), "scripted")


def check_was_cut(was_cut: Callable[[Response], bool]) -> None:
    """1.1: `was_cut(response)` is True exactly when the reply ran into max_tokens."""

    def test() -> str:
        replies = [  # the six replies the exercise names; the text alone misleads on each
            (_reply("Hello. Welcome to the hotel.", max_tokens=2), True),  # cut right after a full stop
            (_reply("Welcome aboard", max_tokens=200), False),  # whole, with no full stop
            (_reply("Good evening, and welcome to the Grand Hotel by the lake, where", max_tokens=200), False),  # long
            (_reply("Your room is on the third floor, next to the lift.", max_tokens=3), True),  # short, and cut
            (_ended("I can't help with", "refusal"), False),  # refused: over, not cut
            (_ended("Your room is 12", "stop_sequence"), False),  # stopped at a stop sequence we passed
        ]
        for response, wanted in replies:
            got = filled(was_cut(response), "was_cut(response)")
            expect(type(got) is bool, f"was_cut should return True or False, not {describe(got)}")
            expect(got is wanted, f"was_cut says {got} for the reply {response.text!r}, "
                                  f"whose stop_reason is {response.stop_reason!r}")
        shown = "; ".join(f"{r.text!r} ({r.stop_reason})" for r, _ in replies)
        return f"right on all six replies, cut or not whatever their text looks like: {shown}"

    check("1.1", test)


def check_second_call(messages: list[Message], reply: Response, receptionist: Model) -> None:
    """1.2: the messages of a second call, after which the stateless receptionist knows the guest's name."""

    def test() -> str:
        sent = filled(messages, "second_call")
        expect(isinstance(sent, list) and bool(sent) and all(isinstance(m, Message) for m in sent),
               "`second_call` should be a list of Message objects")
        expect(sent[-1].role == "user" and "name" in sent[-1].text.lower() and "?" in sent[-1].text,
               'the last message should be the guest\'s question, a user turn: "What is my name?"')
        answer = receptionist.complete("", sent, [], 200).text
        expect(GUEST in answer, f"the receptionist answered {answer!r}: it keeps nothing between calls, "
                                "so what it should know must be in the messages you send")
        roles = [m.role for m in sent]
        expect(roles == ["user", "assistant"] * (len(sent) // 2) + ["user"],
               f"the roles {roles} should take turns, user first: the model's replies go in as assistant turns")
        expect(any(m.role == "assistant" and m.text == reply.text for m in sent),
               "the model's first reply is not in the history: add it as an assistant turn (reply.to_message())")
        return f"sent {len(sent)} messages, and the scripted receptionist answered {answer!r}"

    check("1.2", test)


def check_smallest_whole(smallest_whole: Callable[[Model, str, list[Message]], int]) -> None:
    """1.3: `smallest_whole(model, system, messages)` finds the smallest max_tokens that gives a whole reply."""

    def test() -> str:
        found = []
        for text in ["Nice to meet you, Ada! How can I help?", "Good morning.", "Your room is ready."]:
            hello = [Message("user", "Hello!")]
            # the learner's function gets a model of its own; the answer is judged on a fresh one, through the
            # class's own complete, so a function that replaces (or breaks) the model it was handed changes nothing
            n = whole(smallest_whole(_saying(text), "Be brief.", [Message("user", "Hello!")]),
                      "smallest_whole(model, system, messages)")
            expect(n >= 1, f"smallest_whole should return a whole number of tokens, at least 1, not {n}")
            at_n = _COMPLETE(_saying(text), "Be brief.", hello, [], n)
            expect(at_n.stop_reason == "end_turn", f"with max_tokens={n} the reply {text!r} is still cut ({at_n.stop_reason})")
            expect(n == 1 or _COMPLETE(_saying(text), "Be brief.", hello, [], n - 1).stop_reason == "max_tokens",
                   f"{text!r} already comes back whole with max_tokens={n - 1}, below your {n}")
            found.append(f"{n} for {text!r}")
        return f"the smallest max_tokens is {' and '.join(found)}, each reply's own length in tokens"

    check("1.3", test)


def compare_read_guess(guess: Any, replies: list[Response], held: int) -> None:
    """Section 5's prediction, through `guess_line`: how many times the final history's `held` tokens the calls read.

    Under a model that is not scripted the reads are its server's count and `held` is ours,
    so the line says the two come from two tokenizers.
    """
    read = sum(reply.usage.total_input_tokens for reply in replies)
    calls = f"{len(replies)} call{'s' * (len(replies) != 1)}"
    two_counts = "" if all(r.model == "scripted" for r in replies) else (
        " (the reads by your model's server, the history by our count)")
    print(guess_line(guess, read / held, f"the {calls} read {read} tokens, {{:.1f}} times the {held} tokens "
                                         f"of the final history{two_counts}"))


def _chat(system: str, turns: list[str]) -> tuple[list[Message], list[int]]:
    """A conversation with a scripted model, as in section 5: its history, and what each call read."""
    model = ScriptedModel(lambda messages: f"Noted: {messages[-1].text.lower()}")
    history, read = [], []
    for turn in turns:
        history.append(Message("user", turn))
        reply = model.complete(system, history, [], 200)
        history.append(reply.to_message())
        read.append(reply.usage.total_input_tokens)
    return history, read


def check_tokens_read(tokens_read: Callable[[str, list[Message]], int]) -> None:
    """1.4: `tokens_read(system, history)` adds up the input tokens of every call of a conversation."""

    def test() -> str:
        turns = ["Hello! My name is Ada.", "I need a room for three nights.", "Is breakfast included?", "Thank you!"]
        shown = []
        for system, n in [("You are a friendly receptionist.", 3), ("Answer in one line.", 1), ("Be brief.", 4)]:
            history, read = _chat(system, turns[:n])
            got = whole(tokens_read(system, history), "tokens_read(system, history)")
            expect(got == sum(read), f"for a conversation of {n} turns you counted {got}; its {n} calls read "
                                     f"{sum(read)} tokens in all (their usage.total_input_tokens), the last one alone "
                                     f"{context_tokens(system, history[:-1])}")
            shown.append(f"{sum(read)} tokens over {n} call{'s' * (n > 1)}")
        return f"your counts match what the calls read by their own usage: {', '.join(shown)}"

    check("1.4", test)


QUIZ = {
    "1.1": Question(
        answer="c",
        right="the Messages API keeps nothing between calls; the history reaches the model only because we send it again",
        wrong={"a": "no Messages API call carries a session: sent only the new message (section 3), the scripted "
                    "receptionist could not say the name",
               "b": "the weights never change during a conversation; what the model knows of it is what it is sent"}),
    "1.2": Question(
        answer="a",
        right="the reply ran into the cap and was cut, perhaps mid-sentence, whatever its text looks like",
        wrong={"b": "a finished reply stops with end_turn; max_tokens says the model was stopped, not that it was done",
               "c": "max_tokens caps what the model writes, not what it reads: a request too long for the window "
                    "gets no reply at all, only an error (lesson 4)"}),
    "1.3": Question(
        answer="b",
        right="call k rereads all k − 1 earlier turns, so the total grows faster than the number of turns",
        wrong={"a": "only the conversation's text grows by one turn per call; what the calls read grows faster",
               "c": "every call reads the whole history, not only the newest message (section 5)"}),
}
