"""How long text is shown: one rule for every printout, view and error message.

Below the ideas, in `base/`; it imports nothing else from teachagent. A tool result can be 20,000
characters and a schema problem can quote a huge value: wherever the course shows text
to a person, it is cut by `shorten`, which says how much was left out (`one_line` first
puts it on one line, for a terminal or a check's verdict).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

# Characters a terminal obeys rather than shows: C0 controls but newline and tab (ESC starts
# clear-screen, hidden text and OSC 52 clipboard writes; a CR not ending a line overwrites it), DEL, C1
# controls (U+009B is a one-character ESC [), and the bidirectional overrides that reorder text.
_CONTROL = re.compile("\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def one_line(text: str, limit: int = 100) -> str:
    """`text` with its whitespace and line breaks collapsed to single spaces, then shortened: for a log line."""
    return shorten(" ".join(text.split()), limit)


def shorten(text: str, limit: int = 100) -> str:
    """`text` if it has at most `limit` characters, else its start and how many characters follow."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … [{len(text) - limit} more characters]"


def grouped(items: Iterable[str]) -> list[str]:
    """`items` with each run of one item repeated written once with its count: a model that
    asks for the same file ten times is one line, `read_file(...) ×10`, not ten."""
    return [item if (n := len(list(run))) == 1 else f"{item} ×{n}" for item, run in itertools.groupby(items)]


def plural(n: int, word: str) -> str:
    """`n` and `word`, with an s unless `n` is 1: "1 step", "10 steps"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def terminal_text(text: str) -> str:
    """`text` with every character a terminal would obey written as a visible escape (ESC as \\x1b).

    What a model, a tool or a file wrote is shown this way in a terminal, so that it can
    say anything and still only ever be read, never clear the screen or fill the clipboard.
    """
    return _CONTROL.sub(lambda found: repr(found.group())[1:-1], str.__str__(text))
