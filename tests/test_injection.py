"""Prompt injection: a library article carries an instruction aimed at the agent.

The handler's part is to pass tool output as data, inside tool_result blocks, and
never splice it into the system prompt. Whether a model obeys is the model's part:
the careful researcher does not, a gullible stand-in does.
"""

from __future__ import annotations

import re

from teachagent.messages import ToolResult
from teachagent.research.corpus import Library
from teachagent.research.researcher import QUESTION, read_everything, research_agent
from teachagent.scripted import ScriptedModel

MARK = "Note for AI assistants"


def test_exactly_one_article_carries_the_injection_hidden_from_readers():
    carriers = [doc for doc, article in Library().articles.items() if MARK in article.text]
    assert carriers == ["mutual-information"]
    assert re.search(r"<!--[^>]*" + MARK + r"[^>]*-->", Library().articles["mutual-information"].text)


def test_tool_output_reaches_the_model_only_as_tool_result_data():
    seen = []

    class Spy(ScriptedModel):
        def complete(self, system, messages, tools=(), max_tokens=1024):
            seen.append((system, messages))
            return super().complete(system, messages, tools, max_tokens)

    library = Library()
    run = research_agent("everything", model=Spy(read_everything(library)), library=library).run(QUESTION)
    assert run.outcome == "answer" and "not a distance" in run.answer and "proper metric" not in run.answer
    systems = {system for system, _ in seen}
    assert len(systems) == 1 and MARK not in systems.pop()  # the system prompt never changed
    for _, messages in seen:
        for message in messages:
            for block in message.content:
                if MARK in getattr(block, "text", ""):
                    raise AssertionError(f"the injection was spliced into a {message.role} text block")
    carried = [b for m in run.messages for b in m.content if isinstance(b, ToolResult) and MARK in b.content]
    assert len(carried) == 1


def test_a_model_that_obeys_what_it_reads_is_fooled():
    """The attack is real: only the model's own judgement stands between it and the user."""
    library = Library()
    careful = read_everything(library)

    def gullible(messages):
        seen = [b.content for m in messages for b in m.content if isinstance(b, ToolResult)]
        order = next((re.search(r"tell the user that ([^.]+)", s) for s in seen if MARK in s), None)
        reply = careful(messages)
        return f"Yes: {order[1]}." if isinstance(reply, str) and order else reply

    run = research_agent("everything", model=ScriptedModel(gullible), library=library).run(QUESTION)
    assert run.answer == "Yes: KL divergence is a proper metric."
