"""A local fake of OpenAI's chat completions, for testing the `OpenAICompatible` adapter.

The same idea as fake_anthropic.py, whose server and network faults it reuses: the real
`openai` SDK talks to this stdlib server on 127.0.0.1, the test scripts what it answers
and reads back what was sent. Nothing here touches the internet.

    with FakeOpenAI() as fake:
        fake.queue((200, completion_body("hi"), {}))
        OpenAICompatible("m", base_url=fake.base_url).complete("", [Message("user", "hello")])
        assert fake.requests[0].body["messages"] == [...]
"""

from __future__ import annotations

import json
from typing import Any

from fake_anthropic import FakeAnthropic, Reply


def function_call(id: str, name: str, arguments: Any) -> dict[str, Any]:
    """A tool call in the chat API's shape; `arguments` is sent as given if a str, else as its JSON."""
    written = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": id, "type": "function", "function": {"name": name, "arguments": written}}


def completion_body(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str = "stop",
    *,
    model: str = "fake-model",
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A valid chat-completion response body."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-fake01",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def openai_error(message: str, kind: str = "server_error", **extra: Any) -> dict[str, Any]:
    """An error body in the API's shape (llama.cpp adds fields such as n_prompt_tokens)."""
    return {"error": {"message": message, "type": kind, "code": None, **extra}}


class FakeOpenAI(FakeAnthropic):
    """A scripted chat-completions API on 127.0.0.1:<random port>; `base_url` ends in /v1 as the SDK expects."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _answer(self, path: str, body: Any) -> Reply:
        if path != "/v1/chat/completions":
            return 404, openai_error(f"fake_openai only serves POST /v1/chat/completions, not {path}"), {}
        try:
            return self.replies.popleft()
        except IndexError:
            if self.responder:
                return self.responder(body)
            message = "fake_openai: no scripted reply left; queue one more in the test"
            return 500, openai_error(message), {"x-should-retry": "false"}
