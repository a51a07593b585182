"""Tools: the Tool record, schemas derived by @tool, and the sandboxed read_file tool."""

import inspect
import os
import subprocess
import sys
import threading
import time
from typing import Literal, Optional, Union
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from teachagent.base.schema import schema_from_signature
from teachagent.tools import Tool, read_file_tool, tool


def echo(text: str) -> str:
    return text


OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}}


# --- Tool ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "read_file", "read-file", "R2D2", "x" * 64, "_", "-"])
def test_tool_accepts_names_the_api_accepts(name):
    assert Tool(name, "d", OBJECT, echo).name == name


@pytest.mark.parametrize(
    "name", ["", "x" * 65, "read file", "read.file", "lire_l'été", "abc\n", "\nabc", "ab/c", 42, None]
)
def test_tool_rejects_names_the_api_rejects(name):
    with pytest.raises(ValueError, match="1 to 64 letters"):
        Tool(name, "d", OBJECT, echo)


@pytest.mark.parametrize("schema", [None, [], "object", {}, {"type": "string"}, {"properties": {}}])
def test_tool_requires_an_object_schema(schema):
    with pytest.raises(ValueError, match="JSON schema for an object"):
        Tool("t", "d", schema, echo)


@pytest.mark.parametrize("description", ["", "   ", None, 3])
def test_tool_requires_a_description(description):
    with pytest.raises(ValueError, match="needs a description"):
        Tool("t", description, OBJECT, echo)


def test_tool_requires_a_callable():
    with pytest.raises(TypeError, match="must be callable"):
        Tool("t", "d", OBJECT, "not a function")


@pytest.mark.parametrize("timeout", [0, -1, "5", True, float("nan"), float("inf"), 1e300, 10**400])
def test_tool_rejects_bad_timeouts(timeout):
    with pytest.raises(ValueError, match="timeout"):
        Tool("t", "d", OBJECT, echo, timeout=timeout)


@pytest.mark.parametrize("timeout", [None, 0.5, 3])
def test_tool_accepts_positive_or_no_timeout(timeout):
    assert Tool("t", "d", OBJECT, echo, timeout=timeout).timeout == timeout


def test_tool_timeout_defaults_to_ten_seconds():
    assert Tool("t", "d", OBJECT, echo).timeout == 10.0


def test_spec_is_what_goes_into_the_prompt():
    t = Tool("echo", "Repeat the text.", OBJECT, echo)
    assert t.spec == {"name": "echo", "description": "Repeat the text.", "input_schema": OBJECT}


def test_repr_shows_name_and_parameters_not_the_whole_schema():
    t = Tool("echo", "Repeat the text, a long description " * 5, OBJECT, echo)
    assert repr(t) == "Tool(name='echo', parameters=['text'])"


# --- @tool: names, descriptions, overrides -------------------------------------------


def test_bare_decorator_makes_a_tool_around_the_original_function():
    def greet(who: str) -> str:
        """Say hello."""
        return f"hello {who}"

    t = tool(greet)
    assert isinstance(t, Tool)
    assert t.fn is greet
    assert (t.name, t.description, t.timeout) == ("greet", "Say hello.", 10.0)


def test_decorator_with_arguments_overrides_name_description_and_timeout():
    @tool(name="say-hi", description="Greets someone.", timeout=None)
    def greet(who: str) -> str:
        """Say hello."""
        return who

    assert (greet.name, greet.description, greet.timeout) == ("say-hi", "Greets someone.", None)
    assert greet.fn("x") == "x"


def test_schema_argument_replaces_the_derived_schema_entirely():
    custom = {"type": "object", "properties": {"data": {"type": "object"}}, "required": ["data"]}

    @tool(schema=custom)
    def store(data: dict, *rest) -> str:  # neither type could be derived
        """Store a record."""
        return "ok"

    assert store.input_schema is custom


def test_description_is_the_first_paragraph_of_the_docstring():
    @tool
    def f(x: int) -> str:
        """Look a word up
        in the dictionary.

        More detail that the model need not read.
        """
        return ""

    assert f.description == "Look a word up in the dictionary."


def test_function_without_docstring_or_description_is_refused():
    def f(x: int) -> str:
        return ""

    with pytest.raises(ValueError, match="needs a description"):
        tool(f)
    assert tool(description="Does f.")(f).description == "Does f."


def test_decorator_given_a_string_explains_how_to_name_a_tool():
    with pytest.raises(TypeError, match=r"@tool\(name=\.\.\.\)"):
        tool("my_tool")


# --- @tool: the Args: section ---------------------------------------------------------


def test_args_section_describes_parameters_with_continuation_lines():
    @tool
    def search(query: str, limit: int = 5, exact: bool = False) -> str:
        """Search the notes.

        Args:
            query: words to look for;
                case does not matter.
            limit (int): at most this many hits.

        Returns:
            the hits, one a line.
        """
        return ""

    props = search.input_schema["properties"]
    assert props["query"]["description"] == "words to look for; case does not matter."
    assert props["limit"]["description"] == "at most this many hits."
    assert "description" not in props["exact"]  # not documented, and Returns: did not leak in


def test_args_entry_may_start_empty_and_continue_below():
    @tool
    def f(x: int) -> str:
        """F.

        Args:
            x:
                the value.
        """
        return ""

    assert f.input_schema["properties"]["x"]["description"] == "the value."


def test_docstring_describing_a_missing_parameter_is_an_error():
    def f(path: str) -> str:
        """Read.

        Args:
            pth: the path.
        """
        return ""

    with pytest.raises(TypeError, match="'pth'"):
        tool(f)


# --- @tool: types to JSON schema ------------------------------------------------------


def schema_of(fn):
    return schema_from_signature(fn)["properties"]


def test_basic_types_map_to_json_types():
    def f(s: str, i: int, x: float, b: bool) -> str: ...

    assert schema_of(f) == {
        "s": {"type": "string"},
        "i": {"type": "integer"},
        "x": {"type": "number"},
        "b": {"type": "boolean"},
    }


def test_lists_become_arrays_with_items():
    def f(words: list[str], grid: list[list[int]], anything: list) -> str: ...

    assert schema_of(f) == {
        "words": {"type": "array", "items": {"type": "string"}},
        "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
        "anything": {"type": "array"},
    }


def test_literals_become_enums_of_the_right_type():
    def f(unit: Literal["bits", "nats"], base: Literal[2, 10], flag: Literal[True]) -> str: ...

    assert schema_of(f) == {
        "unit": {"type": "string", "enum": ["bits", "nats"]},
        "base": {"type": "integer", "enum": [2, 10]},
        "flag": {"type": "boolean", "enum": [True]},
    }


def test_optional_parameters_accept_null_and_are_not_required():
    def f(a: int | None = None, b: str | None = None, c: Literal["x"] | None = None) -> str: ...

    schema = schema_from_signature(f)
    assert "required" not in schema
    assert schema["properties"] == {
        "a": {"type": ["integer", "null"], "default": None},
        "b": {"type": ["string", "null"], "default": None},
        "c": {"type": ["string", "null"], "enum": ["x", None], "default": None},
    }


def test_defaults_are_included_when_json_can_hold_them():
    def f(n: int = 3, words: list[str] = ["a"], x: float = float("nan"), y: str = object()) -> str: ...  # noqa: B006

    props = schema_of(f)
    assert props["n"]["default"] == 3
    assert props["words"]["default"] == ["a"]
    assert "default" not in props["x"]  # NaN is not JSON
    assert "default" not in props["y"]


def test_required_lists_parameters_without_defaults_in_order():
    def f(b: str, a: str, *, c: int, d: int = 0) -> str: ...

    schema = schema_from_signature(f)
    assert schema["required"] == ["b", "a", "c"]
    assert schema["additionalProperties"] is False
    assert schema["type"] == "object"


def test_string_annotations_are_resolved():
    def f(n: "int", words: "list[str]") -> "str": ...

    assert schema_of(f) == {"n": {"type": "integer"}, "words": {"type": "array", "items": {"type": "string"}}}


def test_function_without_parameters_gets_an_empty_object_schema():
    def now() -> str: ...

    assert schema_from_signature(now) == {"type": "object", "properties": {}, "additionalProperties": False}


class Point:
    pass


@pytest.mark.parametrize(
    "annotation, shown",
    [
        (dict, "dict"), (tuple[int, int], "tuple[int, int]"), (Union[int, str], "Union[int, str]"),
        (int | str, "int | str"), (Point, "Point"), (bytes, "bytes"), (list[dict], "list[dict]"),
        (Literal["a", 1], "Literal['a', 1]"), (Optional[dict], "Optional[dict]"),
    ],
)
def test_unsupported_types_are_a_clear_type_error(annotation, shown):
    def f(value) -> str: ...

    f.__annotations__["value"] = annotation
    with pytest.raises(TypeError) as info:
        tool(f, description="d")
    message = str(info.value)
    assert "'value'" in message and "f()" in message and shown in message and "schema=" in message


def test_missing_annotation_is_a_clear_type_error():
    def f(path) -> str: ...

    with pytest.raises(TypeError, match=r"parameter 'path' of .*f\(\) has no type hint.*schema="):
        tool(f, description="d")


@pytest.mark.parametrize("source", ["def f(*args: str) -> str: ...", "def f(**kw: str) -> str: ...",
                                    "def f(x: str, /) -> str: ..."])
def test_parameters_that_cannot_be_named_are_a_clear_type_error(source):
    namespace = {}
    exec(source, namespace)
    with pytest.raises(TypeError, match=r"named arguments only.*schema="):
        tool(namespace["f"], description="d")


def test_optional_without_default_is_a_clear_type_error():
    def f(limit: int | None) -> str: ...

    with pytest.raises(TypeError, match=r"'limit'.*without a default.*= None"):
        tool(f, description="d")


def test_unknown_name_in_a_string_annotation_is_a_clear_type_error():
    def f(x: "NoSuchType") -> str: ...  # noqa: F821

    with pytest.raises(TypeError, match=r"type hints of .*f\(\).*schema="):
        tool(f, description="d")


# A supported type hint, with a value that fits it and one that does not.
SAMPLES = [
    (str, "hi", 1), (int, 3, "3"), (float, 2.5, "2.5"), (bool, True, 1), (list[int], [1, 2], [1, "2"]),
    (list, [1, "a"], {}), (Literal["a", "b"], "a", "c"), (Optional[int], None, "x"), (list[str] | None, ["x"], [1]),
]


def function_with(hints):
    """A function whose keyword parameters have the given type hints and default to None."""

    def f(**kwargs) -> str: ...

    f.__annotations__ = dict(hints)
    f.__signature__ = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None) for name in hints]
    )
    return f


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(SAMPLES), min_size=1, max_size=4), st.data())
def test_derived_schemas_are_valid_and_check_what_the_hints_say(samples, data):
    names = [f"p{i}" for i in range(len(samples))]
    schema = schema_from_signature(function_with({n: hint for n, (hint, _, _) in zip(names, samples)}))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)

    good = {n: value for n, (_, value, _) in zip(names, samples)}
    assert validator.is_valid(good)
    assert validator.is_valid({})  # every parameter has a default
    i = data.draw(st.integers(0, len(names) - 1))
    assert not validator.is_valid({**good, names[i]: samples[i][2]})
    assert not validator.is_valid({**good, "extra": 1})


# --- read_file_tool ------------------------------------------------------------------


@pytest.fixture
def sandbox(tmp_path):
    """A folder the tool may read, with a secret file beside it that it must not."""
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "notes.txt").write_text("hello notes\n", encoding="utf-8")
    (root / "docs" / "intro.md").write_text("# Intro\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("SECRET", encoding="utf-8")
    return root


def read(root, path, **kwargs):
    return read_file_tool(root, **kwargs).fn(path=path)


def test_read_file_reads_files_and_subfolders(sandbox):
    assert read(sandbox, "notes.txt") == "hello notes\n"
    assert read(sandbox, "docs/intro.md") == "# Intro\n"
    assert read(sandbox, "docs/../notes.txt") == "hello notes\n"  # .. that stays inside is fine
    assert read(sandbox, "./docs//intro.md") == "# Intro\n"


def test_read_file_spec(sandbox):
    t = read_file_tool(sandbox)
    assert t.name == "read_file"
    assert t.input_schema["required"] == ["path"]
    assert t.input_schema["properties"]["path"]["type"] == "string"
    assert "relative" in t.input_schema["properties"]["path"]["description"]
    assert read_file_tool(sandbox, name="read_notes").name == "read_notes"


@pytest.mark.parametrize("path", ["../secret.txt", "docs/../../secret.txt", "..", "../root/../secret.txt"])
def test_read_file_refuses_paths_outside_the_folder(sandbox, path):
    with pytest.raises(ValueError, match="outside the folder this tool may read; use a path relative to it"):
        read(sandbox, path)


def test_read_file_refuses_absolute_paths_even_inside_the_folder(sandbox):
    for path in [str(sandbox.parent / "secret.txt"), str(sandbox / "notes.txt"), "/etc/passwd"]:
        with pytest.raises(ValueError, match="is absolute"):
            read(sandbox, path)


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_read_file_follows_symlinks_only_while_they_stay_inside(sandbox):
    outside = sandbox.parent
    (outside / "elsewhere").mkdir()
    (outside / "elsewhere" / "data.txt").write_text("OUT", encoding="utf-8")
    (sandbox / "to_secret").symlink_to(outside / "secret.txt")
    (sandbox / "to_elsewhere").symlink_to(outside / "elsewhere", target_is_directory=True)
    (sandbox / "to_notes").symlink_to(sandbox / "notes.txt")

    for path in ["to_secret", "to_elsewhere/data.txt", "to_elsewhere"]:
        with pytest.raises(ValueError, match="outside the folder"):
            read(sandbox, path)
    assert read(sandbox, "to_notes") == "hello notes\n"


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_read_file_root_may_itself_be_a_symlink(sandbox):
    link = sandbox.parent / "link_to_root"
    link.symlink_to(sandbox, target_is_directory=True)
    assert read(link, "notes.txt") == "hello notes\n"
    with pytest.raises(ValueError, match="outside"):
        read(link, "../secret.txt")


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_read_file_symlink_loop_is_refused_clearly(sandbox):
    (sandbox / "loop").symlink_to(sandbox / "loop")
    with pytest.raises(ValueError, match="'loop'"):
        read(sandbox, "loop")


def test_read_file_missing_file_lists_some_available_files(sandbox):
    with pytest.raises(ValueError, match=r"no file 'nope.txt'; files you can read include: docs/intro.md, notes.txt$"):
        read(sandbox, "nope.txt")


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_read_file_missing_file_does_not_list_links_that_lead_out(sandbox):
    (sandbox / "to_secret").symlink_to(sandbox.parent / "secret.txt")
    (sandbox / "to_notes").symlink_to(sandbox / "notes.txt")
    with pytest.raises(ValueError, match=r"include: docs/intro.md, notes.txt, to_notes$"):
        read(sandbox, "nope.txt")


def test_read_file_missing_file_lists_at_most_ten(sandbox):
    for i in range(15):
        (sandbox / f"f{i:02d}.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read(sandbox, "nope.txt")
    listed = str(info.value).split("include: ")[1].split(", ")
    assert len(listed) == 10 and listed[0] == "docs/intro.md"


def test_read_file_missing_file_in_an_empty_folder(tmp_path):
    with pytest.raises(ValueError, match="no file 'x'; the folder is empty"):
        read(tmp_path, "x")


@pytest.mark.parametrize("path", ["docs", "", ".", "docs/"])
def test_read_file_refuses_folders(sandbox, path):
    with pytest.raises(ValueError, match="is a folder, not a file"):
        read(sandbox, path)


def test_read_file_refuses_files_that_are_not_utf8(sandbox):
    (sandbox / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    (sandbox / "latin1.txt").write_bytes("café".encode("latin-1"))
    for path in ["image.png", "latin1.txt"]:
        with pytest.raises(ValueError, match="not a UTF-8 text file"):
            read(sandbox, path)


def test_read_file_reads_non_ascii_utf8(sandbox):
    (sandbox / "jp.txt").write_text("エージェント", encoding="utf-8")
    assert read(sandbox, "jp.txt") == "エージェント"


def test_read_file_refuses_a_nul_character_clearly(sandbox):
    with pytest.raises(ValueError, match="cannot be opened"):
        read(sandbox, "notes.txt\x00")


def test_read_file_long_path_is_shortened_in_the_message(sandbox):
    with pytest.raises(ValueError) as info:
        read(sandbox, "a" * 10_000)
    assert len(str(info.value)) < 300


def test_read_file_cuts_long_files_and_says_how_much(sandbox):
    (sandbox / "long.txt").write_text("abcdefghij" * 3, encoding="utf-8")  # 30 characters
    text = read(sandbox, "long.txt", max_chars=12)
    assert text.startswith("abcdefghijab\n\n[")
    assert "18 of its 30 characters were left out" in text
    assert "first 12" in text


def test_read_file_counts_characters_not_bytes(sandbox):
    (sandbox / "jp.txt").write_text("エ" * 10, encoding="utf-8")
    assert read(sandbox, "jp.txt", max_chars=10) == "エ" * 10
    assert read(sandbox, "jp.txt", max_chars=9).startswith("エ" * 9 + "\n\n[the file was cut here: 1 of its 10")


def test_read_file_root_is_fixed_at_creation(sandbox, monkeypatch):
    monkeypatch.chdir(sandbox)
    t = read_file_tool(".")
    monkeypatch.chdir(sandbox / "docs")
    assert t.fn(path="notes.txt") == "hello notes\n"


def test_read_file_root_must_be_an_existing_folder(sandbox):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_file_tool(sandbox / "missing")
    with pytest.raises(NotADirectoryError, match="is a file"):
        read_file_tool(sandbox / "notes.txt")


@pytest.mark.parametrize("max_chars", [0, -5, 1.5, "10", True])
def test_read_file_max_chars_must_be_a_positive_int(sandbox, max_chars):
    with pytest.raises(ValueError, match="max_chars"):
        read_file_tool(sandbox, max_chars=max_chars)


def test_importing_teachagent_does_not_import_jsonschema():
    code = "import sys, teachagent, teachagent.tools, teachagent.dispatch; print('jsonschema' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# --- read_file holds against hostile files -------------------------------------------


def test_read_file_reads_only_its_limit_of_a_huge_sparse_file(sandbox):
    import resource

    huge = sandbox / "huge.txt"
    with open(huge, "wb") as f:
        f.write(b"start ")
    os.truncate(huge, 8 * 2**30)  # 8 GiB of NUL bytes that take no disk space
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    text = read(sandbox, "huge.txt", max_chars=1000)
    assert time.monotonic() - started < 2
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # KiB on Linux
    assert grown_kib < 100 * 1024  # reading it whole would take 8 GiB
    assert text.startswith("start \x00")
    assert text.endswith("[the file was cut here: the rest of the file's 8,589,934,592 bytes were left out; "
                         "only its first 1,000 characters are shown]")


def test_read_file_knows_the_exact_count_when_the_whole_file_fits(sandbox, monkeypatch):
    monkeypatch.setattr("teachagent.tools.WHOLE_UP_TO", 0)  # only the characters asked for decide
    for size in range(1, 30):  # around the read limit of 4 * (max_chars + 1) bytes
        (sandbox / "e.txt").write_text("é" * size, encoding="utf-8")
        text = read(sandbox, "e.txt", max_chars=5)
        if size <= 5:
            assert text == "é" * size
        else:
            assert text.startswith("é" * 5 + "\n\n[the file was cut here: ")
            assert "only the first 5 are shown]" in text or "only its first 5 characters are shown]" in text


@given(st.text(min_size=1, max_size=60), st.integers(1, 20))
@settings(max_examples=200)
def test_read_file_shows_exactly_the_first_characters_of_any_text(tmp_path_factory, body, max_chars):
    folder = tmp_path_factory.mktemp("any")
    (folder / "t.txt").write_bytes(body.encode("utf-8", "surrogatepass"))
    try:
        with mock.patch("teachagent.tools.WHOLE_UP_TO", 0):  # so cuts fall inside the text, even mid-character
            text = read(folder, "t.txt", max_chars=max_chars)
    except ValueError as error:  # lone surrogates are not UTF-8
        assert "not a UTF-8 text file" in str(error)
        assert any("\ud800" <= ch <= "\udfff" for ch in body)
        return
    assert text.startswith(body[:max_chars])
    assert (text == body) == (len(body) <= max_chars)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_read_file_refuses_a_fifo_without_blocking(sandbox):
    os.mkfifo(sandbox / "pipe")  # nobody ever writes to it: a plain open would wait for good
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(_refusal(sandbox, "pipe")), daemon=True)
    worker.start()
    worker.join(5)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert "is not a regular file" in outcome[0]


def test_read_file_refuses_a_socket(sandbox):
    socket = pytest.importorskip("socket")
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("no Unix sockets here")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(sandbox / "sock"))
        assert "sock" in _refusal(sandbox, "sock")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_read_file_refuses_a_link_to_a_device_even_from_a_root_that_holds_it(tmp_path):
    (tmp_path / "zero").symlink_to("/dev/zero")
    assert "outside the folder" in _refusal(tmp_path, "zero")
    assert "not a regular file" in _refusal("/dev", "zero")  # a device inside the folder itself


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_read_file_a_folder_swapped_for_a_symlink_after_the_check_leaks_nothing(sandbox, monkeypatch):
    """The swap happens at the worst moment: after the path was resolved and checked, just before the open."""
    outside = sandbox.parent / "outside"
    outside.mkdir()
    (outside / "intro.md").write_text("SECRET", encoding="utf-8")
    real_open = os.open

    def swap_then_open(path, *args, **kwargs):
        if (sandbox / "docs").is_dir() and not (sandbox / "docs").is_symlink():
            (sandbox / "docs").rename(sandbox / "docs_old")
            (sandbox / "docs").symlink_to(outside, target_is_directory=True)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", swap_then_open)
    assert "outside the folder" in _refusal(sandbox, "docs/intro.md")
    assert (sandbox / "docs").is_symlink()  # the swap did happen


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_read_file_a_last_part_swapped_for_a_symlink_is_not_followed(sandbox, monkeypatch):
    real_open = os.open

    def swap_then_open(path, *args, **kwargs):
        if not (sandbox / "notes.txt").is_symlink():
            (sandbox / "notes.txt").unlink()
            (sandbox / "notes.txt").symlink_to(sandbox.parent / "secret.txt")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", swap_then_open)
    refusal = _refusal(sandbox, "notes.txt")
    assert "SECRET" not in refusal and "could not read" in refusal


def _refusal(root, path) -> str:
    """The message read_file refuses `path` with (the test fails if it reads it)."""
    with pytest.raises(ValueError) as info:
        read(root, path)
    return str(info.value)
