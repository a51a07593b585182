"""Hostile input, round five (issue 41), the floor below the ideas (teachagent/base/): one function makes any
text safe for a terminal or a notebook line; what a course file loads back is what was saved; a SQLite file
swapped in under a memory store is refused; a server's address that no call could use is refused at once.

Each class has a property-based test; the ideas' tests are in test_hostile5_ideas.py, the course's (recordings,
the CLI, exercises, local mode) in test_hostile5_course.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata

import pytest
from hypothesis import assume, given, settings
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


# --- a schema's references, inlined, hold the same values -------------------------------------------------

simple_schema = st.sampled_from([{"type": "integer"}, {"type": "string"}, {"enum": ["cm", "m", 3]}, {"minimum": 2},
                                 {"type": "array", "items": {"type": "boolean"}}, {"const": None}])
instances = st.sampled_from([0, 3, "cm", "x", None, True, [True, False], [1], {"a": 1}, 2.5])


@given(defs=st.dictionaries(st.sampled_from(["a", "b", "c/d"]), simple_schema, min_size=1),
       picks=st.lists(st.integers(0, 2), min_size=1, max_size=3), value=instances)
def test_a_schema_with_its_references_inlined_holds_exactly_the_values_it_held(defs, picks, value):
    from teachagent.base.schema import inlined, load_jsonschema

    names = sorted(defs)
    refs = [{"$ref": "#/$defs/" + names[pick % len(names)].replace("/", "~1")} for pick in picks]  # "/" escaped as ~1
    schema = {"$defs": defs, "anyOf": refs, "description": "a tool's input"}
    flat = inlined(schema)
    assert "$ref" not in json.dumps(flat) and "$defs" not in flat
    validator = load_jsonschema().Draft202012Validator
    assert validator(schema).is_valid(value) == validator(flat).is_valid(value)


def test_a_recursive_schema_is_inlined_to_a_bounded_depth_and_then_left_open():
    from teachagent.base.schema import inlined

    schema = {"$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
              "$ref": "#/$defs/node"}
    flat = inlined(schema, depth=3)
    assert flat["properties"]["next"]["properties"]["next"]["properties"]["next"] == {}
    assert "$ref" not in json.dumps(flat)


# --- round four's two: a kept vocabulary that lacks a byte, or claims a list of 2³¹ items ------------------


def test_a_kept_vocabulary_that_lacks_a_byte_is_parsed_again_not_used(tmp_path, monkeypatch):
    import tiktoken

    from teachagent.base import vocabulary
    from teachagent.tokens import ENCODING

    monkeypatch.setattr(vocabulary, "cache_folder", lambda: tmp_path / "cache")
    parsed = tiktoken.get_encoding(ENCODING)
    ranks = {token: rank for token, rank in parsed._mergeable_ranks.items() if token != b"\x7f"}  # DEL's byte gone
    vocabulary.write(vocabulary.cache_path(ENCODING),
                     {"pat_str": parsed._pat_str, "mergeable_ranks": ranks, "special_tokens": parsed._special_tokens})
    encoding = vocabulary.cached_encoding(ENCODING)  # sealed and probed right, yet it cannot encode "\x7f"
    assert encoding.encode("a\x7fb") == parsed.encode("a\x7fb")


VOCABULARY_CLAIMING_A_HUGE_LIST = """
import hashlib, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))  # as on a machine with 4 GB: no room for 2**31 items
from teachagent.base import vocabulary
from teachagent.tokens import ENCODING
vocabulary.cache_folder = lambda: __import__("pathlib").Path(sys.argv[1])
body = b"[" + (2**31 - 1).to_bytes(4, "little")  # marshal's list, claiming 2**31 - 1 items that never come
path = vocabulary.cache_path(ENCODING)
path.parent.mkdir(parents=True)
path.write_bytes(hashlib.sha256(body).digest() + body)
print(len(vocabulary.cached_encoding(ENCODING).encode("hello world")))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS bounds the memory a process can have on Linux")
def test_a_kept_vocabulary_claiming_a_list_of_two_to_the_31_items_is_parsed_again(tmp_path):
    done = subprocess.run([sys.executable, "-c", VOCABULARY_CLAIMING_A_HUGE_LIST, str(tmp_path / "cache")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "2\n", done.stderr[-500:]


# --- what a course file loads back is what was saved ------------------------------------------------------

SPLIT_PAIR = "\ud83d\ude00"
any_text = st.lists(st.one_of(st.characters(codec=None, exclude_categories=()), st.just(SPLIT_PAIR)),
                    max_size=12).map("".join)
json_data = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), any_text),
                         lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(any_text, inner, max_size=4)),
                         max_leaves=12)


@given(json_data)
def test_what_a_course_file_gives_back_is_the_data_as_kept(data):
    from teachagent.base.formats import as_saved

    kept = as_saved(data)  # the form the course keeps text in, from the start
    text = json.dumps(kept, ensure_ascii=False)
    assert json.loads(text.encode("utf-8", "backslashreplace").decode("utf-8")) == kept  # as save_document writes it
    assert as_saved(kept) == kept


def test_the_halves_of_a_pair_written_apart_are_kept_as_the_one_character_they_make_and_a_lone_half_stays():
    from teachagent.base.formats import as_saved

    assert as_saved(f"a{SPLIT_PAIR}b") == "a😀b" and as_saved("\ud83d x \ude00") == "\ud83d x \ude00"
    assert as_saved({"k" + SPLIT_PAIR: [SPLIT_PAIR, 1]}) == {"k😀": ["😀", 1]}


# --- a SQLite file swapped in under an owned path is refused -----------------------------------------------


def owned(path):
    from teachagent.base.sqlite import OwnedFile

    class Refused(Exception):
        pass

    file = OwnedFile(path, 1234, ("notes", ["id", "text"]), ["CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, "
                     "text TEXT)"], 1.0, Refused, "notes file", "the notes")
    file.claim()
    return file, Refused


@settings(max_examples=20)
@given(app_id=st.sampled_from([0, 1, 4321]), tables=st.sampled_from([["notes"], ["notes", "other"], ["other"]]))
def test_an_owned_file_writes_nothing_into_another_file_moved_in_under_its_path(tmp_path_factory, app_id, tables):
    import sqlite3

    assume(app_id or tables != ["notes"])  # our table and no id: a file of ours from before the id was written
    folder = tmp_path_factory.mktemp("owned")
    file, refused = owned(folder / "notes.sqlite")
    with sqlite3.connect(folder / "theirs.sqlite") as db:
        for table in tables:
            db.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, text TEXT)")
        db.execute(f"PRAGMA application_id = {app_id}")
    db.close()
    (folder / "theirs.sqlite").replace(folder / "notes.sqlite")
    before = (folder / "notes.sqlite").read_bytes()
    with pytest.raises(refused, match="something else"):
        file.transaction(lambda db: db.execute("INSERT INTO notes (text) VALUES ('mine')"), write=True)
    assert (folder / "notes.sqlite").read_bytes() == before


def test_an_owned_file_replaced_by_an_empty_one_is_made_ours_again(tmp_path):
    file, _ = owned(tmp_path / "notes.sqlite")
    (tmp_path / "notes.sqlite").unlink()
    file.transaction(lambda db: db.execute("INSERT INTO notes (text) VALUES ('mine')"), write=True)
    assert file.transaction(lambda db: db.execute("SELECT text FROM notes").fetchall()) == [("mine",)]


# --- a server's address no call could use is refused at once -------------------------------------------------


@given(scheme=st.sampled_from(["http", "https", "HTTP", "ws", "ftp", ""]), port=st.one_of(st.none(), st.integers(-5, 70000),
       st.sampled_from(["port", "", "80x"])), host=st.sampled_from(["127.0.0.1", "localhost", "[::1]", "", "a b"]))
def test_an_address_is_usable_exactly_when_it_is_http_with_a_host_and_a_port_from_1_to_65535(scheme, port, host):
    from teachagent.base.errors import SettingError
    from teachagent.base.http import Address, usable

    given = f"{scheme}://" if scheme else ""
    given += host + ("" if port is None else f":{port}") + "/v1"
    good = (scheme.lower() in ("http", "https") and host not in ("", "a b")
            and (port in (None, "") or (isinstance(port, int) and 0 < port < 65536)))
    if good:
        assert usable(Address(given), "base_url") is not None
    else:
        with pytest.raises(SettingError, match="base_url") as refused:
            usable(Address(given), "base_url")
        assert "\n" not in str(refused.value)
