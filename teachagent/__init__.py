"""teachagent: the helper package of a course on how an AI agent works.

Every lesson imports what it uses from here: `from teachagent import ...`. The names
are listed below by the lesson that introduces them, each with the module it lives in;
each module holds one idea and names its notebook. The ideas sit in this folder; what
they stand on (errors, display, schemas, file formats) is in `base/`, and the course
machinery around them (modes, replay, notebook runner, views, plots, widgets) is in
`course/`, which no idea imports (scripts/import_graph.py checks the floors).

A name's module is imported the first time the name is asked for (`__getattr__`
below), so `import teachagent` costs almost nothing and a lesson pays only for what it
uses; the heavy libraries (anthropic, tiktoken, matplotlib, ipywidgets, jsonschema, mcp) are
imported inside the functions that need them.
"""

from __future__ import annotations

import importlib
from typing import Any

# lesson: {module: "its names"}; "shown=real" exports the module's `real` as `shown`.
LESSONS: dict[str, dict[str, str]] = {
    "lesson 1: a bare chat with a stateless model": {
        "claude": "Claude",
        "messages": "STOP_REASONS STOPS Message Response StopReason Text ToolCall ToolResult show",
        "thinking": "RedactedThinking Thinking",
        "usage": "Usage",
        "models": "Model is_scripted",
        "scripted": "ScriptedModel ScriptExhausted call latest_results tool_exchanges",
        "openai_compatible": "OpenAICompatible",
        "course.modes": "select_model",
        "course.reference": "Runs beside beside_reference compare_line describe show_beside undefined_because",
        "trace": "says_something",
        "base.display": "grouped plural",
        "tokens": "context_tokens count_tokens message_tokens tools_tokens",
    },
    "lesson 2: tools": {
        "requests": "messages_api_request=request_body",
        "dispatch": "Dispatcher",
        "openai_compatible": "chat_request",
        "course.local": "json_tools_request",
        "tools": "Tool read_file_tool tool",
        "answers": "AnswerForm",
        "agent": "no_tools_after_a_result",
        "scripted": "ScriptBreaksToolChoice",
        "estimate": "Estimate",
        "measurement": "Design Measurement Trial measure measurement_table",
    },
    "lesson 3: the agent loop, its record, and you as the model": {
        "agent": "Agent AgentError",
        "human": "HumanModel",
        "sampling": "Choices SampledScriptedModel one_of",
        "trace": "OUTCOMES Outcome Run Step",
        "course.viz": "StepViewer run_html",
        "course.widgets": "play",
        "course.replay": "real_model_run real_model_measurement",
    },
    "lesson 4: memory": {
        "memory": "MemoryStore memory_tools",
        "base.errors": "PromptTooLong",
        "plan": "find_plan write_plan",
        "window": "WithWindow",
        "course.viz": "compare_runs",
    },
    "lesson 5: the research example": {
        "research.calculator": "calculate evaluate",
        "research.corpus": "Library",
        "research.researcher": "QUESTION kl_expression read_everything research_agent search_and_excerpt "
                               "system_prompt",
    },
    "lesson 6: what the loop costs": {
        "cost": "PRICES PRICES_CHECKED Price cached_usages compare_Z fitted_d predicted_total priced_usage run_cost",
        "compaction": "Compaction is_compacted",
        "course.plots": "plot_cumulative plot_growth plot_task_success",
    },
    "lesson 7: how often a long task succeeds": {
        "reliability": "floor_n50 n50 n50_approx step_success task_success",
        "simulation": "flaky_agent run_flaky_agents simulate",
        "steps_alone": "AfterRightSteps product",
        "checked_runs": "CheckedMeasurement CheckedTrial measure_checked",
        "course.widgets": "SuccessExplorer",
    },
    "lesson 8: the capstone, and an evaluation over tasks": {
        "evaluation": "EvalTask Evaluation TaskResult compared evaluate_agent",
    },
    "lesson 9: tools from another process (MCP)": {
        "remote_tools": "MCPServerError MCPToolError MCPTools mcp_tools",
        "course.mcp_server": "course_server_command",
    },
}

WHERE: dict[str, tuple[str, str]] = {  # each exported name: (its module, its name there)
    shown.partition("=")[0]: (module, shown.partition("=")[2] or shown)
    for modules in LESSONS.values() for module, names in modules.items() for shown in names.split()
}
__all__ = list(WHERE)


def __getattr__(name: str) -> Any:
    """The exported `name`, imported from its module the first time it is asked for, then kept here."""
    if name not in WHERE:
        raise AttributeError(f"module 'teachagent' has no attribute {name!r}")
    module, real = WHERE[name]
    value = getattr(importlib.import_module(f".{module}", __name__), real)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *WHERE])
