"""The research example: the corpus, search and read over it, the calculator, and the scripted researcher."""

import functools
import math
import re
import string
import time
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest
import tomllib
from hypothesis import given, settings
from hypothesis import strategies as st

from teachagent.dispatch import Dispatcher
from teachagent.messages import ToolCall
from teachagent.research import researcher
from teachagent.research.calculator import MAX_CHARS, CalculatorError, calculate, evaluate
from teachagent.research.corpus import Library, load_corpus, parse
from teachagent.research.researcher import QUESTION, P, Q, kl_expression, research_agent
from teachagent.scripted import ScriptedModel
from teachagent.tokens import count_tokens
from teachagent.tools import tool

IDS = [
    "entropy",
    "cross-entropy",
    "kl-divergence",
    "metric-axioms",
    "jensen-shannon",
    "total-variation",
    "hellinger",
    "wasserstein",
    "mutual-information",
    "f-divergences",
]
KL_FORWARD = 0.1187091007693073  # D_KL(0.7‖0.5) in bits
KL_BACKWARD = 0.12576938349798225  # D_KL(0.5‖0.7) in bits
# Seconds any single calculator call or search may take. Not a speed test (benchmarks/ measures
# speed): a bound that only work without limit, such as 9**9**9 computed in full, can break.
FAST = 5.0
ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def shared_library() -> Library:
    """One library for the whole file (a function, since hypothesis tests cannot take fixtures)."""
    return Library()


@pytest.fixture
def library():
    return shared_library()


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


def file_text(doc_id: str) -> str:
    """The article exactly as shipped in the package."""
    return (resources.files("teachagent.research") / "corpus" / f"{doc_id}.md").read_text(encoding="utf-8")


def error_message(fn, *args, **kwargs) -> str:
    with pytest.raises(ValueError) as info:
        fn(*args, **kwargs)
    return str(info.value)


# --- the corpus ---------------------------------------------------------------------


def test_corpus_holds_exactly_the_ten_articles(corpus):
    assert sorted(corpus) == sorted(IDS)
    assert list(corpus) == sorted(IDS)  # alphabetical, so every listing of ids is stable


@pytest.mark.parametrize("doc_id", IDS)
def test_each_article_is_between_1500_and_3000_tokens(corpus, doc_id):
    assert 1_500 <= count_tokens(corpus[doc_id].text) <= 3_000


def test_the_whole_corpus_is_between_20k_and_30k_tokens(corpus):
    assert 20_000 <= sum(count_tokens(a.text) for a in corpus.values()) <= 30_000


# What each article's opening paragraph must say about logarithms.
LOG_BASE = {doc_id: ("base 2", "log₂", "bits") for doc_id in IDS}
LOG_BASE["wasserstein"] = ("no logarithms",)
LOG_BASE["hellinger"] = ("no logarithms", "natural log")  # no log in its definitions; nats where KL appears


@pytest.mark.parametrize("doc_id", IDS)
def test_each_article_states_its_log_base_up_front(corpus, doc_id):
    opening = corpus[doc_id].sections["Summary"]
    assert any(marker in opening for marker in LOG_BASE[doc_id]), opening


@pytest.mark.parametrize("doc_id", IDS)
def test_each_article_has_a_title_sections_and_see_also(corpus, doc_id):
    article = corpus[doc_id]
    lines = article.lines
    assert lines[0].startswith("# ") and article.title == lines[0][2:].strip()
    assert sum(line.startswith("## ") for line in lines) >= 4
    assert list(article.sections)[-1] == "See also"
    see_also = article.sections["See also"].splitlines()[1:]
    assert see_also and all(line.startswith("- ") and line[2:] in IDS and line[2:] != doc_id for line in see_also)


@pytest.mark.parametrize("doc_id", IDS)
def test_no_article_gives_away_the_answer(corpus, doc_id):
    """The KL values for 0.7 and 0.5 must come from the calculator, not be read off a page."""
    for value in ("0.119", "0.126", "0.1187", "0.1258"):
        assert value not in corpus[doc_id].text


def test_the_corpus_is_package_data():
    folder = resources.files("teachagent.research") / "corpus"
    shipped = sorted(f.name for f in folder.iterdir() if f.name.endswith(".md"))
    assert shipped == sorted(f"{doc_id}.md" for doc_id in IDS)
    assert "Kullback–Leibler" in file_text("kl-divergence")

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_data = config["tool"]["setuptools"]["package-data"]
    assert "corpus/*.md" in package_data["teachagent.research"]


def test_parse_splits_title_summary_and_sections():
    article = parse("x", "# Title\n\nOpening words.\n\n## One\n\nfirst\n\n## Two\nsecond\n")
    assert article.title == "Title"
    assert list(article.sections) == ["Summary", "One", "Two"]
    assert article.sections["Summary"] == "# Title\n\nOpening words."
    assert article.sections["One"] == "## One\nfirst"
    assert parse("y", "no title here").title == "y"


# --- search -------------------------------------------------------------------------


def test_search_finds_the_kl_article_for_the_symmetry_question(library):
    hits = library.search("is KL divergence symmetric")
    assert "kl-divergence" in [doc for doc, _, _ in hits[:3]]


QUERIES = ["is KL divergence symmetric", "triangle inequality", "bits", "metric", "see also", "Pinsker", "the"]


@pytest.mark.parametrize("query", QUERIES)
def test_search_results_are_short_snippets_from_real_sections(library, corpus, query):
    hits = library.search(query, limit=10)
    assert hits
    for hit in hits:
        assert isinstance(hit, tuple) and len(hit) == 3
        doc, section, snippet = hit
        assert doc in corpus and section in corpus[doc].sections
        assert isinstance(snippet, str) and 0 < len(snippet) < 300 and "\n" not in snippet
        body = " ".join(corpus[doc].sections[section].split())
        for fragment in filter(None, (f.strip() for f in snippet.split("…"))):
            assert fragment in body  # the snippet quotes the section it names


HOSTILE = [
    '"kl',
    'kl"',
    '"kl divergence"',
    "kl*",
    "*kl*",
    "NEAR(kl divergence)",
    "NEAR(kl divergence, 2)",
    "kl AND divergence",
    "kl OR",
    "AND",
    "NOT kl",
    "kl NOT",
    "(kl",
    "kl)",
    "((kl) AND (divergence))",
    '"" AND ()',
    "^kl",
    "-kl",
    "kl - divergence",
    "section:kl",
    "body:symmetric",
    "{doc_id section}: kl",
    "passages MATCH 'kl'; DROP TABLE passages; --",
    "kl\x00divergence",
    "é été über",
    "_",
    "x" * 5000,
    " ".join(f"word{i}" for i in range(500)),
    " ".join(["kl"] * 100),
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_raise(library, query):
    started = time.perf_counter()
    hits = library.search(query)
    assert time.perf_counter() - started < FAST
    assert isinstance(hits, list) and len(hits) <= 3
    assert library.search("kl divergence")  # and the index is still there afterwards


@pytest.mark.parametrize("query", ["", "   ", '"', '""', "*", "()", "^-:", '"" (*) ^', "‖ ∑ —", "\n\t"])
def test_a_query_without_words_is_a_value_error(library, query):
    assert "no words" in error_message(library.search, query)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text())
def test_any_text_is_a_search_or_a_value_error(query):
    library = shared_library()
    try:
        hits = library.search(query)
    except ValueError as error:
        assert "no words" in str(error) and not re.findall(r"\w+", query)
    else:
        assert isinstance(hits, list) and len(hits) <= 3


def test_the_search_tool_says_when_nothing_matches(library):
    search = {t.name: t for t in library.tools()}["search"]
    assert search.fn(query="zzzqqq xyzzy") == "nothing in the library matches 'zzzqqq xyzzy'"


def test_the_search_tool_lists_numbered_hits(library):
    search = {t.name: t for t in library.tools()}["search"]
    text = search.fn(query="is KL divergence symmetric")
    hits = library.search("is KL divergence symmetric")
    lines = text.splitlines()
    assert len(lines) == len(hits) == 3
    for i, (line, (doc, section, snippet)) in enumerate(zip(lines, hits), 1):
        assert line == f'{i}. {doc} § "{section}": {snippet}'


def test_a_query_without_words_is_an_error_result_through_the_dispatcher(library):
    result = Dispatcher(library.tools())(ToolCall("t1", "search", {"query": '"*"'}))
    assert result.is_error and "no words" in result.content


def test_a_long_repetitive_query_is_still_fast(library):
    started = time.perf_counter()
    library.search(" ".join(["kl"] * 500))
    assert time.perf_counter() - started < FAST


@pytest.mark.parametrize("limit", [1, 2, 3, 5, 10])
def test_search_respects_the_limit(library, limit):
    hits = library.search("divergence", limit=limit)
    assert len(hits) == limit  # "divergence" is in far more than 10 sections
    assert hits == library.search("divergence", limit=20)[:limit]  # a smaller limit is a prefix


def test_search_is_deterministic(library):
    for query in QUERIES:
        first = library.search(query, limit=50)
        assert library.search(query, limit=50) == first
        assert Library().search(query, limit=50) == first


def test_search_order_does_not_depend_on_the_order_articles_were_given(corpus):
    forward, backward = Library(dict(corpus)), Library(dict(reversed(list(corpus.items()))))
    assert backward.search("see also", limit=20) == forward.search("see also", limit=20)


# --- read ---------------------------------------------------------------------------


@pytest.mark.parametrize("doc_id", IDS)
def test_read_a_whole_article_is_the_file(library, doc_id):
    assert library.read(doc_id) == file_text(doc_id)


@pytest.mark.parametrize(
    "wanted",
    ["Why KL is not symmetric", "why kl is not symmetric", "WHY KL IS NOT SYMMETRIC", "  Why KL is not symmetric "],
)
def test_read_a_section_by_its_heading_in_any_case(library, wanted):
    text = library.read("kl-divergence", section=wanted)
    assert text.startswith("## Why KL is not symmetric\n")
    assert "The asymmetry comes from the weights." in text
    assert "## " not in text[3:]  # one section only


@pytest.mark.parametrize(
    "wanted, heading",
    [("gibbs", "Gibbs' inequality: KL is never negative"), ("triangle", "The triangle inequality fails, so KL is not a metric"),
     ("Worked", "Two yes/no distributions: a worked example"), ("see", "See also")],
)
def test_read_a_section_by_a_unique_part_of_its_heading(library, wanted, heading):
    assert library.read("kl-divergence", section=wanted).startswith(f"## {heading}\n")


def test_an_exact_heading_wins_over_a_longer_one_containing_it():
    text = "# X\n\nIntro.\n\n## Definition\nshort\n\n## Definition and notation\nlong\n"
    library = Library({"x": parse("x", text)})
    assert library.read("x", section="definition") == "## Definition\nshort"
    assert library.read("x", section="notation") == "## Definition and notation\nlong"


@pytest.mark.parametrize("doc_id", IDS)
def test_every_section_reads_back_as_lines_of_the_article(library, corpus, doc_id):
    article = corpus[doc_id]
    for heading, body in article.sections.items():
        text = library.read(doc_id, section=heading)
        assert text == body
        # every line of the section is a line of the article, in the same order
        remaining = iter(article.lines)
        assert all(any(line == other for other in remaining) for line in text.splitlines() if line)


def test_an_ambiguous_section_lists_the_candidates(library):
    message = error_message(library.read, "kl-divergence", section="symmetric")
    assert "several" in message
    assert "'Why KL is not symmetric'" in message and "'Symmetric relatives and true metrics'" in message
    assert "Gibbs" not in message  # only the candidates


def test_a_missing_section_lists_every_heading(library, corpus):
    message = error_message(library.read, "kl-divergence", section="Proof of the Riemann hypothesis")
    assert "not a section" in message
    for heading in corpus["kl-divergence"].sections:
        assert repr(heading) in message


@pytest.mark.parametrize(
    "start, end", [(1, 1), (3, 3), (5, 9), (1, 10), (40, 63), (114, 114), (1, 114), (113, 114)]
)
def test_read_lines_is_exact(library, corpus, start, end):
    lines = corpus["kl-divergence"].lines
    assert len(lines) == 114
    assert library.read("kl-divergence", start_line=start, end_line=end) == "\n".join(lines[start - 1 : end])


def test_read_lines_with_one_end_open(library, corpus):
    lines = corpus["entropy"].lines
    assert library.read("entropy", start_line=100) == "\n".join(lines[99:])
    assert library.read("entropy", end_line=3) == "\n".join(lines[:3])
    assert library.read("entropy", start_line=len(lines)) == lines[-1]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.sampled_from(IDS), st.data())
def test_read_any_line_range_is_exact(doc_id, data):
    library = shared_library()
    lines = library.articles[doc_id].lines
    start = data.draw(st.integers(1, len(lines)))
    end = data.draw(st.integers(start, len(lines)))
    assert library.read(doc_id, start_line=start, end_line=end) == "\n".join(lines[start - 1 : end])


@pytest.mark.parametrize(
    "start, end",
    [(0, 3), (-1, 2), (-5, -1), (5, 4), (1, 115), (115, 115), (115, None), (0, None), (None, 0), (None, 115), (None, -1)],
)
def test_a_bad_line_range_is_a_clear_value_error(library, start, end):
    message = error_message(library.read, "kl-divergence", start_line=start, end_line=end)
    assert "not a range" in message and "lines 1 to 114" in message


def test_a_section_and_lines_together_are_refused(library):
    for lines in ({"start_line": 1}, {"end_line": 3}, {"start_line": 1, "end_line": 3}):
        assert "not both" in error_message(library.read, "kl-divergence", section="Units and log base", **lines)


def test_an_unknown_article_lists_the_articles(library):
    message = error_message(library.read, "kl_divergence")
    assert "no article 'kl_divergence'" in message
    assert all(doc_id in message for doc_id in IDS)


@pytest.mark.parametrize(
    "tool_input",
    [
        {"doc_id": "kl-divergence", "start_line": "3"},
        {"doc_id": "kl-divergence", "start_line": 1, "end_line": "4"},
        {"doc_id": "kl-divergence", "start_line": 1.5},
        {"doc_id": "kl-divergence", "start_line": True},
        {"doc_id": "kl-divergence", "section": 5},
        {"doc_id": "kl-divergence", "section": ["Units and log base"]},
        {"doc_id": None},
        {"doc_id": 7},
        {"section": "Units and log base"},
        {"doc_id": "kl-divergence", "page": 2},
    ],
)
def test_bad_input_types_are_error_results_through_the_dispatcher(library, tool_input):
    result = Dispatcher(library.tools())(ToolCall("t1", "read", tool_input))
    assert result.is_error and "does not match the schema" in result.content


@pytest.mark.parametrize(
    "tool_input, expected",
    [
        ({"doc_id": "nope"}, "ValueError: there is no article 'nope'"),
        ({"doc_id": "kl-divergence", "start_line": 0}, "ValueError: lines 0 to 114 are not a range"),
        ({"doc_id": "kl-divergence", "section": "zzz"}, "ValueError: 'zzz' is not a section"),
        ({"doc_id": "kl-divergence", "section": "gibbs", "end_line": 2}, "ValueError: give either a section"),
    ],
)
def test_read_errors_come_back_as_error_results(library, tool_input, expected):
    result = Dispatcher(library.tools())(ToolCall("t1", "read", tool_input))
    assert result.is_error and result.content.startswith(expected)


def test_read_through_the_dispatcher_accepts_null_for_unused_arguments(library, corpus):
    tool_input = {"doc_id": "entropy", "section": None, "start_line": 2, "end_line": None}
    result = Dispatcher(library.tools())(ToolCall("t1", "read", tool_input))
    assert not result.is_error and result.content == "\n".join(corpus["entropy"].lines[1:])


def test_whole_number_floats_are_line_numbers(library, corpus):
    tool_input = {"doc_id": "kl-divergence", "start_line": 3.0, "end_line": 4.0}
    result = Dispatcher(library.tools())(ToolCall("t1", "read", tool_input))
    assert not result.is_error and result.content == "\n".join(corpus["kl-divergence"].lines[2:4])


# --- the calculator -----------------------------------------------------------------


@pytest.mark.parametrize(
    "expression, value",
    [
        ("log2(8)", 3.0),
        ("log2(0.5)", -1.0),
        ("ln(e)", 1.0),
        ("ln(1)", 0.0),
        ("log10(1000)", 3.0),
        ("sqrt(16)", 4.0),
        ("sqrt(2)", math.sqrt(2)),
        ("exp(0)", 1.0),
        ("exp(1)", math.e),
        ("abs(-3.5)", 3.5),
        ("pi", math.pi),
        ("e", math.e),
        ("2^10", 1024.0),
        ("2**10", 1024.0),
        ("2^-1", 0.5),
        ("2^3^2", 512.0),  # right-associative, like **
        ("-2^2", -4.0),  # the power binds tighter than unary minus
        ("(-2)^2", 4.0),
        ("-3", -3.0),
        ("--3", 3.0),
        ("+3", 3.0),
        ("2*-3", -6.0),
        ("2+3*4", 14.0),
        ("(2+3)*4", 20.0),
        ("10/4", 2.5),
        ("7-2-1", 4.0),
        ("8/2/2", 2.0),
        ("1e-3*1000", 1.0),
        ("1_000", 1000.0),
        ("  1 + 1  ", 2.0),
        ("2^1000", 2.0**1000),
        ("0.7*log2(0.7/0.5)", 0.7 * math.log2(1.4)),
        ("sqrt(log2(16))*abs(-2)", 4.0),
    ],
)
def test_the_calculator_computes(expression, value):
    result = evaluate(expression)
    assert type(result) is float
    assert result == pytest.approx(value, rel=1e-12, abs=1e-15)


def test_the_two_kl_values():
    forward, backward = kl_expression(P, Q), kl_expression(Q, P)
    assert forward == "0.7*log2(0.7/0.5) + 0.3*log2(0.3/0.5)"
    assert backward == "0.5*log2(0.5/0.7) + 0.5*log2(0.5/0.3)"
    assert abs(evaluate(forward) - KL_FORWARD) < 1e-9
    assert abs(evaluate(backward) - KL_BACKWARD) < 1e-9
    # and against the definition computed directly
    direct = lambda p, q: p * math.log2(p / q) + (1 - p) * math.log2((1 - p) / (1 - q))  # noqa: E731
    assert abs(evaluate(forward) - direct(0.7, 0.5)) < 1e-12
    assert abs(evaluate(backward) - direct(0.5, 0.7)) < 1e-12
    assert abs(evaluate(forward) - evaluate(backward)) > 0.005  # not symmetric


@pytest.mark.parametrize(
    "expression, problem",
    [
        ("10**10**10", "too large"),
        ("9**999999", "too large"),
        ("2**1001", "too large"),
        ("2^1001", "too large"),
        ("2**-1001", "too large"),
        ("1" * (MAX_CHARS + 1), "characters long"),
        ("1+" * 150 + "1", "characters long"),
        ("-" * 100 + "1", "nested"),
        ("2^" * 100 + "2", "nested"),
        ("abs(" * 40 + "1" + ")" * 40, "nested"),
        ("__import__('os')", "not allowed"),
        ("__import__('os').system('echo hi')", "not allowed"),
        ("().__class__", "not allowed"),
        ("().__class__.__bases__[0].__subclasses__()", "not allowed"),
        ("(1).real", "not allowed"),
        ("lambda: 1", "not allowed"),
        ("(lambda: 1)()", "not allowed"),
        ("[x for x in (1, 2)]", "not allowed"),
        ("sum(x for x in (1, 2))", "not allowed"),
        ("'abc'", "not allowed"),
        ("b'1'", "not allowed"),
        ("f'{1}'", "not allowed"),
        ("(1, 2)[0]", "not allowed"),
        ("[1][0]", "not allowed"),
        ("abs(x=1)", "exactly one argument"),
        ("abs(-1, 2)", "exactly one argument"),
        ("abs(-1, x=2)", "exactly one argument"),
        ("log2(8, base=2)", "exactly one argument"),
        ("log2()", "exactly one argument"),
        ("open('x')", "not allowed"),
        ("eval('1')", "not allowed"),
        ("foo(1)", "not allowed"),
        ("pi(1)", "not allowed"),
        ("x", "not allowed"),
        ("log2", "not allowed"),
        ("True", "not allowed"),
        ("None", "not allowed"),
        ("1j", "not allowed"),
        ("1 < 2", "not allowed"),
        ("1 if 1 else 2", "not allowed"),
        ("(y := 2)", "not allowed"),
        ("7 // 2", "not allowed"),
        ("7 % 2", "not allowed"),
        ("~1", "not allowed"),
        ("not 1", "not allowed"),
        ("log2(0)", "math domain error"),
        ("ln(-1)", "math domain error"),
        ("sqrt(-1)", "math domain error"),
        ("1/0", "division by zero"),
        ("0^-1", "negative power"),
        ("(-8)**0.5", "no real value"),
        ("(-8)^(1/3)", "no real value"),
        ("exp(10000)", "range"),
        ("10**1000", "range"),
        ("1e308*10", "no finite value"),
        ("1e999", "no finite value"),
        ("", "give an expression"),
        ("   ", "give an expression"),
        ("1 +", "cannot read"),
        ("import os", "cannot read"),
        ("1; 2", "cannot read"),
        ("x = 1", "cannot read"),
        ("1\x00", "cannot read"),
        ("[" * 250, "cannot read"),
    ],
)
def test_hostile_input_is_refused_fast(expression, problem):
    started = time.perf_counter()
    with pytest.raises(CalculatorError) as info:
        evaluate(expression)
    assert time.perf_counter() - started < FAST
    assert problem in str(info.value)
    assert len(str(info.value)) < 2 * MAX_CHARS + 200  # a message the model can read, not a dump


@pytest.mark.parametrize("expression", [None, 42, 1.5, b"1+1", ["1"]])
def test_only_strings_are_expressions(expression):
    with pytest.raises(CalculatorError, match="give an expression"):
        evaluate(expression)


def test_calculator_errors_are_value_errors():
    assert issubclass(CalculatorError, ValueError)


@pytest.mark.parametrize("depth", [100, (MAX_CHARS - 1) // 2])
def test_redundant_parentheses_add_no_depth(depth):
    """Parentheses make no node in the parsed tree, so ((((1)))) is just 1, and harmless: Python's own
    parser refuses more than 200 levels, which the length limit keeps out of reach."""
    expression = "(" * depth + "1" + ")" * depth
    started = time.perf_counter()
    assert evaluate(expression) == 1.0
    assert time.perf_counter() - started < FAST


@pytest.mark.parametrize("function", ["sqrt", "log2", "ln", "log10", "exp", "abs"])
def test_a_complex_intermediate_is_refused(function):
    with pytest.raises(CalculatorError, match="no real value"):
        evaluate(f"{function}((-8)**0.5)")


@pytest.mark.parametrize("expression", ["1/(1e308*10)", "0*(1e308+1e308)", "1/(1e200*1e200)", "exp(-(1e308*10))",
                                        "abs(1e308*10) - abs(1e308*10)"])
def test_no_infinite_intermediate_slips_through_to_a_finite_answer(expression):
    """Each of these would end finite (0, nan, 0, 0, nan) if an infinity could pass a step."""
    with pytest.raises(CalculatorError, match="has no finite value"):
        evaluate(expression)


@pytest.mark.parametrize("expression", ["(-8)**0.5", "foo(1)", "1 < 2"])
def test_an_error_message_quotes_the_expression_once(expression):
    with pytest.raises(CalculatorError) as info:
        evaluate(expression)
    assert str(info.value).count(expression) <= 1


def _finite_or_refused(expression: str) -> None:
    started = time.perf_counter()
    try:
        value = evaluate(expression)
    except CalculatorError:
        pass
    else:
        assert type(value) is float and math.isfinite(value)
    assert time.perf_counter() - started < FAST


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text())
def test_any_text_gives_a_finite_float_or_a_calculator_error(expression):
    _finite_or_refused(expression)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet=string.printable, max_size=400))
def test_any_printable_string_gives_a_finite_float_or_a_calculator_error(expression):
    _finite_or_refused(expression)


ARITHMETIC = st.sampled_from(
    list("0123456789.+-*/^() e") + ["**", "log2(", "ln(", "sqrt(", "exp(", "abs(", "pi", "(-8)", "0.5", "1e308", "999"]
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(ARITHMETIC, max_size=60).map("".join))
def test_any_arithmetic_looking_string_gives_a_finite_float_or_a_calculator_error(expression):
    _finite_or_refused(expression)


@pytest.mark.parametrize(
    "expression, shown",
    [
        ("2/3", "2/3 = 0.666667"),
        ("pi", "pi = 3.14159"),
        ("2^20", "2^20 = 1.04858e+06"),
        ("1/3*1e-9", "1/3*1e-9 = 3.33333e-10"),
        ("4", "4 = 4"),
        (kl_expression(0.7, 0.5), f"{kl_expression(0.7, 0.5)} = 0.118709"),
        (kl_expression(0.5, 0.7), f"{kl_expression(0.5, 0.7)} = 0.125769"),
    ],
)
def test_the_calculate_tool_shows_six_significant_digits(expression, shown):
    assert calculate.fn(expression=expression) == shown


def test_the_calculate_tool_through_the_dispatcher():
    dispatcher = Dispatcher([calculate])
    assert calculate.name == "calculate" and calculate.input_schema["required"] == ["expression"]
    ok = dispatcher(ToolCall("t1", "calculate", {"expression": "log2(8)"}))
    assert not ok.is_error and ok.content == "log2(8) = 3"
    refused = dispatcher(ToolCall("t2", "calculate", {"expression": "__import__('os')"}))
    assert refused.is_error and refused.content.startswith("CalculatorError:") and "not allowed" in refused.content
    wrong_type = dispatcher(ToolCall("t3", "calculate", {"expression": 2}))
    assert wrong_type.is_error and "does not match the schema" in wrong_type.content


# --- the scripted researcher --------------------------------------------------------


@pytest.fixture(scope="module")
def excerpt_run():
    return research_agent("excerpt").run(QUESTION)


@pytest.fixture(scope="module")
def everything_run():
    return research_agent("everything").run(QUESTION)


def calls_and_results(run):
    """(call, result) for every tool call in the run, in order."""
    pairs = []
    for step in run.steps:
        results = {r.tool_use_id: r for r in step.results}
        pairs += [(c, results[c.id]) for c in step.response.tool_calls]
    return pairs


def test_the_excerpt_researcher_answers_in_four_steps(excerpt_run):
    assert excerpt_run.outcome == "answer"
    assert len(excerpt_run.steps) == 4
    assert [[c.name for c in s.response.tool_calls] for s in excerpt_run.steps] == [
        ["search"],
        ["read"],
        ["calculate", "calculate"],
        [],
    ]
    assert not any(r.is_error for _, r in calls_and_results(excerpt_run))


@pytest.mark.parametrize("which", ["excerpt", "everything"])
def test_the_answer_says_no_with_numbers_from_the_calculator(excerpt_run, everything_run, which):
    run = excerpt_run if which == "excerpt" else everything_run
    answer = run.answer
    assert answer.startswith("No.")
    assert "0.119" in answer and "0.126" in answer
    assert "not a metric" in answer and "not symmetric" in answer

    pairs = calls_and_results(run)
    computed = [r.content for c, r in pairs if c.name == "calculate"]
    assert [c.input["expression"] for c, _ in pairs if c.name == "calculate"] == [kl_expression(P, Q), kl_expression(Q, P)]
    assert any("0.118709" in text for text in computed) and any("0.125769" in text for text in computed)
    # nothing else the agent saw contained the numbers: they were computed, not read or typed
    seen = [r.content for c, r in pairs if c.name != "calculate"] + [run.task, run.system]
    assert not any("0.119" in text or "0.126" in text or "0.1187" in text for text in seen)


@pytest.mark.parametrize("strategy", ["excerpt", "everything"])
def test_the_numbers_in_the_answer_are_the_calculators(monkeypatch, strategy):
    """Swap in a calculator that gives other values: the answer must carry those, so none is typed in."""
    with_calculator(monkeypatch, {kl_expression(P, Q): 0.5, kl_expression(Q, P): 0.25})
    run = research_agent(strategy).run(QUESTION)
    assert run.outcome == "answer"
    assert "= 0.500 bits" in run.answer and "= 0.250 bits" in run.answer
    assert "0.119" not in run.answer and "0.126" not in run.answer


def with_calculator(monkeypatch, values):
    """Swap in a calculator that answers `values[expression]`, made up, for the researcher's two expressions."""

    @tool
    def calculate(expression: str) -> str:
        """A calculator that gives made-up values.

        Args:
            expression: the expression.
        """
        return f"{expression} = {values[expression]!r}"

    monkeypatch.setattr(researcher, "calculate", calculate)


@pytest.mark.parametrize("strategy", ["excerpt", "everything"])
def test_equal_numbers_from_the_calculator_give_no_verdict_of_asymmetry(monkeypatch, strategy):
    with_calculator(monkeypatch, {kl_expression(P, Q): 0.125, kl_expression(Q, P): 0.125})
    run = research_agent(strategy).run(QUESTION)
    assert run.outcome == "answer"
    assert "not symmetric" not in run.answer and not run.answer.startswith("No.")
    assert "both came out 0.125 bits" in run.answer and "shows no asymmetry" in run.answer


def test_numbers_alike_to_three_decimals_are_shown_in_full(monkeypatch):
    with_calculator(monkeypatch, {kl_expression(P, Q): 0.1191, kl_expression(Q, P): 0.1192})
    answer = research_agent("excerpt").run(QUESTION).answer
    assert answer.startswith("No.") and "= 0.1191 bits but D_KL(0.5‖0.7) = 0.1192 bits" in answer


def test_the_excerpt_strategy_reads_a_section_the_search_pointed_to(excerpt_run, library):
    pairs = calls_and_results(excerpt_run)
    (search_call, search_result), (read_call, read_result) = pairs[0], pairs[1]
    assert search_call.name == "search" and read_call.name == "read"
    listed = re.findall(r'^\d+\. (\S+) § "([^"]+)"', search_result.content, flags=re.MULTILINE)
    assert listed == [(doc, section) for doc, section, _ in library.search(search_call.input["query"])]
    assert (read_call.input["doc_id"], read_call.input["section"]) in listed
    assert set(read_call.input) == {"doc_id", "section"}  # an excerpt, not a whole article
    assert read_result.content == library.read(read_call.input["doc_id"], read_call.input["section"])
    assert f"Sources: {read_call.input['doc_id']}." in excerpt_run.answer


def test_the_everything_strategy_reads_each_article_once(everything_run, library):
    pairs = calls_and_results(everything_run)
    reads = [(c, r) for c, r in pairs if c.name == "read"]
    assert Counter(c.input["doc_id"] for c, _ in reads) == Counter(IDS)
    for call, result in reads:
        assert set(call.input) == {"doc_id"} and result.content == library.read(call.input["doc_id"])


def test_the_everything_strategy_costs_what_the_lesson_says(everything_run):
    assert everything_run.outcome == "answer"
    assert len(everything_run.steps) == 11
    contexts = [s.context_tokens for s in everything_run.steps]
    assert contexts == sorted(contexts) and len(set(contexts)) == len(contexts)  # grows at every step
    assert 20_000 <= contexts[-1] <= 30_000
    assert 110_000 <= sum(contexts) <= 170_000


def test_the_excerpt_strategy_is_far_cheaper(excerpt_run, everything_run):
    z_excerpt = sum(s.context_tokens for s in excerpt_run.steps)
    z_everything = sum(s.context_tokens for s in everything_run.steps)
    assert z_excerpt * 20 < z_everything


def test_research_runs_are_deterministic(excerpt_run):
    again = research_agent("excerpt").run(QUESTION)
    timeless = lambda run: [s.to_dict() | {"seconds": 0} for s in run.steps]  # noqa: E731
    assert timeless(again) == timeless(excerpt_run)
    assert again.answer == excerpt_run.answer


def test_an_unknown_strategy_is_a_value_error():
    message = error_message(research_agent, "skim")
    assert "'skim'" in message and "excerpt" in message and "everything" in message


def test_a_model_passed_in_is_the_one_used(library):
    model = ScriptedModel(["I answer without looking anything up."], name="my own model")
    agent = research_agent(model=model, library=library)
    run = agent.run(QUESTION)
    assert model.played == 1
    assert run.model == "my own model" and run.answer == "I answer without looking anything up."
    assert [spec["name"] for spec in agent.specs] == ["search", "read", "calculate"]
    assert all(doc_id in agent.system for doc_id in IDS)


def test_the_step_budget_is_passed_on():
    run = research_agent("everything", max_steps=3).run(QUESTION)
    assert run.outcome == "max_steps" and len(run.steps) == 3
