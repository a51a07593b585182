"""teachagent: the helper package of a course on how an AI agent works.

Each module holds one idea and names the notebook that introduces it. Importing the
package loads none of the heavy libraries (anthropic, tiktoken, matplotlib, ipywidgets);
each is imported inside the function that needs it.
"""

from .messages import STOP_REASONS, Message, Response, StopReason, Text, ToolCall, ToolResult, Usage, show
from .models import Model, ScriptedModel, ScriptExhausted, call, latest_results, select_model
from .tokens import context_tokens, count_tokens, message_tokens

__all__ = [
    "STOP_REASONS",
    "Message",
    "Model",
    "Response",
    "ScriptExhausted",
    "ScriptedModel",
    "StopReason",
    "Text",
    "ToolCall",
    "ToolResult",
    "Usage",
    "call",
    "context_tokens",
    "count_tokens",
    "latest_results",
    "message_tokens",
    "select_model",
    "show",
]
