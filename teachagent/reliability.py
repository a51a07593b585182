"""How often a long task succeeds: the checked step, qⁿ and n₅₀ (introduced in notebooks/07_reliability.ipynb).

A checked step (a closed loop) goes: attempt; the attempt succeeds with probability p;
check the result: a success always passes, a failure is caught with probability d;
if a failure was caught and fewer than r retries were made, attempt again; otherwise
the step ends (in success, or in a failure that slipped through or ran out of retries).
With independent attempts and checks the step succeeds with probability

    q = p Σ_{k=0}^{r} ((1 - p) d)^k

(term k: k caught failures, then a success). A task of n such independent steps
succeeds with probability qⁿ, and the task length done half the time is

    n₅₀ = ln 2 / (-ln q) ≈ 0.69 / (1 - q)   for q near 1.

This module computes these, simulates checked steps with a seeded random generator,
and runs the real `Agent` on a task with a flaky tool and an imperfect check.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .agent import Agent
from .messages import Text
from .models import ScriptedModel, call, tool_exchanges
from .tools import tool


def _probability(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a probability between 0 and 1, got {value!r}")


def _count(name: str, value: int, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} must be an integer of at least {least}, got {value!r}")


def step_success(p: float, d: float, r: int) -> float:
    """q: the chance that a checked step with up to r retries ends in success."""
    _probability("p", p)
    _probability("d", d)
    _count("r", r, 0)
    caught_failure = (1 - p) * d
    return min(1.0, p * sum(caught_failure**k for k in range(r + 1)))  # rounding can pass 1 by a hair


def task_success(q: float, n: int) -> float:
    """qⁿ: the chance that all n independent steps succeed."""
    _probability("q", q)
    _count("n", n, 1)
    return q**n


def n50(q: float) -> float:
    """The number of steps a task can have and still succeed half the time: ln 2 / -ln q."""
    if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 < q < 1:
        raise ValueError(f"n50 needs a step success q strictly between 0 and 1, got {q!r}")
    return math.log(2) / -math.log(q)


def n50_approx(q: float) -> float:
    """0.69 / (1 - q): n₅₀ for q near 1, from -ln q ≈ 1 - q."""
    if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 < q < 1:
        raise ValueError(f"n50_approx needs q strictly between 0 and 1, got {q!r}")
    return 0.69 / (1 - q)


# --- simulation -------------------------------------------------------------------------


def checked_step(p: float, d: float, r: int, rng: random.Random) -> bool:
    """Play one checked step with random attempts and checks; True if it ends in success."""
    for _ in range(r + 1):
        if rng.random() < p:
            return True
        if rng.random() >= d:  # the failure slipped past the check
            return False
    return False  # every retry was used up


@dataclass
class Estimate:
    """A success rate measured over `trials`, with its 95 % Wilson confidence interval."""

    successes: int
    trials: int

    def __post_init__(self) -> None:
        _count("trials", self.trials, 1)
        if not 0 <= self.successes <= self.trials:
            raise ValueError(f"successes must be between 0 and trials ({self.trials}), got {self.successes!r}")

    def __repr__(self) -> str:
        low, high = self.interval
        return f"Estimate({self.successes}/{self.trials} = {self.rate:.3f}, 95% CI {low:.3f}–{high:.3f})"

    @property
    def rate(self) -> float:
        return self.successes / self.trials

    @property
    def interval(self) -> tuple[float, float]:
        z, n, p = 1.96, self.trials, self.rate
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))  # exact at 0/n and n/n

    def agrees_with(self, probability: float) -> bool:
        """Whether `probability` lies inside the confidence interval."""
        low, high = self.interval
        return low <= probability <= high


def simulate(p: float, d: float, r: int, n: int, trials: int, seed: int = 0) -> Estimate:
    """Run `trials` tasks of n checked steps; count those where every step succeeded."""
    step_success(p, d, r)  # validates p, d, r
    _count("n", n, 1)
    _count("trials", trials, 1)
    rng = random.Random(seed)
    wins = sum(all(checked_step(p, d, r, rng) for _ in range(n)) for _ in range(trials))
    return Estimate(wins, trials)


# --- the real loop with a flaky tool --------------------------------------------------


def flaky_agent(p: float, d: float, r: int, n: int, rng: random.Random) -> tuple[Agent, dict]:
    """An agent that must do n steps with a tool that works with probability p, checked by a
    tool that catches a failure with probability d, retrying a caught failure up to r times.

    Returns the agent and the ground truth that the tools record (which steps really
    succeeded), so a run can be scored without trusting what the agent says.
    """
    step_success(p, d, r)  # validates p, d, r
    _count("n", n, 1)
    truth = {"done": {}}

    @tool(timeout=None)
    def do_step(step: int) -> str:
        """Carry out one step of the task."""
        truth["done"][step] = rng.random() < p
        return f"step {step} attempted"

    @tool(timeout=None)
    def check_step(step: int) -> str:
        """Check the result of a step."""
        caught = not truth["done"][step] and rng.random() < d
        return f"step {step}: check FAILED" if caught else f"step {step}: check passed"

    def policy(messages):
        results = [result.content for _, result in tool_exchanges(messages)]
        step = sum("check passed" in c for c in results) + 1
        if step > n:
            return f"All {n} steps done and checked."
        tries = sum(f"step {step} attempted" in c for c in results)
        last = results[-1] if results else ""
        if last == f"step {step} attempted":
            return call("check_step", step=step)
        if tries and "check FAILED" in last and tries > r:
            return [Text(f"Step {step} still fails after {r} retries; I stop here.")]
        return call("do_step", step=step)

    model = ScriptedModel(policy, name="scripted checker")
    return Agent(model, [do_step, check_step], max_steps=2 * n * (r + 1) + 1), truth


def run_flaky_agents(p: float, d: float, r: int, n: int, runs: int, seed: int = 0) -> Estimate:
    """Run the real agent loop `runs` times; a run succeeds when every step truly succeeded."""
    _count("runs", runs, 1)
    rng, wins = random.Random(seed), 0
    for _ in range(runs):
        agent, truth = flaky_agent(p, d, r, n, rng)
        agent.run(f"Do the {n} steps of the task, checking each one.")
        wins += len(truth["done"]) == n and all(truth["done"].values())
    return Estimate(wins, runs)


# --- plots ----------------------------------------------------------------------------


def plot_task_success(p: float, d: float, r: int, n_max: int = 100, ax=None):
    """Task success over task length n, with and without the check, and both n₅₀ marked."""
    import matplotlib.pyplot as plt

    ax = ax or plt.subplots(figsize=(6, 3.2))[1]
    ns = range(1, n_max + 1)
    for label, q in (("no check (q = p)", p), (f"checked, r = {r} (q = {step_success(p, d, r):.4f})", step_success(p, d, r))):
        line = ax.plot(ns, [task_success(q, n) for n in ns], label=label)[0]
        if 0 < q < 1 and n50(q) <= n_max:
            ax.axvline(n50(q), color=line.get_color(), linestyle=":", linewidth=1)
    ax.axhline(0.5, color="grey", linewidth=0.5)
    ax.set_xlabel("task length n (steps)")
    ax.set_ylabel("P(task succeeds)")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"p = {p}, d = {d}; dotted lines: n₅₀")
    ax.legend(fontsize=8)
    return ax


class SuccessExplorer:
    """Sliders for p, d, r and n, with q, qⁿ, n₅₀ and the success curve updated as they move.

    Outside a widget-aware frontend it shows its numbers as text; draw the static curve
    with `plot_task_success` for such renderers.
    """

    def __init__(self, p: float = 0.9, d: float = 0.9, r: int = 2, n: int = 20) -> None:
        import ipywidgets as widgets

        self.p = widgets.FloatSlider(value=p, min=0.5, max=0.999, step=0.001, readout_format=".3f", description="p")
        self.d = widgets.FloatSlider(value=d, min=0.0, max=1.0, step=0.01, description="d")
        self.r = widgets.IntSlider(value=r, min=0, max=5, description="r (retries)")
        self.n = widgets.IntSlider(value=n, min=1, max=200, description="n (steps)")
        self.readout = widgets.HTML()
        self.plot = widgets.Image(format="png")  # a picture, not captured output: same in every frontend
        for slider in (self.p, self.d, self.r, self.n):
            slider.observe(lambda change: self._draw(), names="value")
        self.widget = widgets.VBox([widgets.HBox([self.p, self.d]), widgets.HBox([self.r, self.n]), self.readout, self.plot])
        self._draw()

    def summary(self) -> str:
        q = step_success(self.p.value, self.d.value, self.r.value)
        half = f"{n50(q):.1f}" if 0 < q < 1 else "∞"
        return (
            f"p={self.p.value:g}, d={self.d.value:g}, r={self.r.value}, n={self.n.value}: q = {q:.5f}, "
            f"task success qⁿ = {task_success(q, self.n.value):.3f} (unchecked pⁿ = {self.p.value ** self.n.value:.3f}), "
            f"n₅₀ = {half}"
        )

    def __repr__(self) -> str:
        return f"SuccessExplorer({self.summary()})"

    def _draw(self) -> None:
        import io

        import matplotlib.pyplot as plt

        self.readout.value = self.summary()
        figure, ax = plt.subplots(figsize=(6, 3.2))
        plot_task_success(self.p.value, self.d.value, self.r.value, n_max=max(2 * self.n.value, 20), ax=ax)
        ax.axvline(self.n.value, color="black", linewidth=0.8)
        figure.tight_layout()
        png = io.BytesIO()
        figure.savefig(png, format="png")
        plt.close(figure)
        self.plot.value = png.getvalue()

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        bundle["text/html"] = f"<pre>{self.summary()}</pre>"
        return bundle
