"""Every number a learner or a model can set goes through `check_number`: one table of bad values, one message style."""

from __future__ import annotations

import math
import re

import pytest

from teachagent import (
    Agent,
    Claude,
    Estimate,
    MemoryStore,
    Price,
    ScriptedModel,
    Tool,
    n50,
    n50_approx,
    plot_task_success,
    predicted_total,
    read_file_tool,
    run_flaky_agents,
    simulate,
    step_success,
    task_success,
    tool,
)
from teachagent.base.errors import CourseError, SettingError
from teachagent.simulation import flaky_agent

# NaN, the infinities, negatives, bools, text, None where a number is needed, and absurd sizes
BAD = [math.nan, math.inf, -math.inf, -1, -0.5, True, False, "5", b"5", [1], 1e300, 10**400, 10**12 + 0.5]


def echo(text: str) -> str:
    """Echo."""
    return text


def a_price(**changed):
    return Price(**{"input": 1.0, "output": 5.0, "cache_write": 1.25, "cache_read": 0.1, **changed})


# one entry per setting: (name in the message, a function that sets it to the value)
SETTINGS = {
    "max_steps": lambda v: Agent(ScriptedModel(["x"]), max_steps=v),
    "max_tokens": lambda v: Agent(ScriptedModel(["x"]), max_tokens=v),
    "max_context_tokens": lambda v: Agent(ScriptedModel(["x"]), max_context_tokens=v),
    "max_input_tokens": lambda v: Agent(ScriptedModel(["x"]), max_input_tokens=v),
    "max_dollars": lambda v: Agent(ScriptedModel(["x"]), max_dollars=v, price=a_price()),
    "the timeout of tool 't'": lambda v: Tool("t", "d", {"type": "object"}, echo, timeout=v),
    "the timeout of tool 'echo'": lambda v: tool(timeout=v)(echo),
    "read_file_tool: max_chars": lambda v: read_file_tool(".", max_chars=v),
    "timeout": lambda v: Claude("m", api_key="k", timeout=v),
    "max_retries": lambda v: Claude("m", api_key="k", max_retries=v),
    "MemoryStore timeout": lambda v: MemoryStore(":memory:", timeout=v),
    "limit": lambda v: MemoryStore(":memory:").search("x", limit=v),
    "the input price": lambda v: a_price(input=v),
    "the output price": lambda v: a_price(output=v),
    "the cache_write price": lambda v: a_price(cache_write=v),
    "the cache_read price": lambda v: a_price(cache_read=v),
    "long_prompt_from": lambda v: a_price(long_prompt_from=v),
    "long_prompt_factor": lambda v: a_price(long_prompt_factor=v),
    "K": lambda v: predicted_total(v, 100, 10),
    "c1": lambda v: predicted_total(10, v, 10),
    "d": lambda v: predicted_total(10, 100, v),
    "p": lambda v: step_success(v, 0.5, 1),
    "r": lambda v: step_success(0.5, 0.5, v),
    "q": lambda v: task_success(v, 3),
    "n": lambda v: task_success(0.5, v),
    "q ": lambda v: n50(v),
    "q  ": lambda v: n50_approx(v),
    "trials": lambda v: simulate(0.9, 0.9, 1, 2, trials=v),
    "n  ": lambda v: simulate(0.9, 0.9, 1, v, trials=10),
    "runs": lambda v: run_flaky_agents(0.9, 0.9, 1, 2, runs=v),
    "n   ": lambda v: flaky_agent(0.9, 0.9, 1, v, rng=None),
    "successes": lambda v: Estimate(successes=v, trials=10),
    "trials ": lambda v: Estimate(successes=0, trials=v),
    "n_max": lambda v: plot_task_success(0.9, 0.9, 1, n_max=v),
}


@pytest.mark.parametrize("value", BAD, ids=repr)
@pytest.mark.parametrize("name", list(SETTINGS))
def test_every_setting_refuses_every_bad_value_in_one_style(name, value):
    with pytest.raises(SettingError) as caught:
        SETTINGS[name](value)
    message = str(caught.value)
    assert isinstance(caught.value, CourseError) and isinstance(caught.value, ValueError)
    assert re.fullmatch(rf"{re.escape(name.strip())} must be (a|a whole) number [^\n]*, got [^\n]{{1,70}}", message), message


def test_the_product_of_simulation_sizes_is_bounded_too():
    with pytest.raises(SettingError, match=r"trials × n × \(r \+ 1\), the most steps to simulate, must be a number at most"):
        simulate(0.9, 0.9, 100, 1000, trials=10**6)
    with pytest.raises(SettingError, match=r"runs × n × \(r \+ 1\), the most agent steps to run, must be"):
        run_flaky_agents(0.9, 0.9, 100, 1000, runs=1000)
