"""A measured rate and its 95 % Wilson interval (introduced in notebooks/02_tools.ipynb).

A rate counted over a few runs is uncertain: 7 right out of 20 could come from a model
that is right a fifth of the time or more than half of it. So every measured rate in the
course is an `Estimate`, successes out of trials, printed with the range of true rates it
does not rule out: Wilson's 95 % interval, which stays sensible at 0 and at n out of n,
where the textbook (Wald) interval shrinks to nothing. notebooks/07_reliability.ipynb derives it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .base.errors import check_number


@dataclass
class Estimate:
    """A success rate measured over `trials`, with its 95 % Wilson confidence interval."""

    successes: int
    trials: int

    def __post_init__(self) -> None:
        check_number("trials", self.trials, whole=True, at_least=1, at_most=10**12)
        check_number("successes", self.successes, whole=True, at_least=0, at_most=self.trials)

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
        """Whether a predicted `probability` (such as the formula's qⁿ) lies inside the 95 %
        interval around the measured rate: the measurement then does not contradict it."""
        check_number("probability", probability, at_least=0, at_most=1)
        low, high = self.interval
        return low <= probability <= high
