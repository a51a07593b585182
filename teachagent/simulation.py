"""Measuring how often a long task succeeds (introduced in notebooks/07_reliability.ipynb).

reliability.py gives the formula: a checked step succeeds with probability q, a task of
n steps with qⁿ. Here we measure the same numbers two ways and put a 95 % confidence
interval around each measured rate: by simulating checked steps with a seeded random
generator, and by running the real `Agent` loop on a task whose tool works only with
probability p, checked by a tool that catches a failure only with probability δ (`delta`).
A measured rate is an `Estimate` (estimate.py): successes out of trials, with the interval.
"""

from __future__ import annotations

import random

from .agent import Agent
from .base.errors import check_number
from .estimate import Estimate
from .messages import Message, Text
from .reliability import step_success
from .scripted import Reply, ScriptedModel, call, tool_exchanges
from .tools import tool


def checked_step(p: float, delta: float, r: int, rng: random.Random) -> bool:
    """Play one checked step with random attempts and checks; True if it ends in success."""
    for _ in range(r + 1):
        if rng.random() < p:
            return True
        if rng.random() >= delta:  # the failure slipped past the check
            return False
    return False  # every retry was used up


def simulate(p: float, delta: float, r: int, n: int, trials: int, seed: int = 0) -> Estimate:
    """Run `trials` tasks of n checked steps; count those where every step succeeded."""
    step_success(p, delta, r)  # validates p, delta, r
    check_number("n", n, whole=True, at_least=1, at_most=10**6)
    check_number("trials", trials, whole=True, at_least=1, at_most=10**7)
    check_number("trials × n × (r + 1), the most steps to simulate,", trials * n * (r + 1), at_most=10**8)
    rng = random.Random(seed)
    wins = sum(all(checked_step(p, delta, r, rng) for _ in range(n)) for _ in range(trials))
    return Estimate(wins, trials)


def flaky_agent(p: float, delta: float, r: int, n: int, rng: random.Random,
                check: bool = True) -> tuple[Agent, dict[str, dict[int, bool]]]:
    """An agent that must do n steps with a tool that works with probability p, checked by a
    tool that catches a failure with probability δ (`delta`), retrying a caught failure up to r times.
    With `check=False` it never checks: one call per step, what the checked agent's extra calls are measured against.

    Returns the agent and the ground truth that the tools record (which steps really
    succeeded), so a run can be scored without trusting what the agent says.
    """
    step_success(p, delta, r)  # validates p, delta, r
    check_number("n", n, whole=True, at_least=1, at_most=10**4)
    truth: dict[str, dict[int, bool]] = {"done": {}}

    @tool(timeout=None)
    def do_step(step: int) -> str:
        """Carry out one step of the task."""
        truth["done"][step] = rng.random() < p
        return f"step {step} attempted"

    @tool(timeout=None)
    def check_step(step: int) -> str:
        """Check the result of a step."""
        caught = not truth["done"][step] and rng.random() < delta
        return f"step {step}: check FAILED" if caught else f"step {step}: check passed"

    def unchecked(messages: list[Message]) -> Reply:
        step = len(tool_exchanges(messages)) + 1  # every call so far attempted one step
        return call("do_step", step=step) if step <= n else f"All {n} steps done."

    def policy(messages: list[Message]) -> Reply:
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

    if not check:
        return Agent(ScriptedModel(unchecked, name="scripted, unchecked"), [do_step], max_steps=n + 1), truth
    model = ScriptedModel(policy, name="scripted checker")
    return Agent(model, [do_step, check_step], max_steps=2 * n * (r + 1) + 1), truth


def run_flaky_agents(p: float, delta: float, r: int, n: int, runs: int, seed: int = 0) -> Estimate:
    """Run the real agent loop `runs` times; a run succeeds when every step truly succeeded."""
    check_number("runs", runs, whole=True, at_least=1, at_most=10**6)
    step_success(p, delta, r)  # validates p, delta, r before the product below
    check_number("n", n, whole=True, at_least=1, at_most=10**4)
    check_number("runs × n × (r + 1), the most agent steps to run,", runs * n * (r + 1), at_most=10**6)
    rng, wins = random.Random(seed), 0
    for _ in range(runs):
        agent, truth = flaky_agent(p, delta, r, n, rng)
        agent.run(f"Do the {n} steps of the task, checking each one.")
        wins += len(truth["done"]) == n and all(truth["done"].values())
    return Estimate(wins, runs)
