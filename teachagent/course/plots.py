"""The course's plots (course machinery, used by notebooks/06_cost.ipynb and 07_reliability.ipynb).

Each function draws one picture of an idea computed elsewhere (cost.py, reliability.py)
onto a matplotlib axis, with its axes labelled in their units, and returns the axis.
matplotlib is imported only when a plot is drawn.
"""

from __future__ import annotations

import math
from typing import Any

from ..base.errors import check_number
from ..cost import fitted_d, predicted_total
from ..reliability import n50, step_success, task_success
from ..trace import Run


def plot_growth(runs: dict[str, Run], ax: Any = None) -> Any:
    """c_k over k for each run, beside the straight line c_1 + (k - 1) d of its fitted d."""
    import matplotlib.pyplot as plt

    ax = ax or plt.subplots(figsize=(6, 3.2))[1]
    for label, run in runs.items():
        sizes = run.context_sizes
        ks = range(1, len(sizes) + 1)
        line = ax.plot(ks, sizes, "o-", label=f"{label}: measured")[0]
        if len(sizes) > 1:
            d = fitted_d(sizes)
            ax.plot(ks, [sizes[0] + (k - 1) * d for k in ks], "--", color=line.get_color(), label=f"{label}: c₁ + (k−1)d")
    ax.set_xlabel("model call k")
    ax.set_ylabel("context c_k (tokens)")
    ax.legend(fontsize=8)
    return ax


def plot_cumulative(run: Run, ax: Any = None) -> Any:
    """Z after each call, measured and as the theorem predicts it from c_1 and the fitted d."""
    import matplotlib.pyplot as plt

    ax = ax or plt.subplots(figsize=(6, 3.2))[1]
    sizes = run.context_sizes
    if not sizes:
        return ax
    d = fitted_d(sizes) if len(sizes) > 1 else 0.0
    ks = range(1, len(sizes) + 1)
    ax.plot(ks, [sum(sizes[:k]) for k in ks], "o-", label="measured Σ c_k")
    ax.plot(ks, [predicted_total(k, sizes[0], d) for k in ks], "--", label="predicted k c₁ + d k(k−1)/2")
    ax.set_xlabel("model calls so far")
    ax.set_ylabel("Z, input tokens read so far")
    ax.legend(fontsize=8)
    return ax


N_MAX_CAP = 1000  # the longest x axis task_length_range picks: longer n₅₀ are named in the legend, not drawn


def task_length_range(p: float, delta: float, r: int, n: int = 1) -> int:
    """How far the x axis of `plot_task_success` should reach: 1.2 × the larger n₅₀ (checked
    or not), so that both n₅₀ lines are in view, and 1.2 × n, so that a task of n steps is.

    At least 10 steps; the n₅₀ part at most N_MAX_CAP, since a step that almost never fails
    has an n₅₀ in the millions.
    """
    halves = [n50(q) for q in (p, step_success(p, delta, r)) if 0 < q < 1]
    longest = min(math.ceil(1.2 * max(halves, default=0)), N_MAX_CAP)
    return max(10, longest, math.ceil(1.2 * n))


def plot_task_success(p: float, delta: float, r: int, n_max: int | None = None, ax: Any = None) -> Any:
    """Task success over task length n, with and without the check (catch chance δ = `delta`),
    and both n₅₀ marked.

    `n_max` (the last n drawn) defaults to `task_length_range(p, delta, r)`, which keeps both
    n₅₀ in view. An n₅₀ beyond n_max is not drawn; its legend entry says so.
    """
    import matplotlib.pyplot as plt

    n_max = task_length_range(p, delta, r) if n_max is None else n_max
    check_number("n_max", n_max, whole=True, at_least=1, at_most=10_000)
    ax = ax or plt.subplots(figsize=(6, 3.2))[1]
    ns = range(1, n_max + 1)
    checked = step_success(p, delta, r)
    for label, q in (("no check (q = p)", p), (f"checked, r = {r} (q = {checked:.4f})", checked)):
        if 0 < q < 1:
            label += f": n₅₀ = {n50(q):,.1f}" + ("" if n50(q) <= n_max else ", beyond this plot")
        line = ax.plot(ns, [task_success(q, n) for n in ns], label=label)[0]
        if 0 < q < 1 and n50(q) <= n_max:
            ax.axvline(n50(q), color=line.get_color(), linestyle=":", linewidth=1)
    ax.axhline(0.5, color="grey", linewidth=0.5)
    ax.set_xlabel("task length n (steps)")
    ax.set_ylabel("P(task succeeds)")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"p = {p:g}, δ = {delta:g}; dotted lines: n₅₀")  # :g, so a slider's 0.9500000000000001 reads 0.95
    ax.legend(fontsize=8)
    return ax
