"""A real check with retries, measured on a real model (introduced in notebooks/07_reliability.ipynb).

The checked step of reliability.py, q = p Σ_{j=0}^{r} ((1 - p) δ)^j, rests on three numbers:
p, how often an attempt is right; δ, how often the check notices a wrong one (never
objecting to a right one); r, the retries allowed. On a real model all three can be
measured. Each trial is one task under one seed: its first attempt is a run of the design;
the check reads the run (the number the answer gives must stand in the note the run read,
say); if it objects and a retry is left, the next attempt is a new run, sampled with a new
seed (the trial's seed + `RETRY_SEEDS` × the attempt's number). The trial succeeds when the
first attempt the check accepts is right.

From the first attempts come p and δ; from the trials, q measured for r = 0, 1, ... up to the
retries allowed. The formula then gives its own q from the measured p and δ, and the two can
be compared. The formula counts every attempt as a fresh draw with the same p; a retry of a
task the model got wrong is not, if that task is harder for it than the rest (`retried`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .base.errors import CourseError, check_number, exception_text
from .estimate import Estimate
from .measurement import Design, StepCheck, Trial, measure
from .reliability import step_success

if TYPE_CHECKING:
    from .evaluation import EvalTask
    from .models import Model
    from .trace import Run

RETRY_SEEDS = 1000  # attempt j of the trial with seed s samples with seed s + 1000 j: a new draw, and a repeatable one
Check = Callable[["EvalTask", "Run"], bool]  # True: the check accepts the run; False: it objects


@dataclass(frozen=True)
class CheckedTrial:
    """One task under one seed: its attempts in order, and for each whether the check objected to it."""

    attempts: tuple[Trial, ...]
    objected: tuple[bool, ...]

    def __repr__(self) -> str:
        first = self.attempts[0]
        return f"CheckedTrial({first.task.name!r}, seed {first.seed}: {len(self.attempts)} attempts, objected {self.objected})"

    def passed(self, r: int) -> bool:
        """Whether, with `r` retries allowed, the first attempt the check accepted was right."""
        for attempt, objected in zip(self.attempts[: r + 1], self.objected):
            if not objected:
                return attempt.passed
        return False  # every attempt allowed was objected to


@dataclass(frozen=True)
class CheckedMeasurement:
    """A design measured with a check and up to `retries` retries: p, δ and q measured, and the formula's q."""

    label: str
    check: str
    retries: int
    steps: tuple[str, ...]
    trials: tuple[CheckedTrial, ...]

    def __repr__(self) -> str:
        return f"CheckedMeasurement({self.label!r}, check {self.check!r}: p {self.p}, δ {self.delta})"

    @property
    def p(self) -> Estimate:
        """How often a first attempt was right."""
        return Estimate(sum(t.attempts[0].passed for t in self.trials), len(self.trials))

    @property
    def delta(self) -> Estimate | None:
        """How often the check objected to a wrong first attempt; None when no first attempt was wrong."""
        wrong = [t for t in self.trials if not t.attempts[0].passed]
        return Estimate(sum(t.objected[0] for t in wrong), len(wrong)) if wrong else None

    @property
    def false_alarms(self) -> int:
        """Right attempts the check objected to: the formula assumes there are none."""
        return sum(a.passed and o for t in self.trials for a, o in zip(t.attempts, t.objected))

    def q(self, r: int) -> Estimate:
        """How often a trial succeeded with `r` retries allowed, measured."""
        check_number("r", r, whole=True, at_least=0, at_most=self.retries)
        return Estimate(sum(t.passed(r) for t in self.trials), len(self.trials))

    def formula_q(self, r: int) -> float:
        """The formula's q for `r` retries, from the measured p and δ (δ = 0 when no first attempt was wrong)."""
        return step_success(self.p.rate, self.delta.rate if self.delta else 0.0, r)

    @property
    def retried(self) -> Estimate | None:
        """How often a retry was right: the formula takes it to be p, like a first attempt. None: no retry was made."""
        retries = [a for t in self.trials for a in t.attempts[1:]]
        return Estimate(sum(a.passed for a in retries), len(retries)) if retries else None


def measure_checked(design: Design, model: Model, tasks: Sequence[EvalTask], seeds: Iterable[int], check: Check,
                    retries: int, steps: Mapping[str, StepCheck] | None = None, check_name: str = "check") -> CheckedMeasurement:
    """Measure `design` with `check` after every attempt and up to `retries` retries, each a new seeded run.

    An attempt is right as `measure` judges it (every step in `steps`, else the task's checker).
    """
    check_number("retries", retries, whole=True, at_least=0, at_most=10)
    seeds = list(seeds)
    if not tasks or not seeds:
        raise CourseError("a measurement needs at least one task and one seed")
    trials: list[CheckedTrial] = []
    judged: tuple[str, ...] = ()
    for task in tasks:
        for seed in seeds:
            attempts: list[Trial] = []
            objected: list[bool] = []
            for j in range(retries + 1):
                measured = measure(design, model, [task], [seed + RETRY_SEEDS * j], steps)
                attempt, judged = measured.trials[0], measured.steps
                try:
                    accepted = check(task, attempt.run) is True
                except Exception as raised:
                    where = f"{task.name!r}, seed {attempt.seed}"
                    raise CourseError(f"the check {check_name!r} raised on {where}: {exception_text(raised)}") from raised
                attempts.append(attempt)
                objected.append(not accepted)
                if accepted:
                    break
            trials.append(CheckedTrial(tuple(attempts), tuple(objected)))
    return CheckedMeasurement(design.label, check_name, retries, judged, tuple(trials))
