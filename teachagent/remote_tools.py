"""Tools from another process: an MCP server's tools as ordinary `Tool`s (notebooks/09_mcp.ipynb).

A tool is four things (lesson 2): a name, a description, a schema, and a procedure. The
Model Context Protocol (MCP) keeps the first three and moves the fourth into another
program, an MCP server, which the client starts and talks to over its standard input and
output, one JSON-RPC message per line. `tools/list` returns the three parts the model
reads; `tools/call` runs the procedure over there and returns text, flagged `isError`
when it failed.

`mcp_tools(command)` starts such a server, lists its tools, and gives each one back as a
`Tool` whose procedure sends `tools/call`. The dispatcher, the loop, budgets, approvals,
the step viewer, recording and replay cannot tell the difference: they only ever see
`Tool`s. What changes is what can go wrong, and each way becomes one error result:

- the server answers `isError`: its text comes back as the error (`MCPToolError: ...`);
- it does not answer within `timeout` seconds: the request is cancelled, and the error says so;
- it ended, or wrote lines that are not MCP messages: the error says that, with the last
  line it wrote on its standard error;
- its result is larger than `MAX_RESULT_CHARS`, or breaks the output schema it declared:
  refused, saying so.

A listed tool whose name, description or schema the course cannot offer to a model is
left out, with the reason in `skipped`. Tools the server does not mark read-only
(`readOnlyHint`) ask a person first (`ask_first`, lesson 2), unless told otherwise.

The official `mcp` SDK does the protocol (`ClientSession` over `stdio_client`). It is
asynchronous, and a `Tool`'s procedure is an ordinary function, so each server gets an
event loop on a thread of its own, and a call waits for its answer there, for at most
`timeout` seconds. The server process ends with `close()`, at the end of a `with` block,
or when the program (or the notebook's kernel) ends. Importing the SDK takes about a
second, so it happens here only when a server is started.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import json
import logging
import os
import threading
import weakref
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from .base.display import shorten
from .base.errors import CourseError, check_number, exception_text
from .base.schema import input_validator
from .tools import TOOL_TIMEOUT, Tool

START_TIMEOUT = 60.0  # seconds a server may take to start and list its tools (importing the SDK alone takes ~1 s)
GRACE = 1.0  # the Tool's own time limit is this much longer, so the server's silence is reported by the call itself
MAX_RESULT_CHARS = 1_000_000  # the longest result passed on to a model: about the size of read_file's largest
MAX_PAGES = 50  # pages of tools/list followed: a server that never stops paging cannot hang the start
STDERR_KEPT = 4000  # characters of the server's standard error kept, to say what it last said
STDERR_SETTLE = 1.0  # seconds a closed connection waits for the rest of the server's standard error


class MCPToolError(Exception):
    """A call to an MCP tool failed: what the server said, or what went wrong talking to it."""


class MCPServerError(CourseError, RuntimeError):
    """An MCP server could not be started, or its list of tools could not be read."""


def mcp_tools(
    command: Sequence[str],
    *,
    timeout: float = TOOL_TIMEOUT,
    start_timeout: float = START_TIMEOUT,
    ask_first: bool | Collection[str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> MCPTools:
    """Start the MCP server `command` (a program and its arguments) and return its tools.

    Use it as `with mcp_tools([...]) as server: Agent(model, server.tools)`, or keep it and
    call `server.close()`. `timeout` is how long one call may wait for its answer;
    `ask_first` is True (every tool asks a person first), False (none does), a collection
    of tool names, or None: every tool the server does not mark read-only.
    """
    return MCPTools(command, timeout=timeout, start_timeout=start_timeout, ask_first=ask_first, env=env, cwd=cwd)


def tool_from_listing(listed: Mapping[str, Any], procedure: Callable[..., str], timeout: float | None = TOOL_TIMEOUT,
                      ask_first: bool = False) -> Tool:
    """A `Tool` from one entry of `tools/list`: its name, description and `inputSchema`, and `procedure`.

    Raises ValueError, saying why, for an entry no model could be offered: a name the
    Messages API refuses, or a schema that is not a valid JSON schema for an object.
    A tool the server gave no description gets one that says so.
    """
    name, schema = listed.get("name"), listed.get("inputSchema")
    description = listed.get("description") or listed.get("title") or f"{name} (its server gave no description)"
    if not isinstance(description, str):
        raise ValueError(f"its description is not text: {shorten(repr(description), 100)}")
    made = Tool(name=name, description=description, input_schema=schema, fn=procedure,  # type: ignore[arg-type]
                timeout=timeout, ask_first=ask_first)
    input_validator(made.input_schema)  # a schema the dispatcher could not check is refused now, not at the first call
    return made


def result_text(result: Mapping[str, Any]) -> tuple[str, bool]:
    """(text, is_error) of a `tools/call` result: its text blocks joined by newlines, and its `isError` flag.

    A block that is not text (an image, audio, a resource) is named in brackets, since a
    tool result here is text; a result with no blocks but `structuredContent` gives that as JSON.
    """
    parts = []
    for block in result.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            parts.append(block.get("text", ""))
        elif kind == "resource" and isinstance(block.get("resource", {}).get("text"), str):
            parts.append(block["resource"]["text"])
        else:
            parts.append(f"[{kind or 'unknown'} content ({block.get('mimeType', 'no type given')}): not shown, "
                         "as a tool result here is text]")
    if not parts and result.get("structuredContent") is not None:
        parts.append(json.dumps(result["structuredContent"], ensure_ascii=False))
    return "\n".join(parts), result.get("isError") is True


class _StderrTail:
    """The server's standard error, read on a thread; only its last `STDERR_KEPT` characters are kept."""

    def __init__(self) -> None:
        reader, writer = os.pipe()
        self.writer = os.fdopen(writer, "w")  # handed to the server as its stderr
        self._reader = os.fdopen(reader, "rb", buffering=0)
        self._kept = b""
        self._thread = threading.Thread(target=self._read, name="teachagent MCP stderr", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        with self._reader:
            while chunk := self._reader.read(4096):
                self._kept = (self._kept + chunk)[-STDERR_KEPT:]

    def last_line(self, settle: float = 0.0) -> str:
        """The last line written, waiting up to `settle` seconds for the pipe to end first: a server that
        has just died may have written its last words a moment before this thread read them."""
        self._thread.join(settle)
        lines = [line for line in self._kept.decode("utf-8", "replace").splitlines() if line.strip()]
        return f"; the last line it wrote to stderr: {shorten(lines[-1].strip(), 300)!r}" if lines else ""


class MCPTools:
    """One MCP server, started as a process, and its tools as `Tool`s (`.tools`; iterating gives them too).

    `.listing` holds the tools as `tools/list` returned them (JSON), `.skipped` the tools
    left out and why, `.server` the name the server gave in `initialize`.
    """

    def __init__(self, command: Sequence[str], *, timeout: float = TOOL_TIMEOUT, start_timeout: float = START_TIMEOUT,
                 ask_first: bool | Collection[str] | None = None, env: Mapping[str, str] | None = None,
                 cwd: str | None = None) -> None:
        if isinstance(command, str) or not command or not all(isinstance(part, str) for part in command):
            raise MCPServerError("mcp_tools needs the server's command as a list of strings, the program first, "
                                 f"e.g. [sys.executable, 'server.py']; got {shorten(repr(command), 100)}")
        self.command = list(command)
        self.timeout = float(check_number("mcp_tools: timeout", timeout, above=0, at_most=24 * 3600, unit="seconds"))
        check_number("mcp_tools: start_timeout", start_timeout, above=0, at_most=24 * 3600, unit="seconds")
        self.server = self.command[0]
        self.listing: list[dict[str, Any]] = []
        self.skipped: dict[str, str] = {}
        self.tools: list[Tool] = []
        self.closed = False
        self._strays = 0  # lines the server wrote to stdout that are not MCP messages
        self._last_stray = ""
        self._stderr = _StderrTail()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="teachagent MCP client", daemon=True)
        self._thread.start()
        self._session: Any = None
        self._closing: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._ended = threading.Event()  # set when the connection's task has ended, and with it the process
        _open.add(self)
        try:
            listing = self._await(self._start(env, cwd), start_timeout)
        except BaseException as error:
            self.close()
            if isinstance(error, KeyboardInterrupt):
                raise
            raise MCPServerError(self._start_failed(error, start_timeout)) from None
        self._adopt(listing, ask_first)

    # --- starting -------------------------------------------------------------------------

    async def _start(self, env: Mapping[str, str] | None, cwd: str | None) -> list[dict[str, Any]]:
        """Start `_serve` and wait until it has listed the tools (or failed)."""
        self._closing = asyncio.Event()
        listed: asyncio.Future[list[dict[str, Any]]] = self._loop.create_future()
        listed.add_done_callback(lambda f: f.cancelled() or f.exception())  # read, even when nobody waits any more
        self._task = self._loop.create_task(self._serve(listed, env, cwd))
        return await asyncio.shield(listed)

    async def _serve(self, listed: asyncio.Future[list[dict[str, Any]]], env: Mapping[str, str] | None,
                     cwd: str | None) -> None:
        """The connection's whole life, in one task (the SDK's contexts must end where they began)."""
        from mcp.client.session import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        logging.getLogger("mcp").addHandler(logging.NullHandler())  # the SDK logs bad lines; we report them instead
        params = StdioServerParameters(command=self.command[0], args=self.command[1:], env=dict(env or {}), cwd=cwd)
        try:
            async with stdio_client(params, errlog=self._stderr.writer) as (read, write):
                self._stderr.writer.close()  # the server holds its own copy; ours would keep the pipe open for ever
                async with ClientSession(read, write, message_handler=self._noticed) as session:
                    initialized = await session.initialize()
                    self.server = initialized.server_info.name if initialized.server_info else self.server
                    listing = []
                    cursor = None
                    for _ in range(MAX_PAGES):
                        page = await session.list_tools(params=_page(cursor))
                        listing += [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in page.tools]
                        cursor = page.next_cursor
                        if cursor is None:
                            break
                    self._session = session
                    listed.set_result(listing)
                    assert self._closing is not None
                    await self._closing.wait()
        except BaseException as error:
            if not listed.done():
                listed.set_exception(_first_of(error)) if isinstance(error, Exception) else listed.cancel()
            if not isinstance(error, Exception):
                raise
        finally:
            self._stderr.writer.close()
            self._ended.set()

    async def _noticed(self, message: Any) -> None:
        """The SDK's message handler: a line that is not an MCP message arrives here as an exception."""
        if isinstance(message, Exception):
            self._strays += 1
            self._last_stray = _unreadable_line(message)

    def _adopt(self, listing: list[dict[str, Any]], ask_first: bool | Collection[str] | None) -> None:
        """Turn each listed tool into a `Tool`; those that cannot be offered to a model go to `skipped`."""
        self.listing = listing
        for listed in listing:
            name = listed.get("name")
            shown = name if isinstance(name, str) else repr(name)
            if any(t.name == name for t in self.tools):
                self.skipped[shown] = "a second tool of the same name"
                continue
            if ask_first is None:
                asks = (listed.get("annotations") or {}).get("readOnlyHint") is not True
            else:
                asks = ask_first if isinstance(ask_first, bool) else name in ask_first
            try:
                self.tools.append(tool_from_listing(listed, self._procedure(shown), self.timeout + GRACE, asks))
            except (ValueError, TypeError) as problem:
                self.skipped[shown] = " ".join(str(problem).split())[:300]

    def _start_failed(self, error: BaseException, start_timeout: float) -> str:
        """One line on why the server did not start: it could not be run, did not answer, or ended."""
        program = " ".join(self.command)
        if isinstance(error, (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError)):
            why = f"did not answer initialize and tools/list within {start_timeout:g} s"
        elif isinstance(error, OSError):
            why = f"could not be started: {exception_text(error)}"
        elif _closed(error):
            why = "ended before it had listed its tools"
        else:
            why = f"did not list its tools: {exception_text(error, 300)}"
        said = self._stderr.last_line(settle=STDERR_SETTLE if _closed(error) else 0.0)
        return f"the MCP server {shorten(program, 200)!r} {why}{said}{self._stray_note()}"

    # --- calling --------------------------------------------------------------------------

    def _procedure(self, name: str) -> Callable[..., str]:
        """The procedure of tool `name`: send `tools/call` and wait for the text of its result."""

        def call_over_mcp(**arguments: Any) -> str:
            return self.call(name, arguments)

        call_over_mcp.__name__ = call_over_mcp.__qualname__ = name
        return call_over_mcp

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Call tool `name` on the server; its text, or `MCPToolError` saying what went wrong."""
        if self.closed or self._session is None:
            raise MCPToolError(f"the connection to the MCP server {self.server!r} is closed; start it again with mcp_tools")
        try:
            result = self._await(self._session.call_tool(name, arguments), self.timeout)
        except (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError):
            raise MCPToolError(f"the MCP server {self.server!r} did not answer within {self.timeout:g} s; "
                               f"the call was cancelled{self._stray_note()}") from None
        except KeyboardInterrupt:
            raise
        except Exception as error:
            raise MCPToolError(self._call_failed(error)) from None
        text, is_error = result_text(result.model_dump(by_alias=True, mode="json"))
        if len(text) > MAX_RESULT_CHARS:
            raise MCPToolError(f"the MCP server's result is {len(text):,} characters, more than the "
                               f"{MAX_RESULT_CHARS:,} a tool result may hold; it was not passed on")
        if is_error:
            raise MCPToolError(text or "the server reported an error and said nothing more")
        return text

    def _call_failed(self, raised: Exception) -> str:
        """One line on a call that got no usable result: the server ended, refused, or answered nonsense."""
        from mcp.shared.exceptions import MCPError

        error = _first_of(raised)
        if _closed(error):
            return (f"the MCP server {self.server!r} has closed the connection (it ended?)"
                    f"{self._stderr.last_line(settle=STDERR_SETTLE)}{self._stray_note()}")
        if isinstance(error, MCPError):
            return f"the MCP server {self.server!r} refused the call: {shorten(str(error), 300)} (error {error.error.code})"
        if isinstance(error, ValueError):  # pydantic's ValidationError: the reply has no shape of a tool result
            return f"the MCP server {self.server!r} answered with something that is not a tool result"
        if "structured content" in str(error):  # the SDK checks a result against the output schema the tool declared
            return f"the MCP server {self.server!r} answered against its own output schema: {exception_text(error, 200)}"
        return f"the answer of the MCP server {self.server!r} could not be used: {exception_text(error, 300)}"

    def _stray_note(self) -> str:
        if not self._strays:
            return ""
        lines = "lines that are not MCP messages" if self._strays > 1 else "line that is not an MCP message"
        return f"; it also wrote {self._strays:,} {lines}, the last: {self._last_stray}"

    def _await(self, coroutine: Any, seconds: float) -> Any:
        """Run `coroutine` on this server's event loop; its result, or TimeoutError after `seconds` (then cancelled)."""
        future = asyncio.run_coroutine_threadsafe(_within(coroutine, seconds), self._loop)
        try:
            return future.result(seconds + GRACE / 2)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    # --- ending ---------------------------------------------------------------------------

    def close(self) -> None:
        """End the server process and this connection; its tools then answer with an error. Safe to call twice."""
        if self.closed:
            return
        self.closed = True
        _open.discard(self)
        if self._task is not None:
            # listed: let the connection end its own way; still starting: stop it where it is. Either way the
            # SDK closes the server's stdin, waits 2 s, then SIGTERM, 2 s, then SIGKILL: about 6 s at most
            stop = self._task.cancel if self._session is None else self._closing.set  # type: ignore[union-attr]
            self._loop.call_soon_threadsafe(stop)
            self._ended.wait(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()
        self._stderr.writer.close()

    def __enter__(self) -> MCPTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Any:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)

    def __repr__(self) -> str:
        state = "closed" if self.closed else "running"
        left_out = f"; left out: {', '.join(self.skipped)}" if self.skipped else ""
        return f"MCPTools(server={self.server!r}, {state}, tools={[t.name for t in self.tools]}{left_out})"


def _first_of(error: BaseException) -> BaseException:
    """The first exception inside an exception group (the SDK's task groups wrap what went wrong), or `error` itself."""
    inner = getattr(error, "exceptions", None)  # read, not imported: Python 3.10 has no ExceptionGroup of its own
    while isinstance(inner, tuple) and inner and isinstance(inner[0], BaseException):
        error = inner[0]
        inner = getattr(error, "exceptions", None)
    return error


def _closed(error: BaseException) -> bool:
    """Whether `error` says the connection closed: the server ended, or closed its end."""
    from mcp.shared.exceptions import MCPError
    from mcp.types import CONNECTION_CLOSED

    error = _first_of(error)
    return isinstance(error, MCPError) and error.error.code == CONNECTION_CLOSED


def _unreadable_line(error: Exception) -> str:
    """The line the server wrote that is not an MCP message, as the SDK's parse error holds it, quoted and short."""
    errors = getattr(error, "errors", None)
    try:  # what failed to parse: the line itself, or the JSON value it held (a number, an object of other fields)
        return shorten(repr(errors()[0]["input"]), 120) if callable(errors) else shorten(" ".join(str(error).split()), 120)
    except (IndexError, KeyError, TypeError):
        return shorten(" ".join(str(error).split()), 120)


async def _within(coroutine: Any, seconds: float) -> Any:
    return await asyncio.wait_for(coroutine, seconds)


def _page(cursor: str | None) -> Any:
    from mcp.types import PaginatedRequestParams

    return None if cursor is None else PaginatedRequestParams(cursor=cursor)


_open: weakref.WeakSet[MCPTools] = weakref.WeakSet()  # servers still running, ended when the program ends


@atexit.register
def _close_all() -> None:
    for server in list(_open):
        server.close()

