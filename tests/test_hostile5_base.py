"""Hostile input, round five (issue 41), the floor below the ideas (teachagent/base/): one function makes any
text safe for a terminal or a notebook line; what a course file loads back is what was saved; a SQLite file
swapped in under a memory store is refused; a server's address that no call could use is refused at once.

Each class has a property-based test; the ideas' tests are in test_hostile5_ideas.py, the course's (recordings,
the CLI, exercises, local mode) in test_hostile5_course.py.
"""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teachagent.base.display import one_line, terminal_text

# Every character a screen might obey or hide rather than show: C0 and C1 controls, DEL, the bidi
# overrides and isolates, zero-width characters, halves of surrogate pairs, a line separator.
HIDDEN = "\x1b\x07\x08\x9b\x85\u202e\u2066\u200b\u200d\u061c\ufeff\ud800\udfff\u2028\x7f"
any_character = st.characters(codec=None, exclude_categories=())  # surrogates and controls included
hostile_text = st.text(st.one_of(any_character, st.sampled_from(HIDDEN)), max_size=60)


def shows_only_itself(text: str) -> bool:
    """Every character of `text` is one a screen shows as itself (a plain space included)."""
    return all(ch.isprintable() or unicodedata.category(ch) == "Zs" for ch in text)


# --- one function makes any text safe for one line ---------------------------------------------------


@given(hostile_text)
def test_one_line_shows_any_text_as_one_line_of_characters_that_show_as_themselves(text):
    shown = one_line(text, 10_000)
    assert shows_only_itself(shown) and "\n" not in shown
    shown.encode("utf-8")  # no half of a surrogate pair left to crash a terminal or a notebook


@pytest.mark.parametrize("hidden", list(HIDDEN))
def test_one_line_writes_each_hidden_character_as_its_escape(hidden):
    shown = one_line(f"a{hidden}b")
    if hidden in "\x85\u2028":  # line breaks: one line has none, so they become a space
        assert shown == "a b"
    else:
        assert shown == f"a{repr(hidden)[1:-1]}b" and "\\" in shown


def test_one_line_reads_a_str_subclass_as_plain_text():
    class Lying(str):
        def split(self, *args):
            return ["\x1b[2J"]

        def __str__(self):
            return "\x1b[2J"

    assert one_line(Lying("plain \u202etext")) == "plain \\u202etext"


@given(hostile_text)
def test_terminal_text_keeps_lines_and_shows_every_other_hidden_character_as_an_escape(text):
    shown = terminal_text(text)
    assert all(shows_only_itself(line.removesuffix("\r")) for line in shown.replace("\t", " ").split("\n"))
    shown.encode("utf-8")


def test_terminal_text_leaves_plain_text_and_its_line_ends_as_they_were():
    text = "Σ = 0.119 bits, naïve\tcount\r\nnext line 漢字 \u00a0 end\n"
    assert terminal_text(text) == text
    assert json.loads(json.dumps(terminal_text("\u202e"))) == "\\u202e"
