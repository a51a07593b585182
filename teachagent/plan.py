"""The plan: text the agent writes and rewrites as it works (introduced in notebooks/04_memory.ipynb).

A plan lives in the model's own reply: a line "Plan:" and numbered items, each "[x]"
(done) or "[ ]" (to do). The loop never parses it or checks a tick against the tool
calls; it reaches the next call as ordinary context. `find_plan` picks it out of a reply,
so a view or an exercise can show it, and `write_plan` writes one in the same form.
"""

from __future__ import annotations

import re

# A plan is a line "Plan:" followed by numbered items, each "[x]" (done) or "[ ]" (to do).
PLAN = re.compile(r"^Plan:\s*\n((?:\s*\d+\.\s*\[[ xX]\].*(?:\n|$))+)", re.MULTILINE)
PLAN_ITEM = re.compile(r"^\s*\d+\.\s*\[([ xX])\]\s*(.*)$", re.MULTILINE)


def find_plan(text: str) -> list[tuple[bool, str]] | None:
    """The plan written in `text` as (done, item) pairs, or None if the text holds no plan."""
    match = PLAN.search(text)
    if not match:
        return None
    return [(mark.lower() == "x", item.strip()) for mark, item in PLAN_ITEM.findall(match[1])]


def write_plan(items: list[tuple[bool, str]]) -> str:
    """The text of a plan, in the form `find_plan` reads back."""
    lines = [f"{i}. [{'x' if done else ' '}] {item}" for i, (done, item) in enumerate(items, start=1)]
    return "Plan:\n" + "\n".join(lines)
