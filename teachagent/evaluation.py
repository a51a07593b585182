"""An evaluation: one agent on a set of tasks, each with its own checker (introduced in notebooks/08_capstone.ipynb).

One run says what an agent did once; how often it gets a kind of task right is a rate, and
a rate needs many tasks. An evaluation is a list of `EvalTask`s, each a question and a
checker that reads the run's answer and says whether it is right; `evaluate_agent` runs the agent
on every task and keeps one `TaskResult` a task. Its success rate is an `Estimate` with the
95 % Wilson interval of lesson 7 (simulation.py), so two strategies (two system prompts,
say) are compared by their intervals, not by two bare counts.

A run passes only when it ended with an answer that holds a letter or digit and the
checker accepts that answer: running out of steps, a budget or a reply of punctuation is
a failure, whatever the checker would have said.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .base.errors import CourseError
from .simulation import Estimate
from .trace import Run


@dataclass(frozen=True)
class EvalTask:
    """One task of an evaluation: a `name` for the table, the `question` the agent is given, and
    `check`, which reads the agent's answer and says whether it is right."""

    name: str
    question: str
    check: Callable[[str], bool]

    def __repr__(self) -> str:
        return f"EvalTask({self.name!r}: {self.question!r})"

    def passed(self, run: Run) -> bool:
        """Right only if the run answered (letters or digits, outcome 'answer') and the checker accepts the answer."""
        if not run.answered:  # trace.is_answer: outcome 'answer' and a reply that says something
            return False
        return self.check(run.answer or "") is True  # a checker that returns something else has not said yes


@dataclass(frozen=True)
class TaskResult:
    """What one run of the evaluation did: its task, how it ended, what it read, and the verdict."""

    task: EvalTask
    run: Run
    passed: bool

    def __repr__(self) -> str:
        return f"TaskResult({self.task.name!r}: {'passed' if self.passed else 'failed'}, {self.run.outcome}, Z={self.run.Z})"


@dataclass(frozen=True)
class Evaluation:
    """The results of one agent (or one strategy, such as a system prompt) on every task, with its success rate."""

    label: str
    results: tuple[TaskResult, ...]

    def __repr__(self) -> str:
        return f"Evaluation({self.label!r}: {self.estimate})"

    @property
    def estimate(self) -> Estimate:
        """Tasks passed out of tasks run, with the 95 % Wilson interval."""
        return Estimate(sum(result.passed for result in self.results), len(self.results))

    @property
    def Z(self) -> int:
        """Every token the runs read, added up: what the evaluation cost."""
        return sum(result.run.Z for result in self.results)

    def table(self) -> str:
        """One line a task: its name, passed or failed, how the run ended, its calls K and its Z; then the rate.

        A final reply with no letter or digit in it shows as "said nothing", not as an answer.
        """
        width = max(len(result.task.name) for result in self.results)
        lines = [f"{self.label}:"]
        for result in self.results:
            verdict = "passed" if result.passed else "failed"
            ending = "said nothing" if result.run.said_nothing else result.run.outcome
            lines.append(f"  {result.task.name:{width}}  {verdict}  {ending:14} "
                         f"K = {len(result.run.steps):2d}  Z = {result.run.Z:6,}")
        lines.append(f"  {self.estimate}, Z = {self.Z:,} tokens in all")
        return "\n".join(lines)


def evaluate_agent(run_on: Callable[[str], Run], tasks: Sequence[EvalTask], label: str) -> Evaluation:
    """Run `run_on` (a question in, a `Run` out) on every task and judge each run with its task's checker."""
    if not tasks:
        raise CourseError("an evaluation needs at least one task")
    names = [task.name for task in tasks]
    if len(set(names)) != len(names):
        twice = sorted({name for name in names if names.count(name) > 1})
        raise CourseError(f"each task needs its own name, so the table can tell them apart: {', '.join(twice)} twice")
    results = []
    for task in tasks:
        run = run_on(task.question)
        if not isinstance(run, Run):
            raise CourseError(f"run_on should return the agent's Run (from agent.run(question)), not {type(run).__name__}")
        results.append(TaskResult(task, run, task.passed(run)))
    return Evaluation(label, tuple(results))


def compared(first: Evaluation, second: Evaluation) -> str:
    """One line on two evaluations of the same tasks: their rates, and whether their intervals overlap."""
    if [r.task.name for r in first.results] != [r.task.name for r in second.results]:
        raise CourseError(f"{first.label!r} and {second.label!r} ran different tasks: compare evaluations of the same tasks")
    a, b = first.estimate, second.estimate
    (a_low, a_high), (b_low, b_high) = a.interval, b.interval
    if a_low <= b_high and b_low <= a_high:  # a rough rule, not a test: overlapping intervals show no difference
        verdict = "the intervals overlap: on these tasks neither is shown to be better"
    else:
        verdict = f"the intervals do not overlap: {first.label if a.rate > b.rate else second.label} does better on these tasks"
    return f"{first.label}: {a.successes}/{a.trials} · {second.label}: {b.successes}/{b.trials} · {verdict}"
