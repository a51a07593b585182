"""teachagent: the helper package of a course on how an AI agent works.

Each module holds one idea and names the notebook that introduces it. Importing the
package loads none of the heavy libraries (anthropic, tiktoken, matplotlib, ipywidgets);
each is imported inside the function that needs it.
"""

from .agent import Agent, AgentError
from .dispatch import Dispatcher
from .messages import STOP_REASONS, Message, Response, StopReason, Text, ToolCall, ToolResult, Usage, show
from .models import Model, ScriptedModel, ScriptExhausted, call, latest_results, tool_exchanges
from .modes import select_model
from .tokens import context_tokens, count_tokens, message_tokens
from .tools import Tool, read_file_tool, tool
from .trace import Run, Step
from .viz import StepViewer, run_html

__all__ = [
    "STOP_REASONS",
    "Agent",
    "AgentError",
    "Dispatcher",
    "Message",
    "Model",
    "Response",
    "ScriptExhausted",
    "ScriptedModel",
    "Run",
    "Step",
    "StepViewer",
    "StopReason",
    "Text",
    "Tool",
    "ToolCall",
    "ToolResult",
    "Usage",
    "call",
    "context_tokens",
    "count_tokens",
    "latest_results",
    "message_tokens",
    "read_file_tool",
    "run_html",
    "select_model",
    "show",
    "tool",
    "tool_exchanges",
]
