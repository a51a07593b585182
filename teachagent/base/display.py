"""How long text is shown: one rule for every printout, view and error message.

Course machinery; it imports nothing else from teachagent. A tool result can be 20,000
characters and a schema problem can quote a huge value: wherever the course shows text
to a person, it is cut by `shorten`, which says how much was left out (`one_line` first
puts it on one line, for a terminal or a check's verdict).
"""

from __future__ import annotations


def one_line(text: str, limit: int = 100) -> str:
    """`text` with its whitespace and line breaks collapsed to single spaces, then shortened: for a log line."""
    return shorten(" ".join(text.split()), limit)


def shorten(text: str, limit: int = 100) -> str:
    """`text` if it has at most `limit` characters, else its start and how many characters follow."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … [{len(text) - limit} more characters]"
