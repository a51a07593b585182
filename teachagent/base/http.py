"""The transport guards both model adapters share (teachagent/claude.py, teachagent/openai_compatible.py).

An SDK (anthropic, openai) does the HTTP, the retries and the parsing. Three things it
does not promise, and a course that may be pointed at any server must:

- **A deadline.** Every call ends by its `timeout`, retries included, even when a server
  sends its reply one byte at a time (the SDKs' own timeout is per read, not per call).
- **A bounded body.** A reply is read up to `MAX_REPLY_BYTES` and no further. We ask for
  an uncompressed body; one that comes compressed anyway is inflated here, a piece at a
  time, and what is inflated is what is counted, so a small gzip bomb cannot fill the
  memory either.
- **No key in any output.** The key travels as a `Secret`, whose repr is its length. The
  SDK client is built with a stand-in key and handed the real one only once it exists, so
  a client that cannot be built (a mistyped `base_url`) fails with no key in its frames.
  Every error that leaves a call has our key cut out of its text, and the frames it
  carries cleared of their variables: a server that echoes the `Authorization` header back
  in a 401 body would otherwise put the key into the error, and so into a saved notebook.

Lesson 1 uses both adapters; this module is below them and imports none of the ideas.
"""

from __future__ import annotations

import json
import threading
import traceback
import unicodedata
import zlib
from collections.abc import Callable, Iterator
from typing import Any

from .errors import CourseError, SettingError

DEFAULT_TIMEOUT = 120.0  # seconds one call may take in all, retries included
MAX_REPLY_BYTES = 16 * 2**20  # 16 MiB; a reply of the largest max_tokens is well under 1 MiB of JSON
STAND_IN_KEY = "not-the-key"  # what a client is built with; the real key is set on it afterwards
IDENTITY = {"accept-encoding": "identity"}  # so the body we count is the body we keep
HIDDEN = "[the API key]"  # what stands where a server echoed our key


class MissingAPIKey(CourseError, RuntimeError):
    """Live mode was asked for but no usable API key is set."""


class UnexpectedReply(RuntimeError):
    """The server answered with something the adapter cannot turn into a `Response`."""


class ReplyTooLarge(UnexpectedReply):
    """The reply body was larger than `MAX_REPLY_BYTES`; it was not read to the end."""


class CallTimedOut(RuntimeError):
    """A model call did not finish within its total time allowance."""


class Secret:
    """An API key that shows as its length, never as its text: safe in any frame a traceback prints."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def __repr__(self) -> str:
        return f"Secret(<{len(self._value)} characters>)"

    __str__ = __repr__

    def reveal(self) -> str:
        """The key itself, for the one place that sends it."""
        return self._value


def checked_key(secret: Secret, variable: str) -> Secret:
    """`secret` itself, if the key can be sent as it is; a `MissingAPIKey` that never quotes it otherwise.

    A key with whitespace or a control character in it (a stray \\r from a Windows .env file
    is the usual one) is refused at once, because the HTTP library would quote it in an error.
    """
    length = len(secret.reveal())
    if not length:
        raise MissingAPIKey(f"live mode needs an API key: set {variable}, or run offline (the default; no key needed)")
    if any(ch.isspace() or unicodedata.category(ch).startswith("C") for ch in secret.reveal()):
        raise MissingAPIKey(
            f"the API key ({length} characters) holds whitespace or a control character, often a stray \\r or "
            f"\\n from a .env file saved with Windows line endings. Set {variable} to the key alone and start again."
        )
    return secret


def scrubbed(error: BaseException, secret: Secret | None) -> BaseException:
    """`error`, and every error it chains, with the key cut out of its text and its frames' variables cleared."""
    if secret is None or not secret.reveal():
        return error
    seen: set[int] = set()
    current: BaseException | None = error
    pending = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        current.args = tuple(_without(arg, secret) for arg in current.args)
        for name in ("message", "body"):  # where the SDKs keep the error body they quote
            if name in vars(current):
                setattr(current, name, _without(vars(current)[name], secret))
        if current.__traceback__ is not None:
            traceback.clear_frames(current.__traceback__)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return error


def _without(value: Any, secret: Secret) -> Any:
    """`value` with every occurrence of the key replaced, looking inside JSON-like containers."""
    if isinstance(value, str):
        return value.replace(secret.reveal(), HIDDEN)
    if isinstance(value, dict):
        return {_without(k, secret): _without(v, secret) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_without(v, secret) for v in value)
    return value


def capped_http_client(sdk: Any) -> Any:
    """The SDK's own HTTP client class (`sdk.DefaultHttpxClient`), with the body cap hooked in."""
    return sdk.DefaultHttpxClient(event_hooks={"response": [cap_reply_body]})


def cap_reply_body(response: Any) -> None:
    """The HTTP client's response hook: stop reading a body once it passes `MAX_REPLY_BYTES`.

    It runs before the body is read. A body whose announced length is too large is refused
    at once; any other is counted as it arrives (after inflating, if the server compressed
    it although we asked it not to), so a body without a length, with a false one, or
    compressed 1000 to 1, is cut off at the limit too.
    """
    import httpx2

    limit, inner = MAX_REPLY_BYTES, response.stream
    refusal = f"the server's reply body is larger than {limit:,} bytes; it was not read to the end"
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        announced = response.headers.get("content-length", "")
        if announced.isdigit() and int(announced) > limit:
            raise ReplyTooLarge(f"{refusal} (it announced {int(announced):,})")
        pieces: Callable[[], Iterator[bytes]] = lambda: iter(inner)  # noqa: E731
    elif encoding in ("gzip", "x-gzip", "deflate"):
        del response.headers["content-encoding"]  # inflated here, under the cap, so the client must not inflate again
        pieces = lambda: _inflated(inner)  # noqa: E731
    else:
        raise UnexpectedReply(f"the server compressed its reply as {encoding!r}, which was not asked for; it was not read")

    class Capped(httpx2.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            seen = 0
            for chunk in pieces():
                seen += len(chunk)
                if seen > limit:
                    raise ReplyTooLarge(refusal)
                yield chunk

        def close(self) -> None:
            inner.close()

    response.stream = Capped()


def _inflated(chunks: Any, piece: int = 2**16) -> Iterator[bytes]:
    """A gzip or zlib body inflated at most `piece` bytes at a time, however small the chunk that holds them."""
    inflate = zlib.decompressobj(32 + zlib.MAX_WBITS)  # 32: accept a gzip or a zlib header
    try:
        for chunk in chunks:
            while chunk:
                yield inflate.decompress(chunk, piece)
                chunk = inflate.unconsumed_tail
        yield inflate.flush()
    except zlib.error as error:
        raise UnexpectedReply(f"the server's compressed reply body is damaged ({error})") from None


class Guarded:
    """An SDK client behind the three guards: each call bounded in time, its body in size, its errors keyless.

    `build()` makes the client with `STAND_IN_KEY`; the real key (if any) is set on it once
    it exists. `call(send)` runs `send(client)` and returns what it returns.
    """

    def __init__(self, build: Callable[[], Any], secret: Secret | None, timeout: float, name: str) -> None:
        self._build, self._secret, self.timeout, self.name = build, secret, timeout, name
        self.client = self._connect()

    def __repr__(self) -> str:
        return f"Guarded({self.name!r}, timeout={self.timeout:g})"

    def _connect(self) -> Any:
        try:
            client = self._build()
        except Exception as error:  # a malformed base_url, most often: a setting, said in one line
            raise SettingError(f"the client for {self.name} cannot be made: {scrubbed(error, self._secret)}") from None
        if self._secret is not None:
            client.api_key = self._secret.reveal()
        return client

    def call(self, send: Callable[[Any], Any]) -> Any:
        """`send(client)`, run on a helper thread so that it can be abandoned after `timeout` seconds.

        Abandoning closes the client, which ends the stalled connection, and makes a new one
        for the next call. Ctrl-C still reaches the waiting (main) thread.
        """
        client, outcome, done = self.client, {}, threading.Event()

        def attempt() -> None:
            try:
                outcome["reply"] = send(client)
            except BaseException as error:  # handed to the caller's thread below
                outcome["error"] = error
            finally:
                done.set()

        worker = threading.Thread(target=attempt, name="teachagent-model-call", daemon=True)
        worker.start()
        if not done.wait(self.timeout):
            self.client = self._connect()
            client.close()
            raise CallTimedOut(f"the call to {self.name} took more than {self.timeout:g} s in all and was abandoned")
        worker.join()  # it has finished; joined, so that its frames can be cleared
        if "error" in outcome:
            error = scrubbed(outcome["error"], self._secret)
            cause: BaseException | None = error
            while cause is not None:  # the SDK wraps what the body cap raised, and retries it like a lost connection
                if isinstance(cause, UnexpectedReply):
                    raise type(cause)(str(cause)) from None
                cause = cause.__cause__
            if isinstance(error, json.JSONDecodeError):
                raise UnexpectedReply(f"the server answered with a body that is not JSON ({error})") from None
            if isinstance(error, RecursionError):  # the SDK's JSON reader recursing into a reply nested ~1,000 deep
                raise UnexpectedReply("the server answered with JSON nested too deeply to read") from None
            raise error
        return outcome["reply"]
