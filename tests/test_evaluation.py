"""An evaluation over tasks (teachagent/evaluation.py, lesson 8): a run passes only when it answered and its
checker accepts the answer; the rate carries the Wilson interval; bad input is one clear error."""

from __future__ import annotations

import pytest

from teachagent import Agent, EvalTask, ScriptedModel, call, compared, evaluate_agent, tool
from teachagent.base.errors import CourseError
from teachagent.estimate import Estimate


@tool
def lookup(word: str) -> str:
    """Look a word up."""
    return f"{word}: 4 letters"


def says(number: str):
    return lambda answer: number in answer


TASKS = [EvalTask(f"task {i}", f"How many letters has word {i}?", says("4")) for i in range(10)]


def agent_answering(reply):
    """An agent whose scripted model reads once, then answers `reply(question)`."""
    def run_on(question):
        def policy(messages):
            return [call("lookup", word="word")] if len(messages) == 1 else reply(question)
        return Agent(ScriptedModel(policy), [lookup]).run(question)
    return run_on


def test_every_task_is_run_and_judged_by_its_own_checker():
    evaluation = evaluate_agent(agent_answering(lambda q: "4" if q.endswith("3?") or q.endswith("7?") else "5"),
                                TASKS, "half-wrong")
    assert [result.passed for result in evaluation.results] == [i in (3, 7) for i in range(10)]
    assert evaluation.estimate.successes == 2 and evaluation.estimate.trials == 10
    assert evaluation.estimate.interval == Estimate(2, 10).interval
    assert evaluation.Z == sum(result.run.Z for result in evaluation.results) > 0
    assert repr(evaluation) == f"Evaluation('half-wrong': {Estimate(2, 10)})"
    lines = evaluation.table().splitlines()
    assert lines[0] == "half-wrong:" and lines[1].split() == ["task", "result", "how", "it", "ended", "K", "Z"]
    assert len(lines) == 13 and "task 3  passed  answer" in lines[5] and "task 0  failed  answer" in lines[2]
    assert lines[-1].startswith("  Estimate(2/10 = 0.200")


def test_a_run_that_did_not_answer_fails_whatever_its_checker_says():
    anything = EvalTask("any", "Say anything.", lambda answer: True)

    def forever(question):
        return Agent(ScriptedModel(lambda messages: [call("lookup", word="w")]), [lookup], max_steps=3).run(question)

    result = evaluate_agent(forever, [anything], "looping").results[0]
    assert result.run.outcome == "max_steps" and not result.passed
    for reply in ("", " ... ", "?!"):
        result = evaluate_agent(agent_answering(lambda q, reply=reply: reply), [anything], "punctuation").results[0]
        assert result.run.outcome == "empty_answer" and not result.passed, reply
    shown = evaluate_agent(agent_answering(lambda q: "?!"), [anything], "punctuation").table()
    assert "any  failed  empty_answer" in shown


def test_a_checker_must_say_true_to_pass():
    for verdict in (1, "yes", None, [True]):
        task = EvalTask("t", "q?", lambda answer, verdict=verdict: verdict)
        assert not evaluate_agent(agent_answering(lambda q: "4"), [task], "x").results[0].passed


def test_compared_names_the_better_one_only_when_the_intervals_part():
    right = evaluate_agent(agent_answering(lambda q: "4 letters"), TASKS, "reads first")
    wrong = evaluate_agent(agent_answering(lambda q: "5 letters"), TASKS, "guesses")
    assert compared(right, wrong) == ("reads first: 10/10 · guesses: 0/10 · the intervals do not overlap: "
                                      "reads first does better on these tasks")
    some = evaluate_agent(agent_answering(lambda q: "4" if q.endswith(("1?", "2?", "3?", "4?", "5?", "6?")) else "5"),
                          TASKS, "some")
    assert compared(right, some).endswith("the intervals overlap: on these tasks neither is shown to be better")


def test_bad_input_is_one_clear_error():
    with pytest.raises(CourseError, match="at least one task"):
        evaluate_agent(agent_answering(lambda q: "4"), [], "none")
    with pytest.raises(CourseError, match="task 1 twice"):
        evaluate_agent(agent_answering(lambda q: "4"), [TASKS[1], TASKS[1]], "twice")
    no_run = evaluate_agent(lambda question: "an answer", TASKS, "no run")  # each task fails, and says why
    assert not any(r.passed for r in no_run.results)
    assert all(r.reason == "run_on returned str, not the agent's Run (from agent.run(question))" for r in no_run.results)
    one = evaluate_agent(agent_answering(lambda q: "4"), TASKS[:1], "one")
    with pytest.raises(CourseError, match="ran different tasks"):
        compared(one, evaluate_agent(agent_answering(lambda q: "4"), TASKS[1:2], "other"))
