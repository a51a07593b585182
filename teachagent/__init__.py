"""teachagent: the helper package of a course on how an AI agent works.

Every lesson imports what it uses from here: `from teachagent import ...`. The names
are grouped below by the lesson that introduces them; each module holds one idea and
names its notebook. The ideas sit in this folder; what they stand on (errors, display,
schemas, file formats) is in `base/`, and the course machinery around them (modes,
replay, notebook runner, views, plots, widgets) is in `course/`, which no idea imports
(scripts/import_graph.py checks the floors). Importing the package loads none of the heavy libraries (anthropic,
tiktoken, matplotlib, ipywidgets, jsonschema); each is imported inside the function that
needs it.
"""

# lesson 1: a bare chat with a stateless model
from .claude import Claude
from .messages import (
    STOP_REASONS,
    STOPS,
    Message,
    RedactedThinking,
    Response,
    StopReason,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Usage,
    latest_results,
    show,
    tool_exchanges,
)
from .models import Model, ScriptedModel, ScriptExhausted, call, is_scripted
from .openai_compatible import OpenAICompatible
from .course.modes import select_model
from .course.reference import answered, beside_reference, compare_line, describe, undefined_because
from .trace import is_answer
from .base.display import grouped, plural
from .tokens import context_tokens, count_tokens, message_tokens, tools_tokens

# lesson 2: tools
from .messages import request_body as messages_api_request
from .dispatch import Dispatcher
from .openai_compatible import chat_request
from .course.local import json_tools_request
from .tools import Tool, read_file_tool, tool
from .answers import AnswerForm
from .agent import no_tools_after_a_result
from .models import ScriptBreaksToolChoice
from .estimate import Estimate
from .measurement import Design, Measurement, Trial, measure, measurement_table
from .course.replay import real_model_measurement

# lesson 3: the agent loop, its record, and you as the model
from .agent import Agent, AgentError
from .human import HumanModel
from .sampling import Choices, SampledScriptedModel, one_of
from .trace import OUTCOMES, Outcome, Run, Step
from .course.viz import StepViewer, run_html
from .course.widgets import play
from .course.replay import real_model_run

# lesson 4: memory
from .memory import MemoryStore, memory_tools
from .models import PromptTooLong
from .plan import find_plan, write_plan
from .window import WithWindow
from .course.viz import compare_runs

# lesson 5: the research example
from .research.calculator import calculate, evaluate
from .research.corpus import Library
from .research.researcher import QUESTION, kl_expression, read_everything, research_agent, search_and_excerpt, system_prompt

# lesson 6: what the loop costs
from .cost import (
    PRICES, PRICES_CHECKED, Price, cached_usages, compare_Z, fitted_d, predicted_total, priced_usage, run_cost,
)
from .compaction import Compaction, is_compacted
from .course.plots import plot_cumulative, plot_growth, plot_task_success

# lesson 7: how often a long task succeeds
from .reliability import floor_n50, n50, n50_approx, step_success, task_success
from .simulation import flaky_agent, run_flaky_agents, simulate
from .steps_alone import AfterRightSteps, product
from .checked_runs import CheckedMeasurement, CheckedTrial, measure_checked
from .course.widgets import SuccessExplorer

# lesson 8: the capstone, and an evaluation over tasks
from .evaluation import EvalTask, Evaluation, TaskResult, compared, evaluate_agent

__all__ = [
    # lesson 1
    "Claude", "STOPS", "STOP_REASONS", "Message", "Model", "OpenAICompatible", "RedactedThinking", "Response",
    "ScriptExhausted", "ScriptedModel", "StopReason", "Text", "Thinking", "ToolCall", "ToolResult", "Usage",
    "answered", "beside_reference", "call", "compare_line", "context_tokens", "count_tokens", "describe", "grouped",
    "is_answer", "is_scripted", "latest_results", "message_tokens", "plural", "select_model", "show", "tool_exchanges",
    "tools_tokens", "undefined_because",
    # lesson 2
    "AnswerForm", "Design", "Dispatcher", "Estimate", "Measurement", "ScriptBreaksToolChoice", "Tool", "Trial",
    "chat_request", "json_tools_request", "measure", "measurement_table", "messages_api_request",
    "no_tools_after_a_result", "read_file_tool", "real_model_measurement", "tool",
    # lesson 3
    "Agent", "AgentError", "HumanModel", "OUTCOMES", "Outcome", "Run", "Step", "StepViewer", "play", "run_html",
    "Choices", "SampledScriptedModel", "one_of", "real_model_run",
    # lesson 4
    "MemoryStore", "PromptTooLong", "WithWindow", "compare_runs", "find_plan", "memory_tools", "write_plan",
    # lesson 5
    "Library", "QUESTION", "calculate", "evaluate", "kl_expression", "read_everything", "research_agent",
    "search_and_excerpt", "system_prompt",
    # lesson 6
    "PRICES", "PRICES_CHECKED", "Price", "cached_usages", "compare_Z", "fitted_d", "plot_cumulative",
    "plot_growth", "predicted_total", "priced_usage", "run_cost", "Compaction", "is_compacted",
    # lesson 7
    "AfterRightSteps", "CheckedMeasurement", "CheckedTrial", "SuccessExplorer", "flaky_agent", "floor_n50", "n50",
    "n50_approx", "plot_task_success", "run_flaky_agents", "measure_checked", "product", "simulate", "step_success",
    "task_success",
    # lesson 8
    "EvalTask", "Evaluation", "TaskResult", "compared", "evaluate_agent",
]
