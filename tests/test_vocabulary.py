"""The kept vocabulary: the same encoding as tiktoken's own parse, and any trouble falls back to that parse."""

import os
import sys

import pytest
import tiktoken

from teachagent.base import vocabulary
from teachagent.tokens import ENCODING

PARSE = tiktoken.get_encoding  # tiktoken's own parse, kept before any test counts its calls
TEXTS = ["hello world", "Hello, world!", "D_KL(0.7‖0.5) = 0.119 bits", "<|endoftext|> is plain text here"]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An empty cache folder of the test's own, and a count of tiktoken's own parses."""
    monkeypatch.setattr(vocabulary, "cache_folder", lambda: tmp_path / "cache")
    parses = []
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: parses.append(name) or PARSE(name))
    return tmp_path / "cache", parses


def same_encoding(encoding):
    parsed = PARSE(ENCODING)
    assert encoding.name == ENCODING and encoding.n_vocab == parsed.n_vocab and encoding.eot_token == parsed.eot_token
    assert encoding._mergeable_ranks == parsed._mergeable_ranks and encoding._special_tokens == parsed._special_tokens
    assert [encoding.encode(t, disallowed_special=()) for t in TEXTS] == [parsed.encode(t, disallowed_special=()) for t in TEXTS]


def test_the_first_run_parses_and_keeps_the_next_one_reads_what_was_kept(folder):
    cache, parses = folder
    first = vocabulary.cached_encoding(ENCODING)
    (kept,) = cache.iterdir()
    assert parses == [ENCODING] and kept.name == f"{ENCODING}-{vocabulary.key(vocabulary.shipped_files())}.marshal"
    second = vocabulary.cached_encoding(ENCODING)
    assert parses == [ENCODING] and second is not first  # built from the cache, tiktoken never asked again
    same_encoding(second)


@pytest.mark.parametrize("damage", [
    lambda data: data[: len(data) // 2],  # cut short
    lambda data: data[:100] + bytes([data[100] ^ 1]) + data[101:],  # one bit flipped
    lambda data: b"",
    lambda data: data[:32] + b"not marshal at all",
])
def test_a_damaged_cache_is_parsed_again_and_replaced(folder, damage):
    cache, parses = folder
    vocabulary.cached_encoding(ENCODING)
    (kept,) = cache.iterdir()
    whole = kept.read_bytes()
    kept.write_bytes(damage(whole))
    same_encoding(vocabulary.cached_encoding(ENCODING))
    assert parses == [ENCODING, ENCODING] and kept.read_bytes() == whole


def test_a_cache_of_the_right_hash_but_wrong_parts_is_parsed_again(folder):
    _, parses = folder
    path = vocabulary.cache_path(ENCODING)
    vocabulary.write(path, {"pat_str": 42, "mergeable_ranks": {}, "special_tokens": {}})
    same_encoding(vocabulary.cached_encoding(ENCODING))
    assert parses == [ENCODING] and isinstance(vocabulary.read(path)["pat_str"], str)  # and replaced by a good one


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root writes to a read-only folder")
def test_a_folder_that_cannot_be_written_is_left_be(folder):
    cache, parses = folder
    cache.mkdir()
    cache.chmod(0o500)
    try:
        same_encoding(vocabulary.cached_encoding(ENCODING))
        assert parses == [ENCODING] and list(cache.iterdir()) == []
    finally:
        cache.chmod(0o700)


@pytest.mark.parametrize("failing", ["mkstemp", "replace"])
def test_a_cache_that_cannot_be_written_leaves_nothing_behind(folder, monkeypatch, failing):
    cache, parses = folder

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    if failing == "mkstemp":
        monkeypatch.setattr(vocabulary.tempfile, "mkstemp", refuse)
    else:
        monkeypatch.setattr(vocabulary.os, "replace", refuse)  # as Windows does while another program reads the file
    same_encoding(vocabulary.cached_encoding(ENCODING))
    assert parses == [ENCODING] and list(cache.iterdir()) == []


def test_a_cache_folder_that_is_a_file_or_missing_or_no_home_falls_back_silently(folder, monkeypatch, tmp_path):
    _, parses = folder
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setattr(vocabulary, "cache_folder", lambda: blocker / "teachagent")
    same_encoding(vocabulary.cached_encoding(ENCODING))
    assert blocker.read_text() == "not a folder"
    monkeypatch.setattr(vocabulary, "cache_folder", lambda: None)
    same_encoding(vocabulary.cached_encoding(ENCODING))
    assert parses == [ENCODING, ENCODING]


def test_the_cache_folder_follows_xdg_cache_home_and_needs_no_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert vocabulary.cache_folder() == tmp_path / "teachagent"

    def no_home():
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(vocabulary.Path, "home", no_home)
    assert vocabulary.cache_folder() is None


def test_the_key_changes_with_any_byte_of_the_shipped_files(tmp_path):
    copies = []
    for shipped in vocabulary.shipped_files():
        copy = tmp_path / shipped.name
        copy.write_bytes(shipped.read_bytes())
        copies.append(copy)
    before = vocabulary.key(copies)
    vocabulary_file = copies[1]
    vocabulary_file.write_bytes(vocabulary_file.read_bytes().replace(b"IQ== 0", b"IQ== 1", 1))
    assert vocabulary.key(copies) != before


def test_without_the_plugin_there_is_no_cache_and_tiktoken_says_what_is_missing(monkeypatch):
    monkeypatch.setattr(vocabulary, "PLUGIN", "tiktoken_ext.no_such_plugin")
    assert vocabulary.shipped_files() == [] and vocabulary.cache_path(ENCODING) is None


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")
@pytest.mark.parametrize("kind", ["fifo", "endless device", "folder"])
def test_a_cache_path_that_is_not_a_regular_file_is_never_read(folder, kind):
    """A FIFO would block the first count for good, /dev/zero would fill memory: both fall back at once."""
    _, parses = folder
    path = vocabulary.cache_path(ENCODING)
    path.parent.mkdir(parents=True)
    {"fifo": os.mkfifo, "endless device": lambda p: os.symlink("/dev/zero", p), "folder": os.mkdir}[kind](path)
    assert vocabulary.read(path) is None
    same_encoding(vocabulary.cached_encoding(ENCODING))
    assert parses == [ENCODING]


def test_a_cache_larger_than_any_vocabulary_is_not_read(folder, monkeypatch):
    _, parses = folder
    vocabulary.cached_encoding(ENCODING)
    path = vocabulary.cache_path(ENCODING)
    monkeypatch.setattr(vocabulary, "MAX_BYTES", path.stat().st_size - 1)
    assert vocabulary.read(path) is None
    same_encoding(vocabulary.cached_encoding(ENCODING))
    assert parses == [ENCODING, ENCODING]


def test_a_resealed_cache_that_counts_wrong_is_caught_by_the_probe_and_replaced(folder):
    """Someone rewrote the cache with fewer merges and a fresh seal: its SHA-256 matches, its counts do not."""
    _, parses = folder
    path = vocabulary.cache_path(ENCODING)
    parsed = PARSE(ENCODING)
    fewer = {token: rank for token, rank in parsed._mergeable_ranks.items() if len(token) < 3}
    vocabulary.write(path, {"pat_str": parsed._pat_str, "mergeable_ranks": fewer, "special_tokens": parsed._special_tokens})
    forged = tiktoken.Encoding(name=ENCODING, **vocabulary.read(path))
    assert len(forged.encode(vocabulary.PROBE_TEXT)) > len(parsed.encode(vocabulary.PROBE_TEXT))  # it would count wrong
    same_encoding(vocabulary.cached_encoding(ENCODING))
    assert parses == [ENCODING] and vocabulary.read(path)["mergeable_ranks"] == parsed._mergeable_ranks


def test_the_probe_is_what_the_shipped_vocabulary_makes_of_its_text():
    assert PARSE(ENCODING).encode(vocabulary.PROBE_TEXT) == vocabulary.PROBES[ENCODING]
