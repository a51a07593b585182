"""Cost of a run: Z = Σ c_k, the theorem Z = K c_1 + d K(K-1)/2, prices, caching, plots."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import math
import random
from itertools import accumulate

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teachagent.agent import Agent
from teachagent.cost import (
    PRICES,
    Price,
    ZComparison,
    cached_usages,
    compare_Z,
    fitted_d,
    predicted_total,
    price_of,
    priced_usage,
    run_cost,
)
from teachagent.course.plots import plot_cumulative, plot_growth
from teachagent.messages import Message, Response, Text, ToolCall
from teachagent.scripted import ScriptedModel, call
from teachagent.tokens import block_tokens, context_tokens, count_tokens
from teachagent.tools import tool
from teachagent.trace import Run, Step
from teachagent.usage import Usage

# Deterministic, no example database written to disk, no per-example deadline.
PROPERTY = settings(derandomize=True, database=None, deadline=None, max_examples=200)

NOTE = "The sky is blue because shorter wavelengths scatter more."


@tool
def note(text: str) -> str:
    """Write a note and return it."""
    return f"noted: {text}"


def linear_run(K: int) -> Run:
    """A scripted run of K calls where every tool step adds the same text, so c_k is exactly linear."""
    script = [call("note", text=NOTE)] * (K - 1) + ["done"]
    return Agent(ScriptedModel(script), tools=[note], system="Take notes.", max_steps=K).run("Take notes.")


def step_growth() -> int:
    """The tokens one `note` step adds: the model's tool call v_k plus the tool's answer N(v_k)."""
    return block_tokens(ToolCall("x", "note", {"text": NOTE})) + count_tokens(f"noted: {NOTE}")


def run_of(sizes: list[int], outputs: list[int] | None = None, scripted: bool = True, model: str = "scripted") -> Run:
    """A Run built directly: call k read sizes[k] tokens and wrote outputs[k] (usage = our own count)."""
    outputs = outputs or [0] * len(sizes)
    steps = [
        Step(k, c, Response([Text("x")], "pause_turn", Usage(c, out), model))
        for k, (c, out) in enumerate(zip(sizes, outputs), start=1)
    ]
    return Run("task", model, steps=steps, outcome="answer", scripted=scripted)


def brute_total(K, c1, d):
    return sum(c1 + (k - 1) * d for k in range(1, K + 1))


@pytest.fixture
def close_figures():
    axes = []
    yield axes.append
    for ax in axes:
        plt.close(ax.figure)


# --- predicted_total ----------------------------------------------------------------------


@PROPERTY
@given(st.integers(1, 500), st.integers(0, 10**5), st.integers(0, 10**4))
def test_predicted_total_equals_the_sum_for_integers(K, c1, d):
    assert predicted_total(K, c1, d) == brute_total(K, c1, d)


@PROPERTY
@given(
    st.integers(1, 500),
    st.floats(0, 1e5, allow_nan=False, allow_infinity=False),
    st.floats(0, 1e4, allow_nan=False, allow_infinity=False),
)
def test_predicted_total_equals_the_sum_for_floats(K, c1, d):
    exact = math.fsum(c1 + (k - 1) * d for k in range(1, K + 1))
    assert predicted_total(K, c1, d) == pytest.approx(exact, rel=1e-12, abs=1e-9)


def test_predicted_total_small_cases_by_hand():
    assert predicted_total(1, 175, 2475) == 175  # one call reads c_1 once, whatever d is
    assert predicted_total(2, 10, 3) == 10 + 13
    assert predicted_total(4, 0, 1) == 0 + 1 + 2 + 3
    assert predicted_total(3, 5, 0) == 15  # no growth: linear in K


def test_predicted_total_quadruples_as_calls_double_when_c1_is_zero():
    # Z = d K(K-1)/2: doubling K multiplies Z by 2(2K-1)/(K-1), which tends to four
    assert predicted_total(200, 0, 7) / predicted_total(100, 0, 7) == pytest.approx(4 * 199 / 198)


@pytest.mark.parametrize("K, c1, d", [(0, 175, 10), (-1, 175, 10), (3, -1, 10), (3, 175, -1), (3, -0.5, 0), (3, 0, -1e-9)])
def test_predicted_total_rejects_invalid_inputs(K, c1, d):
    with pytest.raises(ValueError, match="(K|c1|d) must be a"):
        predicted_total(K, c1, d)


# --- the worked numbers of the source -----------------------------------------------------


def test_worked_numbers_of_the_source():
    excerpt = run_of([175, 209, 414, 560])
    assert excerpt.context_sizes == [175, 209, 414, 560]
    assert compare_Z(excerpt).counted == 1_358
    assert repr(compare_Z(excerpt)) == "ZComparison(counted=1,358)"

    assert predicted_total(11, 175, 2475) == 11 * 175 + 2475 * 11 * 10 / 2 == 138_050

    sizes = [175, 2_000, 5_100, 7_000, 9_900, 12_800, 15_000, 17_300, 20_000, 22_600, 24_927]  # interior: anything
    assert len(sizes) == 11
    assert fitted_d(sizes) == fitted_d(sizes, "endpoints") == pytest.approx(2475.2)
    assert fitted_d([175, 24_927]) == 24_927 - 175  # two calls: the whole growth is one step


# --- fitted_d --------------------------------------------------------------------------------


@pytest.mark.parametrize("K", [2, 3, 7])
def test_fitted_d_on_an_exactly_linear_agent_run(K):
    run = linear_run(K)
    d = step_growth()
    sizes = run.context_sizes
    assert run.outcome == "answer" and len(sizes) == K
    assert sizes[0] == context_tokens("Take notes.", [Message("user", "Take notes.")], run.tools)
    assert sizes == [sizes[0] + (k - 1) * d for k in range(1, K + 1)]
    assert fitted_d(sizes, "endpoints") == d
    assert fitted_d(sizes, "least_squares") == d
    assert compare_Z(run).counted == predicted_total(K, sizes[0], d)


@PROPERTY
@given(st.integers(2, 60), st.integers(0, 10**5), st.integers(0, 10**4))
def test_fitted_d_is_exact_on_linear_sizes(K, c1, d):
    sizes = [c1 + (k - 1) * d for k in range(1, K + 1)]
    assert fitted_d(sizes, "endpoints") == d
    assert fitted_d(sizes, "least_squares") == d


def test_least_squares_recovers_d_from_noisy_sizes():
    rng = random.Random(20251130)
    K, c1, d = 40, 500, 300
    sizes = [round(c1 + (k - 1) * d + rng.gauss(0, 40)) for k in range(1, K + 1)]
    assert sizes != [c1 + (k - 1) * d for k in range(1, K + 1)]
    assert fitted_d(sizes, "least_squares") == pytest.approx(d, abs=3)
    assert fitted_d(sizes, "endpoints") == pytest.approx(d, abs=6)


@PROPERTY
@given(st.lists(st.integers(0, 10**6), min_size=2, max_size=40))
def test_least_squares_is_the_fit_through_c1(sizes):
    # minimises Σ (c_k - c_1 - d (k-1))²: the same d as numpy's least squares with no intercept
    x = np.arange(len(sizes), dtype=float)[:, None]
    y = np.array(sizes, dtype=float) - sizes[0]
    expected = np.linalg.lstsq(x, y, rcond=None)[0][0]
    assert fitted_d(sizes, "least_squares") == pytest.approx(expected, rel=1e-9, abs=1e-9)


@PROPERTY
@given(st.lists(st.integers(0, 10**6), min_size=2, max_size=40))
def test_endpoints_is_average_growth(sizes):
    assert fitted_d(sizes, "endpoints") == (sizes[-1] - sizes[0]) / (len(sizes) - 1)


@pytest.mark.parametrize("sizes", [[], [175]])
@pytest.mark.parametrize("method", ["endpoints", "least_squares"])
def test_fitted_d_needs_two_sizes(sizes, method):
    with pytest.raises(ValueError, match="at least two"):
        fitted_d(sizes, method)


def test_fitted_d_rejects_an_unknown_method():
    with pytest.raises(ValueError, match="unknown method 'median'"):
        fitted_d([1, 2, 3], "median")


# --- compare_Z ------------------------------------------------------------------------


def test_total_of_a_scripted_agent_run_has_no_reported_part():
    run = linear_run(4)
    assert run.scripted
    total = compare_Z(run)
    assert total == ZComparison(counted=sum(run.context_sizes), reported=None)
    assert total.relative_difference is None
    # a scripted model's usage is our own count, so it is the same c_k
    assert [s.response.usage.input_tokens for s in run.steps] == run.context_sizes
    assert repr(total) == f"ZComparison(counted={total.counted:,})"


def live_like_run() -> Run:
    usages = [Usage(100, 50, 800, 150), Usage(250, 60, 1_050, 900)]  # totals 1,050 and 2,200
    steps = [
        Step(k, c, Response([Text("x")], "end_turn", u, "claude-haiku-4-5"))
        for k, (c, u) in enumerate(zip([1_000, 2_200], usages), start=1)
    ]
    return Run("task", "claude-haiku-4-5", steps=steps, outcome="answer", scripted=False)


def test_total_of_a_live_run_sets_reported_from_cached_and_uncached_input():
    total = compare_Z(live_like_run())
    assert total.counted == 3_200
    assert total.reported == 1_050 + 2_200 == 3_250
    assert total.relative_difference == pytest.approx((3_200 - 3_250) / 3_250)
    assert repr(total) == "ZComparison(counted=3,200, reported=3,250, off by -1.5%)"


def test_token_total_repr_and_error_by_hand():
    assert repr(ZComparison(1_234_567)) == "ZComparison(counted=1,234,567)"
    assert ZComparison(110, 100).relative_difference == pytest.approx(0.10)
    assert repr(ZComparison(110, 100)) == "ZComparison(counted=110, reported=100, off by +10.0%)"
    assert repr(ZComparison(100, 100)) == "ZComparison(counted=100, reported=100, off by +0.0%)"


def test_token_total_repr_when_nothing_was_reported():
    # a live run that stopped before its first call, or one loaded from JSON without usage
    empty = Run("task", "claude-haiku-4-5", outcome="max_context_tokens", scripted=False)
    total = compare_Z(empty)
    assert (total.counted, total.reported, total.relative_difference) == (0, 0, None)
    assert "reported=0" in repr(total)
    assert "reported=0" in repr(ZComparison(5, 0))


# --- prices ------------------------------------------------------------------------------------

P = Price(0.10, 0.50, 0.125, 0.01)
M = 1_000_000


@pytest.mark.parametrize(
    "usage, dollars",
    [
        (Usage(input_tokens=M), 0.10),
        (Usage(output_tokens=M), 0.50),
        (Usage(cache_creation_input_tokens=M), 0.125),
        (Usage(cache_read_input_tokens=M), 0.01),
        (Usage(), 0.0),
        (Usage(2_000, 300, 40_000, 5_000), (2_000 * 0.10 + 300 * 0.50 + 40_000 * 0.01 + 5_000 * 0.125) / M),
    ],
)
def test_price_dollars_field_by_field(usage, dollars):
    assert P.dollars(usage) == pytest.approx(dollars, rel=1e-12)


LONG = Price(0.10, 0.50, 0.125, 0.01, long_prompt_from=100_000, long_prompt_factor=5.0)


@pytest.mark.parametrize("fields, complaint", [
    ((-0.1, 0.5, 0.1, 0.01), "the input price must be a number between 0 and 1,000,000 dollars per million tokens"),
    ((0.1, float("nan"), 0.1, 0.01), "the output price must be"),
    ((0.1, 0.5, float("inf"), 0.01), "the cache_write price must be"),
    ((0.1, 0.5, 0.1, "0.01"), "the cache_read price must be"),
])
def test_a_price_refuses_negative_nan_infinite_or_text_rates(fields, complaint):
    with pytest.raises(ValueError, match=complaint):
        Price(*fields)


def test_long_prompt_factor_applies_only_above_the_threshold():
    # at the threshold: normal rates
    assert LONG.dollars(Usage(100_000, 1_000)) == pytest.approx((100_000 * 0.10 + 1_000 * 0.50) / M)
    # one token more: every rate, output included, times five
    assert LONG.dollars(Usage(100_001, 1_000)) == pytest.approx(5 * (100_001 * 0.10 + 1_000 * 0.50) / M)
    # output tokens do not count towards the threshold
    assert LONG.dollars(Usage(100_000, M)) == pytest.approx(0.01 + 0.50)


def test_long_prompt_threshold_counts_cache_reads_and_writes():
    usage = Usage(input_tokens=50_000, output_tokens=1_000, cache_read_input_tokens=30_000, cache_creation_input_tokens=20_001)
    assert usage.total_input_tokens == 100_001
    by_hand = 5 * (50_000 * 0.10 + 1_000 * 0.50 + 30_000 * 0.01 + 20_001 * 0.125) / M
    assert LONG.dollars(usage) == pytest.approx(by_hand) == pytest.approx(0.041500625)
    below = Usage(50_000, 1_000, 30_000, 20_000)
    assert LONG.dollars(below) == pytest.approx(P.dollars(below))


def test_price_of_known_and_unknown_models():
    for model, price in PRICES.items():
        assert price_of(model) is price
    own = Price(0, 0, 0, 0)
    assert price_of(own) is own  # any model's price, given
    for unknown in ("llama3.2 at http://localhost:11434/v1", None, ["gpt-4"]):
        with pytest.raises(ValueError) as error:
            price_of(unknown)
        message = str(error.value)
        assert "no list price known for" in message and "give one as Price(input=..., output=..." in message
        assert all(model in message for model in PRICES) and "\n" not in message
        assert error.value._render_traceback_() == [f"SettingError: {message}"]  # one line in Jupyter


def test_a_run_is_priced_at_any_models_price():
    from teachagent import Agent, ScriptedModel

    run = Agent(ScriptedModel(["Done."])).run("Say done.")
    usage = run.steps[0].response.usage
    assert run_cost(run, Price(1.0, 2.0, 0, 0)) == pytest.approx((usage.input_tokens + 2 * usage.output_tokens) / 1e6)
    assert run_cost(run, Price(0, 0, 0, 0)) == 0


def test_cache_prices_are_cheaper_reads_and_dearer_writes():
    for price in PRICES.values():
        assert price.cache_read < price.input < price.cache_write
        assert price.output > price.input


def test_run_cost_with_its_own_usage():
    run = Run(
        "task",
        "claude-sonnet-5-5",
        steps=[
            Step(1, 1_000, Response([Text("a")], "tool_use", Usage(1_000, 200))),
            Step(2, 3_600, Response([Text("b")], "end_turn", Usage(3_000, 400, 500, 100))),
        ],
        scripted=False,
    )
    # Sonnet 5.5: 2 / 10 / 2.5 / 0.1 dollars per million
    by_hand = (1_000 * 2 + 200 * 10 + 3_000 * 2 + 400 * 10 + 100 * 2.5 + 500 * 0.1) / M
    assert run_cost(run, "claude-sonnet-5-5") == pytest.approx(by_hand) == pytest.approx(0.0143)
    assert run_cost(run, "claude-opus-5-5") == pytest.approx(2 * by_hand)  # Opus: every rate doubled


def test_run_cost_with_explicit_usages_ignores_the_runs_own():
    run = run_of([100, 200], [10, 10])
    assert run_cost(run, "claude-haiku-4-5", [Usage(input_tokens=M)]) == pytest.approx(1.00)
    assert run_cost(run, "claude-haiku-4-5", []) == 0  # an empty list is not "use the run's own"
    assert run_cost(run, "claude-haiku-4-5") == pytest.approx((300 * 1.00 + 20 * 5.00) / M)
    with pytest.raises(ValueError, match="no list price known for"):
        run_cost(run, "scripted")


# --- caching -------------------------------------------------------------------------------------


def test_cached_usages_by_hand():
    run = run_of([100, 250, 400], [10, 20, 30])
    assert cached_usages(run) == [
        Usage(input_tokens=0, output_tokens=10, cache_read_input_tokens=0, cache_creation_input_tokens=100),
        Usage(input_tokens=0, output_tokens=20, cache_read_input_tokens=100, cache_creation_input_tokens=150),
        Usage(input_tokens=0, output_tokens=30, cache_read_input_tokens=250, cache_creation_input_tokens=150),
    ]


def test_cached_cost_by_hand():
    run = run_of([100, 250, 400], [10, 20, 30])
    # claude-haiku-4-5: input 1.00, output 5.00, cache write 1.25, cache read 0.10 per million
    cached = (400 * 1.25 + (0 + 100 + 250) * 0.10 + 60 * 5.00) / M
    plain = (750 * 1.00 + 60 * 5.00) / M
    assert run_cost(run, "claude-haiku-4-5", cached_usages(run)) == pytest.approx(cached) == pytest.approx(835e-6)
    assert run_cost(run, "claude-haiku-4-5") == pytest.approx(plain) == pytest.approx(1_050e-6)


def test_cached_usages_of_an_agent_run():
    run = linear_run(5)
    usages = cached_usages(run)
    sizes = run.context_sizes
    assert [u.total_input_tokens for u in usages] == sizes
    assert [u.cache_read_input_tokens for u in usages] == [0] + sizes[:-1]
    assert [u.output_tokens for u in usages] == [s.response.usage.output_tokens for s in run.steps]
    assert all(u.input_tokens == 0 for u in usages)


nondecreasing_sizes = st.lists(st.integers(0, 50_000), min_size=1, max_size=30).map(
    lambda steps: list(accumulate(steps))
)


@PROPERTY
@given(nondecreasing_sizes, st.data())
def test_caching_reads_the_same_tokens(sizes, data):
    outputs = data.draw(st.lists(st.integers(0, 4_000), min_size=len(sizes), max_size=len(sizes)))
    usages = cached_usages(run_of(sizes, outputs))
    assert sum(u.cache_read_input_tokens + u.cache_creation_input_tokens for u in usages) == sum(sizes)
    assert sum(usages, Usage()).total_input_tokens == compare_Z(run_of(sizes)).counted
    assert [u.total_input_tokens for u in usages] == sizes  # per call, too: only the price changes
    assert [u.output_tokens for u in usages] == outputs
    assert sum(u.cache_creation_input_tokens for u in usages) == sizes[-1]  # each token is written once


positive_rate = st.floats(0.01, 100, allow_nan=False, allow_infinity=False)


@PROPERTY
@given(
    st.lists(st.integers(0, 50_000), min_size=1, max_size=29).flatmap(
        lambda steps: st.integers(1, 50_000).map(lambda c1: list(accumulate([c1, *steps])))
    ),
    positive_rate,
    st.floats(0, 0.99),
    st.floats(0.01, 1.0),
    positive_rate,
)
def test_caching_is_cheaper_when_writes_cost_no_more_than_input(sizes, rate, read_share, write_share, out_rate):
    price = Price(rate, out_rate, cache_write=write_share * rate, cache_read=read_share * rate)
    run = run_of(sizes, [100] * len(sizes))
    plain = sum(price.dollars(s.response.usage) for s in run.steps)
    cached = sum(price.dollars(u) for u in cached_usages(run))
    assert cached < plain


@PROPERTY
@given(st.sampled_from(sorted(PRICES)), st.integers(3, 60), st.integers(1, 20_000), st.integers(0, 20_000))
def test_caching_is_cheaper_for_linear_runs_of_three_calls_or_more(model, K, c1, d):
    # with real prices the write premium (1.25x) is paid once per token, the discount on every reread
    run = run_of([c1 + (k - 1) * d for k in range(1, K + 1)], [50] * K)
    assert run_cost(run, model, cached_usages(run)) < run_cost(run, model)


def test_caching_can_cost_more_when_writes_are_dear_and_the_context_jumps():
    # cache writes cost 1.25x input: a 2-call run that mostly writes new tokens pays more with caching
    run = run_of([100, 1_000])
    assert run_cost(run, "claude-haiku-4-5", cached_usages(run)) == pytest.approx((1_000 * 1.25 + 100 * 0.10) / M)
    assert run_cost(run, "claude-haiku-4-5") == pytest.approx(1_100 / M)
    assert run_cost(run, "claude-haiku-4-5", cached_usages(run)) > run_cost(run, "claude-haiku-4-5")


# --- plots -----------------------------------------------------------------------------------------


def test_plot_growth_draws_measured_and_fitted_lines(close_figures):
    runs = {"linear": linear_run(5), "source": run_of([175, 209, 414, 560]), "one call": run_of([42])}
    ax = plot_growth(runs)
    close_figures(ax)
    assert ax.get_xlabel() and ax.get_ylabel()
    lines = ax.get_lines()
    assert len(lines) == 2 + 2 + 1  # a single call has no fitted line
    labels = [line.get_label() for line in lines]
    assert labels[0] == "linear: measured" and labels[2] == "source: measured" and labels[4] == "one call: measured"
    for line, run in zip([lines[0], lines[2], lines[4]], runs.values()):
        sizes = run.context_sizes
        assert list(line.get_xdata()) == list(range(1, len(sizes) + 1))
        assert list(line.get_ydata()) == sizes
    d = fitted_d([175, 209, 414, 560])
    assert list(lines[3].get_ydata()) == pytest.approx([175 + (k - 1) * d for k in range(1, 5)])
    assert lines[3].get_color() == lines[2].get_color()
    assert list(lines[1].get_ydata()) == runs["linear"].context_sizes  # exactly linear: fit == data


def test_plot_growth_draws_on_the_given_axes(close_figures):
    _, given_ax = plt.subplots()
    close_figures(given_ax)
    assert plot_growth({"a": run_of([1, 2, 3])}, ax=given_ax) is given_ax
    assert len(given_ax.get_lines()) == 2


def test_plot_cumulative_draws_running_sums_and_the_prediction(close_figures):
    sizes = [175, 209, 414, 560]
    ax = plot_cumulative(run_of(sizes))
    close_figures(ax)
    assert ax.get_xlabel() and ax.get_ylabel()
    measured, predicted = ax.get_lines()
    assert list(measured.get_xdata()) == [1, 2, 3, 4]
    assert list(measured.get_ydata()) == [175, 384, 798, 1_358]
    d = (560 - 175) / 3
    assert list(predicted.get_ydata()) == pytest.approx([k * 175 + d * k * (k - 1) / 2 for k in range(1, 5)])
    _, given_ax = plt.subplots()
    close_figures(given_ax)
    assert plot_cumulative(run_of(sizes), ax=given_ax) is given_ax


def test_plot_cumulative_of_a_linear_run_matches_the_theorem(close_figures):
    run = linear_run(6)
    ax = plot_cumulative(run)
    close_figures(ax)
    measured, predicted = ax.get_lines()
    sums = list(accumulate(run.context_sizes))
    assert list(measured.get_ydata()) == sums
    assert list(predicted.get_ydata()) == sums


def test_plot_cumulative_of_a_one_call_run(close_figures):
    ax = plot_cumulative(run_of([42]))
    close_figures(ax)
    measured, predicted = ax.get_lines()
    assert list(measured.get_ydata()) == [42]
    assert list(predicted.get_ydata()) == [42]


def under_reported_run(reported: Usage) -> Run:
    """A one-step run whose context we counted at 1,000 tokens and whose server reported `reported`."""
    run = Run("t", "some server")
    run.steps.append(Step(1, 1_000, Response([Text("done")], "end_turn", reported), []))
    return run


def test_a_call_is_priced_as_reading_at_least_our_count():
    price = Price(input=1.0, output=0.0, cache_write=0.0, cache_read=0.0)  # one dollar per million input tokens
    assert run_cost(under_reported_run(Usage(10, 5)), price) == pytest.approx(1_000 / 1e6)
    assert run_cost(under_reported_run(Usage(1_300, 5)), price) == pytest.approx(1_300 / 1e6)  # a larger count stands


def test_reported_cache_reads_stay_cache_reads_and_the_shortfall_is_uncached():
    usage = Usage(100, 5, cache_read_input_tokens=600).read_at_least(1_000)
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.total_input_tokens) == (400, 600, 1_000)
    assert Usage(900, 5, cache_read_input_tokens=600).read_at_least(1_000) == Usage(900, 5, cache_read_input_tokens=600)


def test_priced_usage_adds_up_what_run_cost_prices():
    runs = [under_reported_run(Usage(10, 5)), under_reported_run(Usage(100, 7, cache_read_input_tokens=1_200))]
    total = priced_usage(*runs)
    assert total == Usage(1_000 + 100, 12, cache_read_input_tokens=1_200)
    price = PRICES["claude-haiku-5-5"]
    assert price.dollars(total) == pytest.approx(sum(run_cost(run, price) for run in runs))


def test_a_dollar_budget_counts_a_call_as_run_cost_prices_it():
    """A server that reports less than the request holds: the budget's dollars are run_cost's, not the report's."""
    class UnderReporting:
        name = "under-reporting server"

        def complete(self, system, messages, tools=(), max_tokens=1024):
            return Response([Text("done")], "end_turn", Usage(1, 1))

    price = PRICES["claude-haiku-5-5"]
    agent = Agent(UnderReporting(), max_dollars=1.0, price=price)
    run = agent.run("a task of a few words")
    budget = agent.budget()
    budget.add(run.steps[0].context_tokens, run.steps[0].response.usage)
    assert budget.dollars == pytest.approx(run_cost(run, price))
    assert budget.dollars > price.dollars(Usage(1, 1))  # priced on c_k, not on the report of 1 token
