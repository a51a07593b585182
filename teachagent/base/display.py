"""How text is shown: one rule for every printout, banner, prompt, view and error message.

Below the ideas, in `base/`; it imports nothing else from teachagent. A tool result can be 20,000
characters and a schema problem can quote a huge value: wherever the course shows text
to a person, it is cut by `shorten`, which says how much was left out. Text a model, a
tool, a file or a setting wrote may also hold characters a screen obeys or hides rather
than shows (ESC starts clear-screen, hidden text and clipboard writes; a bidi override
makes `gpj.exe` read as `exe.jpg`). `one_line` is the one function that makes any text
safe for a line of a terminal or a notebook (a banner, a prompt, a verdict): one line,
each such character written as its escape, shortened. `terminal_text` applies the same
rule to a stream and keeps its line breaks.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Iterable

# The characters a screen shows as themselves: what Python prints unescaped (str.isprintable) and the
# spaces. Every other one is a control (C0 and C1, DEL; U+009B is a one-character ESC [), a format
# character (the bidi overrides and isolates, zero-width ones), half a surrogate pair, a private-use or
# unassigned code point, or a line or paragraph separator: shown as its escape, as repr writes it.
_SPACE = "Zs"


def one_line(text: str, limit: int = 100) -> str:
    """`text` as one line a terminal or a notebook shows as written: its whitespace and line breaks
    collapsed to single spaces, every character a screen would obey or hide written as its escape
    (ESC as \\x1b, a bidi override as \\u202e), then shortened to `limit` characters.

    A str subclass is read as the plain text it holds: its own methods are never called.
    """
    return shorten(visible(" ".join(str.split(str.__str__(text)))), limit)


def visible(text: str, lines: bool = False) -> str:
    """`text` with every character that would not show as itself written as its escape; with `lines`,
    line breaks ("\\n", and "\\r" just before one) and tabs are kept as they are."""
    if text.isprintable():  # the usual case, checked at C speed
        return text
    shown = []
    for at, ch in enumerate(text):
        if ch.isprintable() or unicodedata.category(ch) == _SPACE or (
                lines and (ch in "\n\t" or (ch == "\r" and text[at + 1:at + 2] == "\n"))):
            shown.append(ch)
        else:
            shown.append(repr(ch)[1:-1])
    return "".join(shown)


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
    """`text` with every character a terminal would obey or hide written as a visible escape (ESC as \\x1b),
    its line breaks and tabs kept: `one_line`'s rule, for a stream of many lines.

    What a model, a tool or a file wrote is shown this way in a terminal, so that it can
    say anything and still only ever be read, never clear the screen or fill the clipboard.
    """
    return visible(str.__str__(text), lines=True)
