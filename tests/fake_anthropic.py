"""A local fake of the Anthropic Messages API, for testing the `Claude` adapter.

Why it exists: `teachagent.claude.Claude` is a thin translation layer, and what can go
wrong with it lives in the official SDK's real HTTP code path (the request it builds,
its retries, the exceptions it raises, how it parses odd replies). Mocking the SDK
would only test the mock, and calling the real API would make tests slow, flaky and
costly. So tests point the real SDK at this server on 127.0.0.1, script what it
answers, and read back what was sent. Nothing here ever touches the internet.

    with FakeAnthropic() as fake:
        fake.queue((200, message_body([text_block("hi")]), {}))
        Claude(..., base_url=fake.base_url).complete("", [Message("user", "hello")])
        assert fake.requests[0].body["messages"] == [...]
"""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union


@dataclass
class Reset:
    """Send a 200 promising a full body, write only `partial` of it, then drop the connection."""

    partial: bytes = b'{"id": "msg_cut", "content": ['


@dataclass
class Slow:
    """Wait `seconds` before answering with `reply` (a client with a shorter timeout gives up first)."""

    seconds: float
    reply: Any


@dataclass
class Drip:
    """Answer 200 with `reply`'s body, one byte every `every` seconds (each read succeeds, the call drags on)."""

    reply: Any
    every: float = 0.2


@dataclass
class Flood:
    """Answer 200 with `size` bytes of one endless JSON string, in chunks and without announcing a length."""

    size: int


@dataclass
class Gzipped:
    """Answer 200 with `reply`'s JSON body gzip-compressed, although the client asked for none.

    `padding` bytes of spaces go after the JSON (still valid JSON): a million of them
    compress to about a kilobyte, which is how a small body inflates past any cap.
    """

    reply: Any
    padding: int = 0


@dataclass
class EchoAuthorization:
    """Answer `status` with an error body that quotes the request's Authorization header, as some proxies do."""

    status: int = 401


@dataclass
class EchoInReply:
    """Answer 200 with the body `make(authorization)` builds from the request's Authorization header:
    a server (or a proxy) that quotes the header inside an otherwise good reply."""

    make: Callable[[str], Any]


# A scripted reply: (status, JSON body, extra headers); raw bytes sent as a 200
# "application/json" body that is not JSON (what a broken proxy might hand back);
# or one of the network faults above.
Reply = Union[tuple[int, Any, dict[str, str]], bytes, Reset, Slow, Drip, Flood, Gzipped, EchoAuthorization, EchoInReply]  # noqa: UP007 (a tuple type | ... fails on 3.10)

# Tells the SDK to wait 1 ms before retrying, instead of its half-second backoff.
RETRY_FAST = {"retry-after-ms": "1"}


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_use_block(id: str, name: str, input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def thinking_block(thinking: str = "", signature: str = "EqQBCkgIBxABGAIiQL4sig+fake==") -> dict[str, Any]:
    """A thinking block as Claude Haiku 5.5 sends it by default: text omitted, signature kept."""
    return {"type": "thinking", "thinking": thinking, "signature": signature}


def redacted_thinking_block(data: str = "EmwKAhgBEgy3va3pzix/LafPsn4aDFITfake") -> dict[str, Any]:
    return {"type": "redacted_thinking", "data": data}


def message_body(
    content: list[dict[str, Any]],
    stop_reason: str = "end_turn",
    *,
    model: str = "claude-test",
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A valid Messages API response body."""
    return {
        "id": "msg_fake_01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage
        or {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
    }


def error_body(kind: str, message: str) -> dict[str, Any]:
    """An error body in the API's shape, e.g. kind='rate_limit_error'."""
    return {"type": "error", "error": {"type": kind, "message": message}}


def policy_server(policies: list) -> Callable[[dict], Reply]:
    """A responder that plays teachagent's scripted policies as if it were Claude, one conversation each.

    A conversation that starts afresh (one message) takes the next policy in turn; the
    policy's reply is sent back in the Messages API's shape, so it goes through the real SDK.
    """
    from teachagent.messages import Message
    from teachagent.scripted import ScriptedModel

    turn: dict[str, Any] = {"policy": None, "next": 0}

    def respond(body: dict) -> Reply:
        messages = [Message.from_dict(m) for m in body["messages"]]
        if len(messages) == 1:
            turn["policy"], turn["next"] = ScriptedModel(policies[turn["next"] % len(policies)]), turn["next"] + 1
        reply = turn["policy"].complete(body.get("system", ""), messages, body.get("tools", []), body["max_tokens"])
        usage = {"input_tokens": reply.usage.input_tokens, "output_tokens": reply.usage.output_tokens}
        return 200, message_body([b.to_dict() for b in reply.content], reply.stop_reason, usage=usage), {}

    return respond


@dataclass
class Recorded:
    """One request the fake received. Header names are lower-cased."""

    path: str
    headers: dict[str, str]
    body: Any


class FakeAnthropic:
    """A scripted Messages API on 127.0.0.1:<random port>, served from a daemon thread."""

    started = 0  # how many fakes this process has started: a test that starts one is marked `server` (conftest.py)

    def __init__(self, responder: Callable[[dict], Reply] | None = None, counter: Callable[[dict], int] | None = None) -> None:
        self.responder = responder  # answers from the request body once the queue is empty
        # answers POST /v1/messages/count_tokens; by default a rough count of the body
        self.counter = counter or (lambda body: len(json.dumps(body)) // 3)
        self.replies: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.handle_error = lambda request, address: None  # a client that hung up on purpose is no error here
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def queue(self, *replies: Reply) -> None:
        """Script the next answers, one per request, in order."""
        self.replies.extend(replies)

    def __enter__(self) -> FakeAnthropic:
        FakeAnthropic.started += 1
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _answer(self, path: str, body: Any) -> Reply:
        if path == "/v1/messages/count_tokens":
            return 200, {"input_tokens": self.counter(body)}, {}
        if path != "/v1/messages":
            return 404, error_body("not_found_error", f"fake_anthropic only serves POST /v1/messages, not {path}"), {}
        try:
            return self.replies.popleft()
        except IndexError:
            if self.responder:
                return self.responder(body)
            # a test bug, not an API condition: say so, and tell the SDK not to retry
            message = "fake_anthropic: no scripted reply left; queue one more in the test"
            return 500, error_body("api_error", message), {"x-should-retry": "false"}


def _handler_for(fake: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 5  # a stalled client cannot hold a handler thread for longer

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            headers = {k.lower(): v for k, v in self.headers.items()}
            fake.requests.append(Recorded(self.path, headers, json.loads(raw)))
            reply = fake._answer(self.path.partition("?")[0], fake.requests[-1].body)  # the query is kept in .path
            if isinstance(reply, Slow):
                time.sleep(min(reply.seconds, 5))  # bounded, like every wait here
                reply = reply.reply
            if isinstance(reply, EchoAuthorization):
                echoed = {"error": {"type": "authentication_error", "code": "invalid_api_key",
                                    "message": f"invalid credentials: {self.headers.get('authorization')}"}}
                self._send(reply.status, json.dumps(echoed).encode(), {"x-should-retry": "false"})
            elif isinstance(reply, EchoInReply):
                self._send(200, json.dumps(reply.make(self.headers.get("authorization") or "")).encode(), {})
            elif isinstance(reply, Gzipped):
                packed = gzip.compress(json.dumps(reply.reply).encode() + b" " * reply.padding, compresslevel=9)
                self._send(200, packed, {"content-encoding": "gzip"})
            elif isinstance(reply, Flood):
                self._flood(reply.size)
            elif isinstance(reply, Drip):
                self._drip(json.dumps(reply.reply).encode(), reply.every)
            elif isinstance(reply, Reset):
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(reply.partial) + 1000))
                self.end_headers()
                self.wfile.write(reply.partial)
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
            elif isinstance(reply, bytes):
                self._send(200, reply, {})
            else:
                status, body, extra = reply
                self._send(status, json.dumps(body).encode(), extra)

        def _drip(self, data: bytes, every: float) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            deadline = time.monotonic() + 10  # bounded, like every wait here
            try:
                for i in range(len(data)):
                    if time.monotonic() > deadline:
                        break
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
                    time.sleep(every)
            except OSError:
                pass  # the client gave up and closed the connection: what the test wants

        def _flood(self, size: int) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            chunk = b"x" * 65536
            try:
                head = b'{"id": "'
                self.wfile.write(b"%x\r\n%s\r\n" % (len(head), head))
                for _ in range(size // len(chunk)):  # bounded by size; stops when the client hangs up
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass  # the client stopped reading and closed the connection: what the test wants
            self.close_connection = True

        def _send(self, status: int, data: bytes, extra: dict[str, str]) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep pytest output clean

    return Handler
