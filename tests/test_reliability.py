"""Reliability: the checked step q, task success qⁿ, n₅₀, the simulator, the flaky agent, the explorer."""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")  # before pyplot is imported anywhere below

import matplotlib.pyplot as plt
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from teachagent.course.plots import N_MAX_CAP, plot_task_success, task_length_range
from teachagent.course.widgets import SuccessExplorer
from teachagent.estimate import Estimate
from teachagent.reliability import floor_n50, n50, n50_approx, step_success, task_success
from teachagent.simulation import checked_step, flaky_agent, run_flaky_agents, simulate

# Deterministic property tests: the same examples on every run, no example database.
props = settings(derandomize=True, database=None, deadline=None, max_examples=150)
probabilities = st.floats(min_value=0.0, max_value=1.0)
retries = st.integers(min_value=0, max_value=5)


class ScriptedRng:
    """A stand-in for random.Random whose .random() plays a fixed list and counts what it gave."""

    def __init__(self, values):
        self.values = list(values)
        self.used = 0

    def random(self) -> float:
        if self.used >= len(self.values):
            raise AssertionError(f"asked for random number #{self.used + 1}; the script has {len(self.values)}")
        value = self.values[self.used]
        self.used += 1
        return value


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --- the numbers of the lesson ----------------------------------------------------------


def test_the_checked_step_of_the_lesson():
    assert step_success(0.9, 0.9, 2) == pytest.approx(0.98829, abs=1e-12)


def test_task_success_of_the_lesson():
    assert round(task_success(0.9, 20), 3) == 0.122
    assert round(task_success(0.98829, 20), 3) == 0.790
    assert task_success(step_success(0.9, 0.9, 2), 20) == pytest.approx(0.98829**20, rel=1e-12)


def test_n50_of_the_lesson():
    assert round(n50(0.9), 1) == 6.6
    assert round(n50(step_success(0.9, 0.9, 2)), 1) == 58.8
    assert round(n50(0.99), 1) == 69.0
    assert round(n50(step_success(0.99, 0.9, 2))) == 686


@pytest.mark.parametrize("q", [0.5, 0.9, 0.98829, 0.99, 0.999])
def test_n50_approx_is_069_over_one_minus_q(q):
    assert n50_approx(q) == pytest.approx(0.69 / (1 - q), rel=1e-15)


@props
@given(st.floats(min_value=0.99, max_value=1.0, exclude_max=True))
def test_n50_approx_is_within_one_percent_for_q_near_one(q):
    assert abs(n50_approx(q) - n50(q)) / n50(q) < 0.01


def test_n50_approx_is_poor_far_from_one():
    """The approximation is for q near 1: at q = 0.5 it is off by more than a third."""
    assert n50(0.5) == pytest.approx(1.0)
    assert n50_approx(0.5) == pytest.approx(1.38)


# --- properties of the formula ------------------------------------------------------------


def enumerated_step_success(p: float, d: float, r: int) -> tuple[Fraction, Fraction]:
    """(P(success), P(any ending)) by walking every outcome of every attempt and check, exactly."""
    p, d = Fraction(p), Fraction(d)

    def walk(retries_left: int, reach: Fraction) -> tuple[Fraction, Fraction]:
        success = reach * p  # the attempt works; a success always passes the check
        ended = reach * p
        slipped = reach * (1 - p) * (1 - d)  # the failure slips past the check: the step ends failed
        ended += slipped
        caught = reach * (1 - p) * d
        if retries_left > 0:
            more_success, more_ended = walk(retries_left - 1, caught)
            success += more_success
            ended += more_ended
        else:
            ended += caught  # caught, but no retries left: the step ends failed
        return success, ended

    return walk(r, Fraction(1))


@props
@given(probabilities, probabilities, retries)
def test_q_equals_the_enumeration_of_all_outcomes(p, d, r):
    success, ended = enumerated_step_success(p, d, r)
    assert ended == 1  # the enumeration is complete: every path ends
    assert step_success(p, d, r) == pytest.approx(float(success), rel=1e-12, abs=1e-15)


@props
@given(probabilities, retries)
def test_no_check_or_no_retry_gives_q_equal_to_p(p, r):
    assert step_success(p, 0, r) == p
    assert step_success(p, 0.0, r) == p


@props
@given(probabilities, probabilities)
def test_no_retry_gives_q_equal_to_p(p, d):
    assert step_success(p, d, 0) == p


@props
@given(probabilities, probabilities, st.integers(min_value=0, max_value=20))
def test_q_does_not_decrease_with_r(p, d, r):
    assert step_success(p, d, r + 1) >= step_success(p, d, r)


@props
@given(probabilities, probabilities, probabilities, retries)
def test_q_does_not_decrease_with_d(p, d1, d2, r):
    low, high = sorted((d1, d2))
    assert step_success(p, high, r) >= step_success(p, low, r) - 1e-15


def test_q_strictly_increases_with_r_and_d_when_retries_can_help():
    qs_r = [step_success(0.8, 0.7, r) for r in range(6)]
    assert all(a < b for a, b in zip(qs_r, qs_r[1:]))
    qs_d = [step_success(0.8, d, 2) for d in (0.0, 0.25, 0.5, 0.75, 1.0)]
    assert all(a < b for a, b in zip(qs_d, qs_d[1:]))
    # p = 0 or p = 1: nothing to gain from checking
    assert {step_success(0.0, d, r) for d in (0.0, 0.5, 1.0) for r in range(4)} == {0.0}
    assert {step_success(1.0, d, r) for d in (0.0, 0.5, 1.0) for r in range(4)} == {1.0}


def infinite_retry_limit(p: float, d: float) -> float:
    return p / (1 - (1 - p) * d)


@props
@given(probabilities, probabilities, st.integers(min_value=0, max_value=50))
def test_q_never_exceeds_the_infinite_retry_limit(p, d, r):
    assume(1 - (1 - p) * d > 0)  # p = 0 (or so small that 1 - p rounds to 1) with d = 1: every failure is caught forever
    assert step_success(p, d, r) <= infinite_retry_limit(p, d) * (1 + 1e-12)


@pytest.mark.parametrize("p, d", [(0.9, 0.9), (0.5, 0.99), (0.2, 0.5), (0.99, 1.0)])
def test_q_converges_to_the_infinite_retry_limit(p, d):
    limit = infinite_retry_limit(p, d)
    caught = (1 - p) * d
    gaps = []
    for r in (0, 1, 2, 5, 10, 50):
        gap = limit - step_success(p, d, r)
        # the missing tail of the geometric series: p · x^(r+1) / (1 - x)
        assert gap == pytest.approx(p * caught ** (r + 1) / (1 - caught), rel=1e-6, abs=1e-14)
        gaps.append(gap)
    assert gaps == sorted(gaps, reverse=True)
    assert step_success(p, d, 2000) == pytest.approx(limit, rel=1e-12)


@props
@given(probabilities, st.integers(min_value=1, max_value=500))
def test_task_success_does_not_increase_with_n(q, n):
    assert task_success(q, n + 1) <= task_success(q, n)
    assert task_success(q, n) == q**n


def test_task_success_strictly_decreases_for_q_between_0_and_1():
    values = [task_success(0.97, n) for n in range(1, 60)]
    assert all(a > b for a, b in zip(values, values[1:]))
    assert task_success(1.0, 1000) == 1.0
    assert task_success(0.0, 1) == 0.0
    assert task_success(0.5, 1) == 0.5


@props
@given(st.floats(min_value=0.0, max_value=1.0, exclude_min=True, exclude_max=True))
def test_q_to_the_n50_is_one_half(q):
    assert q ** n50(q) == pytest.approx(0.5, rel=1e-9)


@props
@given(st.floats(min_value=1e-6, max_value=0.99999, exclude_min=True, exclude_max=True))
def test_floor_of_n50_is_the_longest_task_done_at_least_half_the_time(q):
    half = n50(q)
    k = math.floor(half)
    assume(abs(half - round(half)) > 1e-6)  # not a float coin toss at an exact integer n₅₀
    assert q**k >= 0.5
    assert q ** (k + 1) < 0.5
    if k >= 1:
        assert task_success(q, k) >= 0.5


def test_floor_of_n50_on_the_lesson_numbers():
    q = step_success(0.9, 0.9, 2)
    assert math.floor(n50(q)) == 58
    assert task_success(q, 58) >= 0.5 > task_success(q, 59)
    assert task_success(0.9, 6) >= 0.5 > task_success(0.9, 7)
    assert [floor_n50(q) for q in (0.9, q, 0.99, step_success(0.99, 0.9, 2))] == [6, 58, 68, 686]


@props
@given(st.floats(min_value=1e-6, max_value=0.99999, exclude_min=True, exclude_max=True))
def test_floor_n50_is_the_largest_whole_n_with_q_to_the_n_at_least_one_half(q):
    k = floor_n50(q)
    assert k >= 0
    assert k == 0 or q**k >= 0.5
    assert q ** (k + 1) < 0.5


def test_floor_n50_at_exact_halves_and_below_one_half():
    assert floor_n50(0.5) == 1  # 0.5¹ = 1/2 exactly: one step is done half the time
    assert floor_n50(0.5**0.5) == 2 and floor_n50(0.5 ** (1 / 3)) == 3  # n₅₀ a whole number, up to rounding
    assert floor_n50(0.4) == 0  # not even one step succeeds half the time
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError):
            floor_n50(bad)


def test_q_is_a_probability_even_after_rounding():
    q = step_success(0.9991, 1.0, 5)  # 1 - 0.0009**6 in exact arithmetic
    assert 0 <= q <= 1
    assert task_success(q, 10) == pytest.approx(1.0)


# --- invalid input -------------------------------------------------------------------------

BAD_PROBABILITIES = [-0.1, 1.1, -1e-12, 1 + 1e-12, math.nan, math.inf, -math.inf, True, False, "0.5", None]
BAD_RETRIES = [-1, 1.0, 2.5, True, False, "2", None, 10**6]
BAD_LENGTHS = [0, -3, 1.0, 2.5, True, "3", None, 10**7]
BAD_Q_FOR_N50 = [0, 0.0, 1, 1.0, -0.5, 1.5, math.nan, math.inf, True, False, "0.5", None]


def message(text: str, value) -> str:
    return rf"^{re.escape(text)}, got {re.escape(repr(value))}$"


@pytest.mark.parametrize("value", BAD_PROBABILITIES, ids=repr)
def test_step_success_rejects_a_bad_p(value):
    with pytest.raises(ValueError, match=message("p must be a number between 0 and 1", value)):
        step_success(value, 0.5, 1)


@pytest.mark.parametrize("value", BAD_PROBABILITIES, ids=repr)
def test_step_success_rejects_a_bad_delta(value):
    with pytest.raises(ValueError, match=message("delta must be a number between 0 and 1", value)):
        step_success(0.5, value, 1)


@pytest.mark.parametrize("value", BAD_RETRIES, ids=repr)
def test_step_success_rejects_a_bad_r(value):
    with pytest.raises(ValueError, match=message("r must be a whole number between 0 and 10,000", value)):
        step_success(0.5, 0.5, value)


@pytest.mark.parametrize("value", BAD_PROBABILITIES, ids=repr)
def test_task_success_rejects_a_bad_q(value):
    with pytest.raises(ValueError, match=message("q must be a number between 0 and 1", value)):
        task_success(value, 3)


@pytest.mark.parametrize("value", BAD_LENGTHS, ids=repr)
def test_task_success_rejects_a_bad_n(value):
    with pytest.raises(ValueError, match=message("n must be a whole number between 1 and 1,000,000", value)):
        task_success(0.5, value)


@pytest.mark.parametrize("value", BAD_Q_FOR_N50, ids=repr)
def test_n50_rejects_q_outside_the_open_interval(value):
    with pytest.raises(ValueError, match=message("q must be a number above 0 and below 1", value)):
        n50(value)


@pytest.mark.parametrize("value", BAD_Q_FOR_N50, ids=repr)
def test_n50_approx_rejects_q_outside_the_open_interval(value):
    with pytest.raises(ValueError, match=message("q must be a number above 0 and below 1", value)):
        n50_approx(value)


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        (dict(trials=0), "trials must be a whole number between 1 and 10,000,000, got 0"),
        (dict(trials=-5), "trials must be a whole number between 1 and 10,000,000, got -5"),
        (dict(trials=10.0), "trials must be a whole number between 1 and 10,000,000, got 10.0"),
        (dict(n=0), "n must be a whole number between 1 and 1,000,000, got 0"),
        (dict(n=2.0), "n must be a whole number between 1 and 1,000,000, got 2.0"),
        (dict(p=1.5), "p must be a number between 0 and 1, got 1.5"),
        (dict(delta=math.nan), "delta must be a number between 0 and 1, got nan"),
        (dict(r=-1), "r must be a whole number between 0 and 10,000, got -1"),
    ],
)
def test_simulate_rejects_bad_input(kwargs, expected):
    args = dict(p=0.9, delta=0.9, r=2, n=5, trials=100) | kwargs
    with pytest.raises(ValueError, match=re.escape(expected)):
        simulate(**args)


@pytest.mark.parametrize(
    "kwargs",
    [dict(p=1.5), dict(delta=-0.1), dict(r=-1), dict(n=0), dict(runs=0)],
    ids=["p=1.5", "delta=-0.1", "r=-1", "n=0", "runs=0"],
)
def test_run_flaky_agents_rejects_bad_input(kwargs):
    args = dict(p=0.9, delta=0.9, r=2, n=3, runs=5) | kwargs
    with pytest.raises(ValueError, match=f"{next(iter(kwargs))} must be"):
        run_flaky_agents(**args)


# --- checked_step, step by step ------------------------------------------------------------


def test_checked_step_success_on_the_first_try():
    rng = ScriptedRng([0.1, 0.99, 0.99])
    assert checked_step(0.5, 0.5, 2, rng) is True
    assert rng.used == 1  # a success is not checked against chance: it always passes


def test_checked_step_caught_failure_then_success():
    rng = ScriptedRng([0.9, 0.1, 0.2, 0.99])  # fail, caught, succeed
    assert checked_step(0.5, 0.5, 2, rng) is True
    assert rng.used == 3


def test_checked_step_failure_slips_through():
    rng = ScriptedRng([0.9, 0.7, 0.1, 0.1])  # fail, not caught: the step ends
    assert checked_step(0.5, 0.5, 2, rng) is False
    assert rng.used == 2


def test_checked_step_slips_on_a_retry():
    rng = ScriptedRng([0.9, 0.1, 0.9, 0.7, 0.1])  # fail, caught, fail, slipped
    assert checked_step(0.5, 0.5, 2, rng) is False
    assert rng.used == 4


@pytest.mark.parametrize("r", [0, 1, 2, 4])
def test_checked_step_runs_out_of_retries(r):
    rng = ScriptedRng([0.9, 0.1] * (r + 1) + [0.0, 0.0])  # r+1 failed-and-caught attempts
    assert checked_step(0.5, 0.5, r, rng) is False
    assert rng.used == 2 * (r + 1)


def test_checked_step_boundaries_of_the_random_draw():
    """An attempt succeeds when the draw is below p; a failure is caught when the draw is below d."""
    assert checked_step(0.5, 0.5, 0, ScriptedRng([0.5, 0.0])) is False  # 0.5 is not below p = 0.5
    assert checked_step(0.0, 1.0, 0, ScriptedRng([0.0, 0.0])) is False  # p = 0 never succeeds
    rng = ScriptedRng([0.0, 0.5, 0.0])  # fail (p = 0), draw 0.5 is not below d = 0.5: slipped
    assert checked_step(0.0, 0.5, 3, rng) is False and rng.used == 2
    rng = ScriptedRng([0.999, 0.0])  # d = 0 never catches, even on a draw of 0.0
    assert checked_step(0.5, 0.0, 3, rng) is False and rng.used == 2
    rng = ScriptedRng([0.999, 0.999, 0.0])  # d = 1 always catches
    assert checked_step(0.5, 1.0, 3, rng) is True and rng.used == 3


def outcome_paths(r: int):
    """Every sequence of events a checked step with r retries can go through, and how it ends."""

    def walk(retries_left, events):
        yield events + ["success"], True
        yield events + ["failure", "slipped"], False
        if retries_left:
            yield from walk(retries_left - 1, events + ["failure", "caught"])
        else:
            yield events + ["failure", "caught"], False

    return list(walk(r, []))


@pytest.mark.parametrize("r", [0, 1, 2, 3])
def test_checked_step_follows_every_path_of_the_procedure(r):
    draw = {"success": 0.1, "failure": 0.8, "caught": 0.2, "slipped": 0.7}  # for p = 0.3, d = 0.4
    paths = outcome_paths(r)
    assert len(paths) == 2 * r + 3
    for events, ends_in_success in paths:
        rng = ScriptedRng([draw[e] for e in events] + [0.0] * 3)
        assert checked_step(0.3, 0.4, r, rng) is ends_in_success, events
        assert rng.used == len(events), events


# --- the simulator and Estimate ---------------------------------------------------------------


def test_simulate_is_deterministic_for_a_seed():
    first = simulate(0.8, 0.6, 2, 10, 2000, seed=7)
    assert simulate(0.8, 0.6, 2, 10, 2000, seed=7) == first
    assert repr(simulate(0.8, 0.6, 2, 10, 2000, seed=7)) == repr(first)
    assert simulate(0.8, 0.6, 2, 10, 2000, seed=8) != first  # the seed matters
    assert simulate(0.8, 0.6, 2, 10, 2000) == simulate(0.8, 0.6, 2, 10, 2000, seed=0)


def test_simulate_at_the_extremes():
    assert simulate(1.0, 0.0, 0, 50, 100, seed=3) == Estimate(100, 100)
    assert simulate(0.0, 1.0, 5, 1, 100, seed=3) == Estimate(0, 100)
    assert simulate(0.0, 0.0, 5, 1, 100, seed=3) == Estimate(0, 100)


# 20,000 trials each; |rate - qⁿ| < 4.5 standard errors fails with probability below 1e-5 per setting.
SETTINGS = [(0.9, 0.9, 2, 20), (0.8, 0.5, 1, 5), (0.95, 0.0, 0, 10), (0.7, 1.0, 3, 3)]


@pytest.mark.parametrize("p, d, r, n", SETTINGS)
def test_simulation_agrees_with_the_formula(p, d, r, n):
    trials = 20_000
    estimate = simulate(p, d, r, n, trials, seed=2024)
    formula = task_success(step_success(p, d, r), n)
    standard_error = math.sqrt(formula * (1 - formula) / trials)
    assert abs(estimate.rate - formula) < 4.5 * standard_error
    assert estimate.agrees_with(formula)
    low, high = estimate.interval
    assert low <= formula <= high


def test_simulation_detects_a_wrong_formula():
    """The statistical check has power: it rejects the unchecked pⁿ for a checked step."""
    p, d, r, n, trials = 0.9, 0.9, 2, 20, 20_000
    estimate = simulate(p, d, r, n, trials, seed=2024)
    wrong = p**n
    assert not estimate.agrees_with(wrong)
    assert abs(estimate.rate - wrong) > 4.5 * math.sqrt(wrong * (1 - wrong) / trials)


def test_estimate_repr_and_rate():
    e = Estimate(8, 10)
    assert e.rate == 0.8
    assert repr(e) == "Estimate(8/10 = 0.800, 95% CI 0.490–0.943)"


def test_wilson_interval_hand_computed():
    # z = 1.96, n = 10, p̂ = 0.8: centre = (0.8 + 0.19208) / 1.38416 = 0.716738...
    # half = 1.96 · sqrt(0.016 + 0.009604) / 1.38416 = 0.226589...
    low, high = Estimate(8, 10).interval
    assert low == pytest.approx(0.490149, abs=1e-5)
    assert high == pytest.approx(0.943327, abs=1e-5)
    # at the edges the interval is cut to [0, 1] and is not a single point
    low, high = Estimate(0, 10).interval
    assert low == 0.0 and high == pytest.approx(0.277533, abs=1e-5)
    low, high = Estimate(10, 10).interval
    assert high == 1.0 and low == pytest.approx(0.722467, abs=1e-5)
    # more trials, narrower interval around the same rate
    assert Estimate(800, 1000).interval[1] - Estimate(800, 1000).interval[0] < high - low


@props
@given(st.integers(min_value=1, max_value=10_000).flatmap(lambda t: st.tuples(st.integers(0, t), st.just(t))))
def test_interval_is_inside_0_1_and_holds_the_rate(case):
    successes, trials = case
    e = Estimate(successes, trials)
    low, high = e.interval
    assert 0.0 <= low < high <= 1.0
    assert low - 1e-12 <= e.rate <= high + 1e-12  # exact at the edges: see the test below


def test_interval_holds_the_rate_exactly_when_all_trials_fail_or_succeed():
    assert Estimate(0, 11).interval[0] == 0.0  # computed as 2.8e-17
    assert Estimate(0, 11).agrees_with(0.0)
    assert Estimate(6, 6).interval[1] == 1.0
    assert Estimate(6, 6).agrees_with(1.0)
    assert run_flaky_agents(1.0, 0.5, 1, 2, 6, seed=0).agrees_with(task_success(1.0, 2))


def test_agrees_with():
    e = Estimate(8, 10)
    assert e.agrees_with(0.8)
    assert e.agrees_with(0.5) and e.agrees_with(0.94)
    assert not e.agrees_with(0.48) and not e.agrees_with(0.95)
    low, high = e.interval
    assert e.agrees_with(low) and e.agrees_with(high)  # the ends belong to the interval


# --- the real agent with a flaky tool --------------------------------------------------------


def tool_calls(run):
    return [(c.name, c.input["step"]) for s in run.steps for c in s.response.tool_calls]


def results(run):
    return [res.content for s in run.steps for res in s.results]


@pytest.mark.parametrize("n", [1, 3, 12])
def test_a_perfect_tool_succeeds_in_2n_plus_1_steps(n):
    agent, truth = flaky_agent(1.0, 0.5, 2, n, random.Random(0))
    run = agent.run("Do the steps.")
    assert run.outcome == "answer"
    assert len(run.steps) == 2 * n + 1
    assert run.answer == f"All {n} steps done and checked."
    assert truth["done"] == {k: True for k in range(1, n + 1)}
    assert tool_calls(run) == [(name, k) for k in range(1, n + 1) for name in ("do_step", "check_step")]


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0])
def test_an_unchecked_agent_makes_one_call_per_step_whatever_happens(p):
    n = 6
    agent, truth = flaky_agent(p, 0.9, 2, n, random.Random(3), check=False)
    run = agent.run("Do the steps.")
    assert run.outcome == "answer" and run.answer == f"All {n} steps done."
    assert tool_calls(run) == [("do_step", k) for k in range(1, n + 1)]
    assert len(run.steps) == n + 1
    assert sorted(truth["done"]) == list(range(1, n + 1))
    assert p == 0.5 or set(truth["done"].values()) == {p == 1.0}  # a sure tool always works, a broken one never


def test_a_broken_tool_with_a_perfect_check_stops_after_r_plus_1_attempts():
    r = 2
    agent, truth = flaky_agent(0.0, 1.0, r, 4, random.Random(0))
    run = agent.run("Do the steps.")
    assert run.outcome == "answer"
    assert tool_calls(run) == [("do_step", 1), ("check_step", 1)] * (r + 1)
    assert len(run.steps) == 2 * (r + 1) + 1
    assert results(run).count("step 1: check FAILED") == r + 1
    assert "still fails after 2 retries" in run.answer
    assert truth["done"] == {1: False}


def test_a_broken_tool_with_a_blind_check_lets_every_failure_slip():
    n = 4
    agent, truth = flaky_agent(0.0, 0.0, 2, n, random.Random(0))
    run = agent.run("Do the steps.")
    assert run.outcome == "answer"
    assert run.answer == f"All {n} steps done and checked."  # the agent believes it is done
    assert len(run.steps) == 2 * n + 1
    assert [c for c in results(run) if "check" in c] == [f"step {k}: check passed" for k in range(1, n + 1)]
    assert truth["done"] == {k: False for k in range(1, n + 1)}  # but nothing worked


def test_the_agent_follows_the_procedure_draw_by_draw():
    # step 1: fail, caught, succeed; step 2: fail, slipped; step 3: succeed
    rng = ScriptedRng([0.9, 0.1, 0.2, 0.9, 0.7, 0.3])
    agent, truth = flaky_agent(0.5, 0.5, 1, 3, rng)
    run = agent.run("Do the steps.")
    assert rng.used == 6
    assert truth["done"] == {1: True, 2: False, 3: True}
    assert run.outcome == "answer"
    assert tool_calls(run) == [
        ("do_step", 1), ("check_step", 1), ("do_step", 1), ("check_step", 1),
        ("do_step", 2), ("check_step", 2), ("do_step", 3), ("check_step", 3),
    ]  # fmt: skip
    assert agent.max_steps == 2 * 3 * (1 + 1) + 1


def test_the_agent_tools_draw_like_checked_step_at_the_boundaries():
    """do_step works when the draw is below p; check_step catches a failure when the draw is below d."""
    rng = ScriptedRng([0.0, 0.0, 0.0, 0.0])  # p = 0 and d = 0: a draw of 0.0 neither works nor catches
    agent, truth = flaky_agent(0.0, 0.0, 1, 2, rng)
    assert "check FAILED" not in " ".join(results(agent.run("Do the steps.")))
    assert truth["done"] == {1: False, 2: False} and rng.used == 4
    rng = ScriptedRng([0.5, 0.5, 0.5, 0.5])  # p = d = 0.5: a draw of 0.5 fails and slips
    agent, truth = flaky_agent(0.5, 0.5, 1, 2, rng)
    assert "check FAILED" not in " ".join(results(agent.run("Do the steps.")))
    assert truth["done"] == {1: False, 2: False} and rng.used == 4


def test_the_step_budget_is_enough_for_every_retry():
    """Every step needs all r + 1 attempts and the last one works: the run still ends in an answer."""
    n, r = 3, 2
    rng = ScriptedRng(([0.9, 0.1] * r + [0.1]) * n)
    agent, truth = flaky_agent(0.5, 0.5, r, n, rng)
    run = agent.run("Do the steps.")
    assert run.outcome == "answer"
    assert len(run.steps) == agent.max_steps == 2 * n * (r + 1) + 1
    assert truth["done"] == {1: True, 2: True, 3: True}
    assert rng.used == len(rng.values)


def test_run_flaky_agents_is_deterministic_and_agrees_with_the_formula():
    p, d, r, n, runs = 0.9, 0.9, 2, 5, 400
    first = run_flaky_agents(p, d, r, n, runs, seed=1)
    assert run_flaky_agents(p, d, r, n, runs, seed=1) == first
    assert first.trials == runs
    assert first.agrees_with(task_success(step_success(p, d, r), n))
    assert not first.agrees_with(p**n)  # the unchecked answer is ruled out


def test_run_flaky_agents_matches_the_simulator_when_nothing_slips():
    """With a perfect check both stop a task at its first failed step, so they draw the same numbers."""
    assert run_flaky_agents(0.6, 1.0, 1, 3, 60, seed=5) == simulate(0.6, 1.0, 1, 3, 60, seed=5)


def test_run_flaky_agents_extremes():
    assert run_flaky_agents(1.0, 0.0, 0, 3, 5, seed=0) == Estimate(5, 5)
    assert run_flaky_agents(0.0, 0.0, 3, 2, 5, seed=0) == Estimate(0, 5)


# --- plots and the explorer ---------------------------------------------------------------


def test_plot_task_success():
    p, d, r, n_max = 0.9, 0.9, 2, 100
    ax = plot_task_success(p, d, r, n_max=n_max)
    assert ax.get_xlabel() == "task length n (steps)"
    assert ax.get_ylabel() == "P(task succeeds)"
    curves = [line for line in ax.get_lines() if len(line.get_xdata()) == n_max]
    assert len(curves) == 2
    q = step_success(p, d, r)
    unchecked, checked = curves
    assert list(unchecked.get_xdata()) == list(range(1, n_max + 1))
    assert list(unchecked.get_ydata()) == pytest.approx([p**n for n in range(1, n_max + 1)])
    assert list(checked.get_ydata()) == pytest.approx([q**n for n in range(1, n_max + 1)])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["no check (q = p): n₅₀ = 6.6", "checked, r = 2 (q = 0.9883): n₅₀ = 58.8"]
    # the two n₅₀ marks, both within the plotted range
    marks = sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == ":")
    assert marks == pytest.approx([n50(p), n50(q)])


def test_plot_task_success_draws_on_a_given_axes_and_skips_n50_out_of_range():
    _, ax = plt.subplots()
    assert plot_task_success(0.99, 0.9, 2, n_max=30, ax=ax) is ax
    assert [line for line in ax.get_lines() if line.get_linestyle() == ":"] == []  # n₅₀ ≈ 69 and 686 > 30
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["no check (q = p): n₅₀ = 69.0, beyond this plot",
                      "checked, r = 2 (q = 0.9990): n₅₀ = 686.1, beyond this plot"]
    ax = plot_task_success(1.0, 0.5, 1, n_max=10)  # q = 1: no n₅₀ at all, and no error
    assert len([line for line in ax.get_lines() if len(line.get_xdata()) == 10]) == 2


@pytest.mark.parametrize("p", [0.9, 0.99])  # the values lesson 7 asks the learner to try
def test_the_default_range_keeps_both_n50_in_view(p):
    d, r = 0.9, 2
    halves = [n50(p), n50(step_success(p, d, r))]
    n_max = task_length_range(p, d, r)
    assert max(halves) <= n_max <= 1.2 * max(halves) + 1
    ax = plot_task_success(p, d, r)
    assert len(ax.get_lines()[0].get_xdata()) == n_max
    marks = sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == ":")
    assert marks == pytest.approx(halves)
    plt.close("all")


def test_the_default_range_has_a_floor_a_cap_and_makes_room_for_n():
    assert task_length_range(0.5, 0.0, 0) == 10  # n₅₀ = 1: still ten steps drawn
    assert task_length_range(1.0, 0.5, 1) == 10  # q = 1: no n₅₀ at all
    assert n50(step_success(0.999, 0.9, 3)) > 5000
    assert task_length_range(0.999, 0.9, 3) == N_MAX_CAP  # the checked n₅₀ is past the cap
    assert task_length_range(0.999, 0.0, 0) == math.ceil(1.2 * n50(0.999))  # 693 fits under the cap
    assert task_length_range(0.9, 0.9, 2, n=200) == 240  # n beyond both n₅₀: n stays in view


EXPLORER_REPR = (
    "SuccessExplorer(p=0.9, δ=0.9, r=2, n=20: q = 0.98829, task success qⁿ = 0.790 "
    "(unchecked pⁿ = 0.122), n₅₀ = 58.8, ⌊n₅₀⌋ = 58)"
)


def test_explorer_repr_is_deterministic():
    explorer = SuccessExplorer()
    assert repr(explorer) == EXPLORER_REPR
    assert repr(SuccessExplorer()) == repr(explorer)
    assert "q = 0.98829" in repr(explorer) and "n₅₀ = 58.8" in repr(explorer)
    assert explorer.readout.value == explorer.summary()


def test_explorer_sliders_update_the_readout_the_repr_and_the_plot():
    explorer = SuccessExplorer()
    before = bytes(explorer.plot.value)
    assert before.startswith(b"\x89PNG")

    explorer.n.value = 50
    assert "n=50" in repr(explorer) and "qⁿ = 0.555 (unchecked pⁿ = 0.005)" in repr(explorer)
    assert explorer.readout.value == explorer.summary()
    assert bytes(explorer.plot.value) != before
    assert bytes(explorer.plot.value).startswith(b"\x89PNG")

    explorer.r.value = 0
    assert "q = 0.90000" in explorer.readout.value and "n₅₀ = 6.6" in explorer.readout.value
    explorer.delta.value = 1.0
    explorer.r.value = 5
    q = step_success(0.9, 1.0, 5)
    assert f"q = {q:.5f}" in repr(explorer)
    explorer.p.value = 0.99
    assert repr(explorer).startswith("SuccessExplorer(p=0.99, δ=1, r=5, n=50:")
    assert not plt.get_fignums()  # every drawn figure was closed


def test_explorer_with_the_largest_sliders_does_not_fail():
    explorer = SuccessExplorer(p=0.999, delta=1.0, r=5, n=200)
    assert "n₅₀ =" in repr(explorer)
    assert bytes(explorer.plot.value).startswith(b"\x89PNG")


def test_explorer_title_rounds_a_slider_value_and_the_line_for_n_has_a_legend_entry(monkeypatch):
    drawn = []
    monkeypatch.setattr(plt.Figure, "savefig", lambda figure, *args, **kwargs: drawn.append(figure.axes[0]))
    explorer = SuccessExplorer()
    explorer.p.value = 0.9500000000000001  # what a float slider stepping by 0.001 can hold
    ax = drawn[-1]
    assert ax.get_title() == "p = 0.95, δ = 0.9; dotted lines: n₅₀"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[-1] == "your task: n = 20 steps" and len(labels) == 3


def test_explorer_mimebundle():
    explorer = SuccessExplorer()
    bundle = explorer._repr_mimebundle_()
    assert bundle["text/plain"] == repr(explorer) == EXPLORER_REPR
    assert bundle["text/html"] == f"<pre>{explorer.summary()}</pre>"
    assert "application/vnd.jupyter.widget-view+json" in bundle
