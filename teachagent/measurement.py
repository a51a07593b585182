"""A design measured over seeded runs (introduced in notebooks/02_tools.ipynb, "a tool a small model can use").

One run of a real model is one draw: sampled again, the same task may go another way. How
often a *design* (its tools, its prompt, what the harness asks of each call) gets a task
set right is a rate, so it is measured: every task of the set under each of several seeds,
each run judged by its task's checker (an `EvalTask`, evaluation.py), the count given with
its 95 % Wilson interval (an `Estimate`, estimate.py).

The seeds make the measurement repeatable. A model that samples with a seed (llama.cpp's
server takes one with each request: `OpenAICompatible(seed=...)`, or `model.seed = ...`)
draws the same random numbers for the same request, and a recording keeps each request's
seed beside it, so a recording replays to the same counts in any order. Measured again live,
the counts land near the recorded ones, often on them: llama.cpp reuses what it computed for
earlier prompts, which can shift a reply now and then. `measure` sets `model.seed` before
each run and puts it back afterwards; a model that takes no seed (Claude) is run unseeded.

A task done in steps can be judged step by step, in order: "read the note the question
names?", then "the right number?". A run reaches a step only if every step before it was
right, so each step's rate is counted over the runs that reached it, and the product of
those rates is the task's rate (notebooks/07_reliability.ipynb splits a task this way). A
run passes when every step is right; with no steps given, when its task's checker accepts
its answer. A run that raised (a model call that failed) is a failed trial, its reason kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .base.display import one_line
from .base.errors import CourseError, SettingError, check_number, exception_text
from .estimate import Estimate

if TYPE_CHECKING:  # names for the annotations only: the loop and the record are lesson 3's, the tasks lesson 8's
    from .agent import Agent
    from .evaluation import EvalTask
    from .models import Model
    from .trace import Run

StepCheck = Callable[["EvalTask", "Run"], bool]  # one step of a task judged on a run: right or not
ANSWER = "right answer"  # the one step of a task measured with no steps named: its checker accepts the answer

# how a run ended, in the words a measurement's summary uses (trace.OUTCOMES says each in full)
ENDINGS = {"max_steps": "ran out of steps", "off_form": "broke the answer's form", "max_tokens": "cut off mid-reply",
           "error": "failed", "empty_answer": "said nothing"}


@dataclass(frozen=True)
class Design:
    """One way to set an agent up for a task set: a `label` for the tables, and `agent`, which
    builds a fresh agent of this design around a given model (the one being measured)."""

    label: str
    agent: Callable[[Model], Agent]

    def __repr__(self) -> str:
        return f"Design({self.label!r})"


@dataclass(frozen=True)
class Trial:
    """One seeded run of one task: the run, the first of the task's steps it got wrong (None: none,
    so it passed), and, for a run that raised or a check that did, the reason in one line."""

    task: EvalTask
    seed: int | None
    run: Run
    failed_at: int | None
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.failed_at is None

    def __repr__(self) -> str:
        verdict = "passed" if self.failed_at is None else f"failed at step {self.failed_at + 1}"
        return f"Trial({self.task.name!r}, seed {self.seed}: {verdict}, {self.run.outcome})"


@dataclass(frozen=True)
class Measurement:
    """A design's trials, every task under every seed, with the task's rate and each step's."""

    label: str
    steps: tuple[str, ...]
    trials: tuple[Trial, ...]

    def __repr__(self) -> str:
        return f"Measurement({self.label!r}: {self.estimate}, {self.seeds_said})"

    @property
    def estimate(self) -> Estimate:
        """Trials passed out of trials run, with the 95 % Wilson interval."""
        return Estimate(sum(trial.passed for trial in self.trials), len(self.trials))

    @property
    def seeds(self) -> list[int]:
        """The seeds the runs were sampled with, each once, in order (none for a model that takes no seed)."""
        return sorted({trial.seed for trial in self.trials if trial.seed is not None})

    @property
    def seeds_said(self) -> str:
        """The seeds in words: "seeds 0–4", "seeds 1, 5", "unseeded"."""
        seeds = self.seeds
        if not seeds:
            return "unseeded"
        if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
            return f"seeds {seeds[0]}–{seeds[-1]}"
        return f"seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}"

    def step_rates(self) -> list[tuple[str, Estimate | None]]:
        """Each step with its rate over the runs that reached it (None when none did); their product is `estimate`'s rate."""
        rates: list[tuple[str, Estimate | None]] = []
        for k, name in enumerate(self.steps):
            reached = [t for t in self.trials if t.failed_at is None or t.failed_at >= k]
            right = sum(t.failed_at is None or t.failed_at > k for t in reached)
            rates.append((name, Estimate(right, len(reached)) if reached else None))
        return rates

    def did(self) -> str:
        """What the runs did, counted: how they ended, and whether those that answered were right."""
        counts: Counter[str] = Counter()
        for trial in self.trials:
            ending = ENDINGS.get(trial.run.outcome, trial.run.outcome)
            if trial.run.answered:
                ending = "answered right" if trial.passed else "answered wrong"
            counts[ending] += 1
        return ", ".join(f"{n} {ending}" for ending, n in counts.most_common())


def measure(design: Design, model: Model, tasks: Sequence[EvalTask], seeds: Iterable[int],
            steps: Mapping[str, StepCheck] | None = None) -> Measurement:
    """Run `design` on every task under each seed, `model.seed` set before each run, and judge every run.

    `steps`, if given, names the task's steps in order, each with a check of a run; a run
    passes when all of them hold. Without them a run passes when its task's checker accepts
    its answer (`EvalTask.passed`).
    """
    seeds = list(seeds)
    if not tasks or not seeds:
        raise CourseError("a measurement needs at least one task and one seed")
    for seed in seeds:
        check_number("a seed", seed, whole=True, at_least=0, at_most=2**32 - 1)
    names = [task.name for task in tasks]
    if len(set(names)) != len(names):
        twice = sorted({name for name in names if names.count(name) > 1})
        raise CourseError(f"each task needs its own name, so trials can be told apart: {', '.join(twice)} twice")
    checks: dict[str, StepCheck] = dict(steps) if steps else {ANSWER: lambda task, run: task.passed(run)}
    seeded = takes_seed(model)
    before = getattr(model, "seed", None)
    trials = []
    try:
        for task in tasks:
            for seed in seeds:
                if seeded:
                    setattr(model, "seed", seed)  # noqa: B010 (the Model protocol has no seed: only models that sample with one)
                trials.append(_trial(design, model, task, seed if seeded else None, checks))
    finally:
        if seeded:
            setattr(model, "seed", before)  # noqa: B010
    return Measurement(design.label, tuple(checks), tuple(trials))


def takes_seed(model: Model) -> bool:
    """Whether a measurement can set `model.seed` before each run: the model samples with a seed it is given."""
    return hasattr(model, "seed")


class WrappedSeed:
    """The `seed` of a model that wraps another as `.model` (a recorder, a model measured after right steps):
    the wrapped model's seed, read and set through it, so that a measurement seeds the model that samples."""

    def __get__(self, wrapper: Any, owner: type | None = None) -> int | None:
        seed: int | None = getattr(getattr(wrapper, "model", None), "seed", None)
        return seed

    def __set__(self, wrapper: Any, value: int | None) -> None:
        if not takes_seed(wrapper.model):
            raise SettingError(f"{wrapper.model.name} takes no seed: only a model that samples with one can be given one")
        wrapper.model.seed = value


def _trial(design: Design, model: Model, task: EvalTask, seed: int | None, checks: dict[str, StepCheck]) -> Trial:
    """One run of `task` by a fresh agent of `design`, judged step by step."""
    try:
        run = design.agent(model).run(task.question)
    except Exception as raised:  # an AgentError: a model call failed; its partial record is in .run
        partial: Run | None = getattr(raised, "run", None)
        if partial is None:
            raise
        return Trial(task, seed, partial, 0, one_line(exception_text(raised), 300))
    for k, (name, check) in enumerate(checks.items()):
        try:
            right = check(task, run) is True  # anything but True has not said yes
        except Exception as raised:
            return Trial(task, seed, run, k, one_line(f"the check {name!r} raised {exception_text(raised)}", 300))
        if not right:
            return Trial(task, seed, run, k)
    return Trial(task, seed, run, None)


def measurement_table(measurements: Sequence[Measurement]) -> str:
    """One row a measurement: its design, the runs passed, the 95 % interval, each step's count over the runs
    that reached it (a column a step, by name), and what the runs did; then, for a design whose runs failed
    (a model call or a check that raised), how many and why the first did."""
    if not measurements:
        return "(no measurements)"
    width = max(len("design"), *(len(m.label) for m in measurements))
    names = list(dict.fromkeys(name for m in measurements for name in m.steps))
    widths = [max(len(name), 5) for name in names]
    lines = [f"{'design':{width}}  passed  95 % interval  "
             + "  ".join(f"{name:>{w}}" for name, w in zip(names, widths)) + "  what the runs did"]
    for m in measurements:
        low, high = m.estimate.interval
        rates = dict(m.step_rates())
        counts = "  ".join(f"{_count(rates[name]) if name in rates else '':>{w}}" for name, w in zip(names, widths))
        lines.append(f"{m.label:{width}}  {m.estimate.successes:>2}/{m.estimate.trials:<3}  {low:.2f}–{high:.2f}     "
                     f"{counts}  {m.did()}")
    for m in measurements:  # a run that raised, or a check that did: why, once a design
        if failed := [t for t in m.trials if t.error]:
            lines.append(f"{m.label}: {len(failed)} of {len(m.trials)} runs failed; the first ({failed[0].task.name}, "
                         f"seed {failed[0].seed}): {failed[0].error}")
    return "\n".join(lines)


def _count(rate: Estimate | None) -> str:
    return "–" if rate is None else f"{rate.successes}/{rate.trials}"
