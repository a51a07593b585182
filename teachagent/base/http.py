"""The transport guards both model adapters share (teachagent/claude.py, teachagent/openai_compatible.py).

An SDK (anthropic, openai) does the HTTP, the retries and the parsing. Four things it
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
- **No credential in a name.** A server's address may carry a user name and password
  (`http://user:pw@host/v1`) or a key in its query (`?api_key=...`). `Address` takes them
  out: the address every name, banner and recording shows holds none, and a hook adds
  them to each request to that host only (the password as an `Authorization: Basic`
  header, the query as it was written). They are secrets like the key: cut out of errors,
  out of httpx's log line, and out of a reply that echoes them (`Guarded.scrub`).

Lesson 1 uses both adapters; this module is below them and imports none of the ideas.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
import threading
import traceback
import unicodedata
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import unquote

from .display import shorten
from .errors import CourseError, SettingError, type_name

DEFAULT_TIMEOUT = 120.0  # seconds one call may take in all, retries included
MAX_REPLY_BYTES = 16 * 2**20  # 16 MiB; a reply of the largest max_tokens is well under 1 MiB of JSON
STAND_IN_KEY = "not-the-key"  # what a client is built with; the real key is set on it afterwards
IDENTITY = {"accept-encoding": "identity"}  # so the body we count is the body we keep
HIDDEN = "[the API key]"  # what stands where a server echoed our key (or a credential of its address)
# a query parameter whose name, lower-cased and stripped of all but letters and digits, holds one of these is a credential
CREDENTIAL_WORDS = ("key", "token", "secret", "pass", "pwd", "sig", "auth", "credential", "session", "jwt")


class MissingAPIKey(CourseError, RuntimeError):
    """Live mode was asked for but no usable API key is set."""


class UnexpectedReply(CourseError, RuntimeError):
    """The server answered with something the adapter cannot turn into a `Response`.

    The server's fault, not a bug here: one line in Jupyter, saying what came back.
    """


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


def scrubbed(error: BaseException, secrets: Iterable[Secret]) -> BaseException:
    """`error`, and every error it chains, with the secrets cut out of its text and its frames' variables cleared."""
    secrets = [s for s in secrets if s.reveal()]
    if not secrets:
        return error
    seen: set[int] = set()
    pending = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        current.args = tuple(without(arg, secrets) for arg in current.args)
        for name in ("message", "body"):  # where the SDKs keep the error body they quote
            if name in vars(current):
                setattr(current, name, without(vars(current)[name], secrets))
        if current.__traceback__ is not None:
            traceback.clear_frames(current.__traceback__)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return error


def without(value: Any, secrets: Iterable[Secret]) -> Any:
    """`value` with every occurrence of each secret replaced by HIDDEN, looking inside JSON-like containers.

    The one scrubber: errors, log lines and stored replies all pass through it. The longest
    secret goes first, so a password inside a longer credential cannot leave the rest behind.
    """
    texts = sorted({s.reveal() for s in secrets if s.reveal()}, key=len, reverse=True)
    if not texts:
        return value
    return _replaced(value, texts)


def _replaced(value: Any, texts: list[str]) -> Any:
    if isinstance(value, str):
        for text in texts:
            value = value.replace(text, HIDDEN)
        return value
    if isinstance(value, dict):
        return {_replaced(k, texts): _replaced(v, texts) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_replaced(v, texts) for v in value)
    return value


class Address:
    """A server's address with its credentials taken out: `url` shows none; `secrets` are what was taken.

    A user name and password (`http://user:pw@host/v1`) become an `Authorization: Basic`
    header, and query parameters named like credentials (`api_key`, `key`, `token`, `sig`,
    `password`, ...) are kept aside; `add_to(request)`, an httpx request hook, puts both
    back into each request to the same host, and nowhere else. `base` is what the SDK is
    given: the address without its query, which the hook adds to each request (an SDK
    appends its paths after the query otherwise). The fragment (`#...`) is never sent by
    HTTP, so it is dropped. The parsing is by hand and never raises, so even
    a malformed address (`http://user:pw@[::1`) loses its credentials before anything quotes it.
    """

    def __init__(self, given: str) -> None:
        scheme, sep, rest = given.partition("://")
        if not sep:
            scheme, rest = "", given
        rest, _, fragment = rest.partition("#")
        rest, _, query = rest.partition("?")
        authority, slash, path = rest.partition("/")
        userinfo, _, host = authority.rpartition("@")
        self.host = host.lower()
        secrets: list[Secret] = []
        self.authorization: Secret | None = None
        if userinfo:
            user, _, password = userinfo.partition(":")
            pair = f"{unquote(user)}:{unquote(password)}"
            token = base64.b64encode(pair.encode("utf-8", "surrogatepass")).decode("ascii")
            self.authorization = Secret(f"Basic {token}")
            secrets += [Secret(userinfo), Secret(unquote(userinfo)), Secret(token), Secret(pair)]
            if password:
                secrets += [Secret(password), Secret(unquote(password))]
            elif len(user) >= 8:  # a token written as the user name (https://TOKEN@host); a short name is just a name
                secrets += [Secret(user), Secret(unquote(user))]
        kept: list[str] = []
        self.query: list[tuple[str, str | Secret]] = []  # every parameter, in order; the credentials' values as Secrets
        for part in query.split("&") if query else []:
            name, _, value = part.partition("=")
            if _names_a_credential(name):
                self.query.append((unquote(name), Secret(_decoded(value))))
                secrets += [Secret(part), Secret(value), Secret(unquote(value)), Secret(_decoded(value))]
            elif part:
                self.query.append((_decoded(name), _decoded(value)))
                kept.append(part)
        for part in fragment.split("&") if fragment else []:  # never sent; a credential in it is a secret all the same
            name, _, value = part.partition("=")
            if _names_a_credential(name):
                secrets += [Secret(fragment), Secret(part), Secret(value), Secret(unquote(value)), Secret(_decoded(value))]
        self.secrets = tuple(s for s in secrets if s.reveal())
        self.base = f"{scheme}{sep}{host}{slash}{path}"
        self.url = self.base + (f"?{'&'.join(kept)}" if kept else "")
        self.problem = _problem(scheme if sep else "", host)

    def __repr__(self) -> str:
        return f"Address({self.url!r}, {'credentials taken out' if self.secrets else 'no credentials'})"

    def add_to(self, request: Any) -> None:
        """The HTTP client's request hook: this address's credentials, on a request to its own host only."""
        if self.authorization is None and not self.query:
            return
        if request.url.netloc.decode("ascii", "replace").lower() != self.host:
            return  # a redirect to another host gets nothing of ours
        if self.authorization is not None:
            request.headers["authorization"] = self.authorization.reveal()
        for name, value in self.query:
            request.url = request.url.copy_add_param(name, value.reveal() if isinstance(value, Secret) else value)


def _problem(scheme: str, host: str) -> str | None:
    """Why no call could reach a server at an address with this scheme and host (`host`, `host:port`), or None."""
    if scheme.lower() not in ("http", "https"):
        return f"it starts with {scheme + '://' if scheme else 'no http:// or https://'}, and the API is spoken over HTTP"
    if host.startswith("["):  # an IPv6 address: [::1] or [::1]:8080
        name, _, rest = host.partition("]")
        name, port = name + "]", rest.removeprefix(":") if rest.startswith(":") else rest
    else:
        name, _, port = host.partition(":")
    if name in ("", "[]") or any(ch.isspace() or not ch.isprintable() for ch in name):
        return "it names no host" if name in ("", "[]") else "its host holds a space or a control character"
    if port and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        return f"its port {shorten(port, 20)!r} is not a number from 1 to 65535"
    return None


def usable(address: Address, setting: str) -> Address:
    """`address` if a call could reach a server there; a one-line `SettingError` naming `setting` otherwise.

    Checked when an adapter is made, so that a typo (port 99999, `ws://`, no scheme) is one line
    now rather than a connection error at every call. The address is quoted without its credentials.
    """
    if address.problem:
        raise SettingError(f"the server's address {shorten(address.url, 100)!r} cannot be used: {address.problem}; "
                           f"give {setting} as http://HOST:PORT/v1, such as http://localhost:11434/v1 for Ollama")
    return address


class Connection:
    """Where an adapter's calls go and with which key: read once, where the settings are read, and the one
    object that holds them. Its repr shows the key's length and the address without its credentials.

    `Connection.read(...)` takes the key from the argument (already a `Secret`: the caller's frame
    must not hold it as text while this one runs) or `key_variable`, and the address from the
    argument, `url_variable` or `default_url`; it refuses an address no call can use and, where
    `key_required`, a missing or unusable key, each in one line naming the setting.
    """

    __slots__ = ("address", "secret")

    def __init__(self, secret: Secret, address: Address | None) -> None:
        self.secret, self.address = secret, address

    def __repr__(self) -> str:
        return f"Connection({self.address.url if self.address else 'the SDK default'!r}, key: {self.secret!r})"

    @classmethod
    def read(cls, key: Secret, key_variable: str, base_url: str | None, url_variable: str, *,
             default_url: str | None = None, key_required: bool = True, url_setting: str | None = None) -> Connection:
        secret = key if key.reveal() else Secret(os.environ.get(key_variable) or "")  # the key given, else the variable's
        if base_url is not None and not isinstance(base_url, str):
            raise SettingError(f"base_url is the server's address as text, such as 'http://localhost:11434/v1'; got "
                               f"a {type_name(base_url)}")
        given = str.__str__(base_url) if isinstance(base_url, str) else None  # a str subclass: the text it holds
        given, base_url = given or os.environ.get(url_variable) or default_url, None  # an address's credentials too
        address = usable(Address(given), url_setting or f"base_url (or {url_variable})") if given else None
        if key_required or secret.reveal():
            checked_key(secret, key_variable)
        return cls(secret, address)


def _names_a_credential(name: str) -> bool:
    """Whether a query parameter's name looks like a credential's: `api_key`, `X-Api-Key`, `access_token`, `sig`, ..."""
    return any(word in re.sub(r"[^a-z0-9]", "", unquote(name).lower()) for word in CREDENTIAL_WORDS)


def _decoded(written: str) -> str:
    """A query's name or value as the server reads it: percent escapes decoded, and + as a space."""
    return unquote(written.replace("+", " "))


class _HideSecrets(logging.Filter):
    """A filter on the HTTP libraries' loggers: a line that would quote a secret is logged with it cut out."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: list[Secret] = []

    def add(self, secrets: Iterable[Secret]) -> None:
        """Hide `secrets` too: each value once, however many clients are made (no caller's frame keeps the values)."""
        known = {s.reveal() for s in self.secrets}
        self.secrets.extend(s for s in secrets if s.reveal() not in known)

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            try:
                line = record.getMessage()
            except Exception:  # a record whose arguments do not fit: the logger reports that itself
                return True
            cleaned = without(line, self.secrets)
            if cleaned != line:
                record.msg, record.args = cleaned, ()
        return True


_log_filter = _HideSecrets()
for _logger in ("httpx2", "httpx", "httpcore", "openai", "openai._base_client", "anthropic", "anthropic._base_client"):
    logging.getLogger(_logger).addFilter(_log_filter)


def capped_http_client(sdk: Any, address: Address | None = None) -> Any:
    """The SDK's own HTTP client class (`sdk.DefaultHttpxClient`), with the body cap and the address's credentials hooked in."""
    hooks: dict[str, list[Callable[[Any], None]]] = {"response": [cap_reply_body]}
    if address is not None:
        hooks["request"] = [address.add_to]
    return sdk.DefaultHttpxClient(event_hooks=hooks)


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
    """An SDK client behind the guards: each call bounded in time, its body in size, its errors and replies keyless.

    `build()` makes the client with `STAND_IN_KEY`; the real key (if any) is set on it once
    it exists. `call(send)` runs `send(client)` and returns what it returns. `address`
    holds the credentials taken out of the server's address, secrets like the key.
    """

    def __init__(self, build: Callable[[], Any], secret: Secret | None, timeout: float, name: str,
                 address: Address | None = None) -> None:
        self._build, self._secret, self.timeout, self.name = build, secret, timeout, name
        self.secrets = tuple(s for s in (secret, *(address.secrets if address else ())) if s is not None and s.reveal())
        _log_filter.add(self.secrets)
        self.client = self._connect()

    def __repr__(self) -> str:
        return f"Guarded({self.name!r}, timeout={self.timeout:g})"

    def _connect(self) -> Any:
        try:
            client = self._build()
        except Exception as error:  # a malformed base_url, most often: a setting, said in one line
            raise SettingError(f"the client for {self.name} cannot be made: {scrubbed(error, self.secrets)}") from None
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
            error = scrubbed(outcome["error"], self.secrets)
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

    def scrub(self, stored: Any) -> Any:
        """`stored` (a reply as JSON data) with every secret cut out: a server that echoes a header stores nothing of it."""
        return without(stored, self.secrets)


def reply_count(value: Any, name: str) -> int:
    """A token count from a reply: a whole number of at least 0 (None, a count left out, is 0); `UnexpectedReply` otherwise."""
    if value is None:
        return 0
    if type(value) is not int or value < 0:
        shown = repr(value) if isinstance(value, (str, int, float)) else f"a {type(value).__name__}"
        raise UnexpectedReply(f"the reply's {name} is {shown[:60]}, not a whole number of tokens; "
                              "the server does not speak the API as documented")
    return value


def as_sent(raw: Any) -> tuple[Any, Any]:
    """An SDK's reply read from its raw response (`with_raw_response`), and the body as the server sent it (JSON data).

    Both SDKs read an optional count leniently (a "12" or a true becomes 12 or 1), so the
    adapters read the counts from the body as sent, where `reply_count` sees them as they are.
    """
    return raw.parse(), raw.http_response.json()


def sent_field(holder: Any, name: str) -> Any:
    """A field of a reply: a key of JSON data as sent, or an attribute of an SDK's object; None if it is absent."""
    return holder.get(name) if isinstance(holder, dict) else getattr(holder, name, None)


def reply_text(value: Any, name: str) -> str:
    """A name or a reason from a reply, as one line of text (None is ""); `UnexpectedReply` for anything but a str."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise UnexpectedReply(f"the reply's {name} is a {type(value).__name__}, not text; "
                              "the server does not speak the API as documented")
    return " ".join(str.__str__(value).split())


def sendable(value: Any) -> Any:
    """`value` (a request as JSON data) with each lone surrogate replaced by U+FFFD, which UTF-8 can encode.

    A tool that echoes what the model wrote can hand back half of a surrogate pair (JSON's
    "\\ud800" reads as one); no HTTP library can send that, and the call would fail.
    """
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {sendable(k): sendable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [sendable(v) for v in value]
    return value


_SURROGATE = re.compile(r"[\ud800-\udfff]")
