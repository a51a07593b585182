"""An evaluation: one agent on a set of tasks, each with its own checker (introduced in notebooks/08_capstone.ipynb).

One run says what an agent did once; how often it gets a kind of task right is a rate, and
a rate needs many tasks. An evaluation is a list of `EvalTask`s, each a question and a
checker that reads the run's answer and says whether it is right; `evaluate_agent` runs the agent
on every task and keeps one `TaskResult` a task. Its success rate is an `Estimate` with the
95 % Wilson interval of lesson 7 (simulation.py), so two strategies (two system prompts,
say) are compared by their intervals, not by two bare counts.

A run passes only when it ended with an answer that holds a letter or digit and the
checker accepts that answer (True, nothing else): running out of steps, a budget or a reply
of punctuation is a failure, whatever the checker would have said.

Errors are data here too: a run that fails (a dropped connection on task 4 of 5), a checker
that raises or answers something other than True or False, each fails its own task, with the
reason in its `TaskResult` and in the table, and every other task is still run and judged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .agent import AgentError
from .base.display import one_line
from .base.errors import CourseError, exception_text, shown_value, type_name
from .estimate import Estimate
from .trace import Run


@dataclass(frozen=True)
class EvalTask:
    """One task of an evaluation: a `name` for the table, the `question` the agent is given, and
    `check`, which reads the agent's answer and says whether it is right."""

    name: str
    question: str
    check: Callable[[str], bool]

    def __post_init__(self) -> None:
        for field, value in (("name", self.name), ("question", self.question)):
            if not isinstance(value, str):
                raise CourseError(f"an EvalTask's {field} is text, got {type_name(value)}: {shown_value(value)}")
            object.__setattr__(self, field, str.__str__(value))  # plain text: a str subclass's own methods never run
        if not callable(self.check):
            raise CourseError(f"the check of task {self.name!r} must be a function of the answer returning True or "
                              f"False, got {shown_value(self.check)}")

    def __repr__(self) -> str:
        return f"EvalTask({self.name!r}: {self.question!r})"

    def passed(self, run: Run) -> bool:
        """Right only if the run answered (letters or digits, outcome 'answer') and the checker accepts the answer."""
        return self.judged(run)[0]

    def judged(self, run: Run) -> tuple[bool, str]:
        """Whether the run passed, and why not when the checker could not say (it raised, or answered neither
        True nor False); a run that did not answer fails with no reason beyond its outcome."""
        if not run.answered:
            return False, ""
        try:
            said = self.check(run.answer or "")
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # the checker's own bug fails this task, not the evaluation
            return False, f"the checker raised {exception_text(error)}"
        if said is True or said is False:
            return said, ""
        return False, f"the checker answered {shown_value(said)}, not True or False"  # only True is a yes


@dataclass(frozen=True)
class TaskResult:
    """What one run of the evaluation did: its task, how it ended, what it read, and the verdict;
    `reason` says why a task failed when its run or its checker did (empty otherwise)."""

    task: EvalTask
    run: Run
    passed: bool
    reason: str = ""

    def __repr__(self) -> str:
        why = f", {self.reason}" if self.reason else ""
        return (f"TaskResult({self.task.name!r}: {'passed' if self.passed else 'failed'}, {self.run.outcome}, "
                f"Z={self.run.Z}{why})")


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
        """A header, then one line a task: its name, passed or failed, how the run ended, its calls K and its Z; then the rate.

        A final reply with no letter or digit in it shows as "said nothing", not as an answer;
        a task whose run or checker failed says why, at the end of its line.
        """
        width = max((len(result.task.name) for result in self.results), default=0)
        why_column = "  why it failed" if any(result.reason for result in self.results) else ""
        lines = [f"{self.label}:", f"  {'task':{width}}  {'result':6}  {'how it ended':14} {'K':>3}  {'Z':>6}{why_column}"]
        for result in self.results:
            verdict = "passed" if result.passed else "failed"
            why = f"  {one_line(result.reason)}" if result.reason else ""
            lines.append(f"  {result.task.name:{width}}  {verdict}  {result.run.outcome:14} "
                         f"{len(result.run.steps):3d}  {result.run.Z:6,}{why}")
        lines.append(f"  {self.estimate}, Z = {self.Z:,} tokens in all" if self.results else "  no tasks")
        return "\n".join(lines)


def evaluate_agent(run_on: Callable[[str], Run], tasks: Iterable[EvalTask], label: str) -> Evaluation:
    """Run `run_on` (a question in, a `Run` out) on every task and judge each run with its task's checker.

    `tasks` may be any iterable (a list, a generator), read once. A task whose run fails, or whose
    checker cannot say, is a failed `TaskResult` with its reason; the evaluation goes on to the next.
    """
    if not callable(run_on):
        raise CourseError(f"run_on must be a function of a question returning the agent's Run (such as agent.run), "
                          f"got {shown_value(run_on)}")
    tasks = list(tasks)  # a generator is read once, here, not used up by the name check below
    if not tasks:
        raise CourseError("an evaluation needs at least one task")
    strays = [task for task in tasks if not isinstance(task, EvalTask)]
    if strays:
        raise CourseError(f"an evaluation's tasks are EvalTasks (name, question, check), got {shown_value(strays[0])}")
    names = [task.name for task in tasks]
    if len(set(names)) != len(names):
        twice = sorted({name for name in names if names.count(name) > 1})
        raise CourseError(f"each task needs its own name, so the table can tell them apart: {', '.join(twice)} twice")
    return Evaluation(label, tuple(judged(run_on, task) for task in tasks))


def judged(run_on: Callable[[str], Run], task: EvalTask) -> TaskResult:
    """One task run and judged; a run that fails is a failed result with its reason (and its partial run, if any)."""
    try:
        run = run_on(task.question)
    except KeyboardInterrupt:  # Ctrl-C is the learner's: it stops the evaluation
        raise
    except AgentError as error:  # a model call failed mid-run: the partial run is kept
        return TaskResult(task, error.run, False, f"the run failed: {exception_text(error)}")
    except BaseException as error:
        return TaskResult(task, Run(task.question, "(no run)", outcome="error"), False,
                          f"run_on raised {exception_text(error)}")
    if not isinstance(run, Run):
        return TaskResult(task, Run(task.question, "(no run)", outcome="error"), False,
                          f"run_on returned {type_name(run)}, not the agent's Run (from agent.run(question))")
    return TaskResult(task, run, *task.judged(run))


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
