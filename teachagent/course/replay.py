"""Record a live run once, replay it anywhere (the instructors' guide, docs/instructors.md).

A workshop has one API key and thirty learners. The instructor runs a notebook once in
`record` mode: every exchange with the live model (our request, its response and its
usage) is written to a cassette, a plain JSON-lines file. The model can be Claude, any
OpenAI-compatible server or the small local model: the cassette's first line says which
answered and how (`SmolLM2-135M-Instruct (local mode, seed 0)`), and every request is
written in the one shape of a request (`requests.request_body`). In class,
`replay` mode answers each request from the cassette, with no key and no network.

`real_model_run` plays a lesson's shipped recording of the small local model in every
mode, so each learner sees what a real model did with the lesson's task.

Replay finds an answer by the request's content, not by its position: re-running a
cell, running cells out of order or restarting the kernel asks the same requests again
and gets the same answers. A request that was never recorded (a learner changed a
prompt) is an error naming the nearest recorded request and how it differs, rather than
an answer to a different question.

Recording never destroys: it writes a draft beside the cassette and replaces the old
cassette only once the recording is whole: at least one call made, every call it started
finished, none failed, and the program not ended by an exception or Ctrl-C. A cassette
holds only what our own code sent and received: never the API key, never HTTP headers,
never a server's address (a model's requests name the model, not where it runs).
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..agent import AgentError
from ..base.display import one_line, shorten
from ..base.errors import CourseError, SettingError, exception_text
from ..base.formats import FormatError, dumps, parse, read_text, validator
from ..measurement import WrappedSeed
from ..messages import MAX_TOKENS, Message, Response
from ..models import Model, call_model, own_count
from ..requests import ToolChoice, request_body
from ..trace import Run
from ..usage import Usage
from .reference import describe

if TYPE_CHECKING:
    from ..answers import AnswerForm

FORMAT = "teachagent.cassette/2"
READABLE = ("teachagent.cassette/1", FORMAT)  # /1 always held "system" and "tools", even empty

SOURCE_WIDTH = 200  # characters of the header's "recorded_from": a model's name and how it ran, never a credential
RECORDING_SEED = 0  # TEACHAGENT_LOCAL_SEED of the lessons' shipped recordings (notebooks/cassettes/)
Result = TypeVar("Result", Run, Response)
Measured = TypeVar("Measured")  # what a measurement gives: a Measurement, or a list or dict of them

_drafts = itertools.count(1)  # numbers this process's drafts, so two recorders never share one
_writing = threading.Lock()  # one line at a time, whichever thread or recorder writes it


class CassetteError(CourseError, RuntimeError):
    """A cassette is missing, damaged, or does not hold what is being replayed."""


def count_request(model: str, system: str, messages: list[Message], tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What a token count is asked about: a request without max_tokens, as the counting endpoint takes it."""
    body = request_body(model, system, messages, tools, max_tokens=1)
    del body["max_tokens"]
    return body


def seeded(request: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """`request` as a cassette keeps it: with the seed the model sampled with, when it had one, so that
    runs of one task under several seeds are told apart."""
    return request if seed is None else {**request, "seed": seed}


def _key(request: dict[str, Any], *leave_out: str) -> str:
    """A request's canonical text, replay's lookup key; the model is left out, as the player stands in for it.

    Every character is written as JSON's ASCII escape, so the two halves of a surrogate pair asked
    apart have the key of the one character a cassette gives them back as (formats.as_saved).
    """
    kept = {name: value for name, value in request.items() if name not in ("model", *leave_out)}
    return json.dumps(kept, sort_keys=True, separators=(",", ":"))


def _header(first_line: str) -> dict[str, Any] | None:
    """A cassette's first line read as its header, or None if it is no cassette header."""
    if len(first_line) > 1000:  # a header is one short object; this also keeps json.loads from deep recursion
        return None
    try:
        header = json.loads(first_line)
    except json.JSONDecodeError:
        return None
    found = header.get("format") if isinstance(header, dict) else None
    return header if isinstance(found, str) and found.startswith("teachagent.cassette/") else None


def check_recordable(path: Path) -> None:
    """Refuse to record over anything but a cassette: a notebook, another file, a folder, a symlink loop."""
    resolved(path)
    if path.is_dir():
        raise CassetteError(f"{path} is a folder, not a cassette; name a .jsonl file to record to")
    if not path.exists():
        return
    if not path.is_file():  # a FIFO or a device: reading its first line could wait for ever
        raise CassetteError(f"{path} is not a regular file, so it was left alone; name a .jsonl file to record to")
    try:
        with open(path, encoding="utf-8") as file:
            recordable = _header(file.readline(10_000)) is not None
    except (OSError, UnicodeDecodeError):
        recordable = False
    if not recordable:
        what = "a notebook" if path.suffix == ".ipynb" else "a file that is not a cassette"
        raise CassetteError(f"{path} is {what}, so it was left alone; record to a new .jsonl file or to a cassette")


def new_draft(cassette: Path) -> Path:
    """A new, empty file beside the cassette for a recording in progress (same folder: the promotion is a rename)."""
    cassette.parent.mkdir(parents=True, exist_ok=True)
    while True:
        draft = cassette.with_name(f"{cassette.name}.{os.getpid()}-{next(_drafts)}.draft")
        try:
            draft.open("x").close()
            return draft
        except FileExistsError:
            continue  # left behind by an earlier process with our pid: take the next number


def _fresh_draft(draft: Path) -> bool:
    """True if `draft` is a .draft file that is absent or empty: recording into it destroys nothing."""
    try:
        return draft.suffix == ".draft" and (not os.path.lexists(draft) or (draft.is_file() and not draft.stat().st_size))
    except (OSError, ValueError):
        return False


def promote(draft: Path, cassette: Path) -> Path:
    """Replace the cassette with a finished draft, in one step, after checking the draft reads back whole."""
    read_cassette(draft)
    os.replace(draft, cassette)
    return cassette


class Recorder(Model):
    """A `Model` that passes every call to `model` and writes the exchange to a draft cassette.

    The draft becomes the cassette only through `finish()`, which requires at least one
    call, every call it started finished (one stopped by Ctrl-C, or still running in
    another thread, did not) and none failed; until then the old cassette is untouched.
    Each exchange is one line, flushed at once, so a crash loses at most the call in
    flight. If `model` can count tokens, so can the recorder, and those counts are
    recorded too. `source` says which model answers and how, e.g. "SmolLM2-135M-Instruct
    (local mode, seed 0)" (the model's name if not given); the header keeps it for the
    replay banner. Requests are recorded under the model's own name (`recorded_name`).
    """

    def __init__(self, model: Model, path: str | Path, draft: str | Path | None = None, source: str | None = None) -> None:
        self.model, self.path = model, Path(path)
        self.name = model.name
        self.recorded_name = recorded_name(model)
        self.source = shorten(one_line(source or self.recorded_name), SOURCE_WIDTH)
        check_recordable(self.path)
        if draft and not _fresh_draft(Path(draft)):  # TEACHAGENT_DRAFT must name what `new_draft` made, nothing else
            raise CassetteError(f"the draft {str(draft)!r} is not a new, empty .draft file, so it was left alone; "
                                "unset TEACHAGENT_DRAFT (`python -m teachagent notebook record` sets it itself)")
        self.started = self.calls = self.failed = 0  # calls begun; of those, recorded and failed (the rest unfinished)
        self.finished = False
        self.ended_by: BaseException | None = None  # what ended the program while this recorded (`ended_by`)
        try:
            self.draft = Path(draft) if draft else new_draft(self.path)
            self._write(json.dumps({"format": FORMAT, "recorded_from": self.source}, ensure_ascii=False), mode="w")
        except (OSError, ValueError) as error:  # a folder in the way, no permission, a NUL in the path
            raise CassetteError(f"cannot record to {str(self.path)!r}: {getattr(error, 'strerror', None) or error}") from None
        validator("cassette")  # built now: a kernel shutting down has no seconds to spare for importing jsonschema

    seed = WrappedSeed()  # the recorded model's sampling seed, which every request records beside itself

    def __repr__(self) -> str:
        return f"Recorder({self.model!r} → {str(self.path)!r}, {self.calls} calls, {self.failed} failed)"

    def _record(self, record: dict[str, Any]) -> None:
        """Write one exchange, checked first that `read_cassette` will read it back; a call that cannot be is a failed one."""
        try:
            line = dumps(record, "cassette", "this exchange to the cassette", indent=None)
        except FormatError as error:
            self.failed += 1
            raise CassetteError(f"{error}; the recording cannot be finished") from None
        self._write(line)

    def _write(self, line: str, mode: str = "a") -> None:
        if self.finished:
            raise CassetteError(f"the recording for {self.path} is finished; make a new Recorder to record again")
        # a lone surrogate, which UTF-8 cannot hold, is written as the JSON escape \udxxx that reads back the same
        with _writing, open(self.draft, mode, encoding="utf-8", errors="backslashreplace") as draft:
            draft.write(line + "\n")
            draft.flush()
            os.fsync(draft.fileno())

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> Response:
        self.started += 1
        try:
            response = call_model(self.model, system, messages, tools, max_tokens, tool_choice, answer_form)
        except Exception:  # a KeyboardInterrupt is not counted as failed: the call stays unfinished
            self.failed += 1
            raise
        request = seeded(request_body(self.recorded_name, system, messages, tools, max_tokens, tool_choice, answer_form),
                         self.seed)
        self._record({"kind": "complete", "request": request, "response": response.to_dict()})
        self.calls += 1
        return response

    def count_tokens(self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = ()) -> int | None:
        """The recorded model's own count, recorded too; None, and nothing recorded, for a model that cannot count."""
        self.started += 1
        try:
            counted = own_count(self.model, system, messages, tools)
        except Exception:
            self.failed += 1
            raise
        if counted is None:  # no count to ask for: no call was made
            self.started -= 1
            return None
        request = count_request(self.recorded_name, system, messages, tools)
        self._record({"kind": "count_tokens", "request": request, "input_tokens": counted})
        self.calls += 1
        return counted

    def mark(self, label: str) -> None:
        """Write a mark: the calls after it are the part of the notebook named `label` (a player can start there)."""
        self._record({"kind": "mark", "label": label})

    @property
    def unfinished(self) -> int:
        """Calls begun and neither recorded nor failed: stopped by Ctrl-C, or still running in another thread."""
        return self.started - self.calls - self.failed

    def finish(self) -> Path:
        """Make the draft the cassette if the recording is whole; else delete it and say why."""
        if self.finished:
            return self.path
        self.finished = True
        why = (f"the program was ended by {exception_text(self.ended_by, 80)}" if self.ended_by else
               f"{self.failed} of {self.started} calls failed" if self.failed else
               f"{self.unfinished} of {self.started} calls did not finish" if self.unfinished else
               "no call was made" if not self.calls else None)
        if why:
            self.draft.unlink(missing_ok=True)
            raise CassetteError(f"{why}, so {self.path} was left as it was and the partial recording deleted; record again")
        return promote(self.draft, self.path)


def recorded_name(model: Model) -> str:
    """The name a recording gives `model`'s requests: the model's own, never where it runs.

    An `OpenAICompatible` model's `name` says which server answers (its address); the recording
    keeps only the server's name for the model, as `model.model` holds it (`llama3.2`).
    """
    from ..openai_compatible import OpenAICompatible

    return model.model if isinstance(model, OpenAICompatible) else model.name


def read_cassette(path: str | Path) -> list[dict[str, Any]]:
    """The records of a cassette, each checked against teachagent/base/schemas/cassette.schema.json; a clear error otherwise.

    A record is {"kind": "complete", "request", "response"},
    {"kind": "count_tokens", "request", "input_tokens"} or {"kind": "mark", "label"};
    /1 records are read into this shape.
    """
    return _read(Path(path))[1]


def _read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A cassette's header and its records, or a `CassetteError` saying why it cannot be read."""
    if not os.path.lexists(path):
        raise CassetteError(f"there is no cassette at {str(path)!r}; ask the instructor for it, "
                            "or record one (python -m teachagent notebook record NOTEBOOK --mode local|live)")
    try:
        # one record a line, split at "\n" alone: str.splitlines() would also split inside a
        # string holding U+2028, U+2029 or U+0085, which older recordings wrote unescaped
        lines = read_text(path, "a cassette").split("\n")
    except FormatError as error:
        raise CassetteError(str(error)) from None
    if lines[-1] == "":
        lines.pop()
    header = _header(lines[0])
    if header is None:
        raise CassetteError(f"{str(path)!r} is not a cassette: its first line should be {json.dumps({'format': FORMAT})}")
    found = header["format"]
    if found not in READABLE:
        raise CassetteError(
            f"{str(path)!r} was recorded by a newer teachagent (format {found!r}); upgrade teachagent or record again"
        )
    try:
        return header, [_checked(parse(line, "cassette", line=number), found)
                        for number, line in enumerate(lines[1:], start=2)]
    except FormatError as error:
        raise CassetteError(
            f"the cassette {str(path)!r} is damaged at {error}; "
            "it may have been cut short while recording: ask the instructor for a new recording"
        ) from None


def _checked(record: dict[str, Any], found: str) -> dict[str, Any]:
    """One record, already checked against the schema, in the current shape."""
    if record.get("kind") == "mark":
        return {"kind": "mark", "label": record["label"]}
    request = dict(record["request"])
    if found == "teachagent.cassette/1":  # request_body leaves out an empty system prompt and no tools
        request = {name: value for name, value in request.items() if name not in ("system", "tools") or value}
    if record.get("kind", "complete") == "complete":
        return {"kind": "complete", "request": request, "response": record["response"]}
    return {"kind": "count_tokens", "request": request, "input_tokens": record["input_tokens"]}


class Player(Model):
    """A `Model` that answers from a cassette, finding each request by its content.

    The same request asked again gets its recorded answers in turn, and the last one
    again once they run out. If the recording counted tokens, the player can too.
    `source` is which model answered and how, as the header says (a cassette from before
    headers said it: the model named in its first request). With `start`, the player begins
    at the first mark of that label (`Recorder.mark`), as if the calls recorded before it had
    been asked already: a part of a notebook played alone gets the replies it got when recorded.
    Set `seed` as on the recorded model, and each request finds the reply of the run sampled with it.
    """

    def __init__(self, path: str | Path, start: str | None = None) -> None:
        self.path = Path(path)
        header, records = _read(self.path)
        self.requests = [r["request"] for r in records if r["kind"] == "complete"]  # call n is requests[n - 1]
        # the model that answered, on one line: a name with a line break could forge a line of the banner
        self.recorded = one_line(self.requests[0]["model"], 200) if self.requests else "nothing"
        given = header.get("recorded_from")
        self.source = shorten(one_line(given), SOURCE_WIDTH) if isinstance(given, str) and given.strip() else self.recorded
        self.name = f"{self.source}, replayed"
        self.seed: int | None = None  # the seed the recorded model sampled with, for a recording of seeded runs
        self.unanswered = 0  # requests it found no recording of: a measurement that counts them as failed runs still says so
        self._answers: dict[str, list[dict[str, Any]]] = {}
        for record in records:
            if record["kind"] == "complete":
                self._answers.setdefault(_key(record["request"]), []).append(record["response"])
        self._asked: dict[str, int] = {}
        self._records = records
        self.skip_to(start)
        if any(r["kind"] == "count_tokens" for r in records):  # a recording of a model that counted: so can the player
            self._counts = self._known_counts(records)
            self.count_tokens = self._count_tokens  # type: ignore[method-assign]

    def skip_to(self, mark: str | None) -> None:
        """Go on as if every call recorded before the first mark labelled `mark` had been asked (no such mark: none).

        A part of a notebook then gets the replies it got when recorded, whether or not the cells
        before it were played in this session; a call asked already stays asked.
        """
        at = next((i for i, r in enumerate(self._records) if r["kind"] == "mark" and r["label"] == mark), 0)
        before: dict[str, int] = {}
        for record in self._records[:at]:
            if record["kind"] == "complete":
                key = _key(record["request"])
                before[key] = before.get(key, 0) + 1
        for key, n in before.items():
            self._asked[key] = max(self._asked.get(key, 0), n)

    def __repr__(self) -> str:
        return f"Player({str(self.path)!r}, {len(self.requests)} calls recorded, {sum(self._asked.values())} played)"

    def complete(
        self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = (), max_tokens: int = MAX_TOKENS,
        tool_choice: ToolChoice = "auto", answer_form: AnswerForm | None = None,
    ) -> Response:
        key = _key(seeded(request_body(self.recorded, system, messages, tools, max_tokens, tool_choice, answer_form), self.seed))
        answers = self._answers.get(key)
        if not answers:
            self.unanswered += 1
            raise CassetteError(self._never_recorded(json.loads(key)))
        played = self._asked.get(key, 0)
        self._asked[key] = played + 1
        return Response.from_dict(answers[min(played, len(answers) - 1)])

    @staticmethod
    def _known_counts(records: list[dict[str, Any]]) -> dict[str, int]:
        """Input tokens by request: from each recorded call's usage, overridden by the recorded counts."""
        counts = {_key(r["request"], "max_tokens"): Usage.from_dict(r["response"]["usage"]).total_input_tokens
                  for r in records if r["kind"] == "complete"}
        counts.update((_key(r["request"]), r["input_tokens"]) for r in records if r["kind"] == "count_tokens")
        return counts

    def _count_tokens(self, system: str, messages: list[Message], tools: Sequence[dict[str, Any]] = ()) -> int:
        key = _key(count_request(self.recorded, system, messages, tools))
        if key not in self._counts:
            raise CassetteError(
                f"no token count for this request is recorded in {str(self.path)!r}, nor a call with the same "
                "system prompt, messages and tools; undo the change, or ask the instructor for a new recording"
            )
        return self._counts[key]

    def _never_recorded(self, asked: dict[str, Any]) -> str:
        """One line: the request was not recorded, the nearest that was, what differs, and the fix."""
        fix = "undo the change, or ask the instructor for a new recording"
        if not self.requests:
            return f"the cassette {str(self.path)!r} holds no recorded calls; ask the instructor for a new recording"
        n = nearest(asked, self.requests)
        near = {name: value for name, value in self.requests[n].items() if name != "model"}
        count = len(near["messages"])
        return (
            f"this request was never recorded in {str(self.path)!r}; nearest recorded request: call {n + 1} "
            f"({count} message{'s' if count != 1 else ''}), where {first_difference(near, asked)}. "
            f"Replay only answers recorded requests: {fix}"
        )


def nearest(asked: dict[str, Any], recorded: list[dict[str, Any]]) -> int:
    """The index of the recorded request most like `asked`.

    Most identical leading messages first, then the same system prompt, then the same
    tools, then the closest number of messages; the earliest call wins a tie.
    """

    def likeness(request: dict[str, Any]) -> tuple[Any, ...]:
        leading = 0
        for was, now in zip(request["messages"], asked["messages"]):
            if was != now:
                break
            leading += 1
        return (leading, request.get("system") == asked.get("system"), request.get("tools") == asked.get("tools"),
                -abs(len(request["messages"]) - len(asked["messages"])))

    return max(range(len(recorded)), key=lambda i: likeness(recorded[i]))


def _shown(value: Any) -> str:
    return shorten(json.dumps(value, ensure_ascii=False), 80)


def first_difference(recorded: Any, asked: Any, where: str = "request") -> str | None:
    """Where two JSON values first differ, in words, or None if they are equal."""
    if type(recorded) is not type(asked):
        return f"{where} was {_shown(recorded)} when recorded, now {_shown(asked)}"
    if isinstance(recorded, dict):
        for key in sorted(set(recorded) | set(asked)):
            if key not in recorded or key not in asked:
                return f"{where}.{key} is {'new' if key not in recorded else 'missing'}"
            found = first_difference(recorded[key], asked[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list):
        for i, (a, b) in enumerate(zip(recorded, asked)):
            found = first_difference(a, b, f"{where}[{i}]")
            if found:
                return found
        if len(recorded) != len(asked):
            return f"{where} had {len(recorded)} items when recorded, now {len(asked)}"
        return None
    return None if recorded == asked else f"{where} was {_shown(recorded)} when recorded, now {_shown(asked)}"


# --- one recorder or player per cassette in this process, and the shipped recording of a real model ---------

_open: dict[Path, Recorder | Player] = {}  # shared by every select_model, and by real_model_run


def cassette_model(mode: str, path: str | Path, live: Model | None = None, source: str | None = None) -> Recorder | Player:
    """The recorder (of `live`, described by `source`) or the player for `path` in this process, made on first use.

    An interactive recording (no TEACHAGENT_DRAFT) replaces the cassette when the process
    ends normally, if it is whole; `notebook record` sets TEACHAGENT_DRAFT and promotes the draft itself.
    """
    key = resolved(path)
    if mode == "record":
        recorder = _open.get(key)
        if not isinstance(recorder, Recorder) or recorder.finished:
            if live is None:
                raise SettingError("record mode needs the live model to record, e.g. Claude()")
            draft = os.environ.get("TEACHAGENT_DRAFT")
            recorder = Recorder(live, key, draft, source)
            _open[key] = recorder
            if not draft:
                _watch_for_an_abnormal_end()
                atexit.register(_finish_at_exit, recorder)
    elif not isinstance(_open.get(key), Player):
        _open[key] = Player(key)
    return _open[key]


def resolved(path: str | Path) -> Path:
    """`path` made absolute with its symlinks followed; a `CassetteError` for one that cannot be (a loop)."""
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError, ValueError):  # RuntimeError: Python before 3.13 on a symlink loop
        raise CassetteError(f"{str(path)!r} is a symlink that leads nowhere it can end (a loop), or not a path at "
                            "all; name a cassette file") from None


def ended_by(error: BaseException) -> None:
    """Say that this program is ending because of `error` (an exception, Ctrl-C): no recording of it replaces a cassette.

    Called by the hook for exceptions nobody caught, and by a program that catches one to end
    with a message of its own (the terminal demo on Ctrl-C). Every recording still open is marked.
    """
    for model in _open.values():
        if isinstance(model, Recorder) and not model.finished:
            model.ended_by = error


def _watch_for_an_abnormal_end() -> None:
    """Have an exception that ends the program (one nobody caught, Ctrl-C too) noted before the recordings are finished.

    Python calls `sys.excepthook` for it before the exit handlers run. A notebook's kernel
    catches a cell's exception itself, so a failed cell does not end a kernel's recording.
    """
    previous = sys.excepthook
    if getattr(previous, "notes_the_end", False):
        return

    def hook(kind: type[BaseException], error: BaseException, traceback: Any) -> None:
        ended_by(error)
        previous(kind, error, traceback)

    hook.notes_the_end = True  # type: ignore[attr-defined]
    sys.excepthook = hook


def _finish_at_exit(recorder: Recorder) -> None:
    """Keep a whole interactive recording as the cassette; anything less leaves the old one, and says why."""
    if recorder.finished:
        return
    try:
        recorder.finish()
    except CassetteError as error:
        if recorder.started:  # nothing to say when nothing was recorded
            print(f"teachagent: {error}", file=sys.__stderr__)


def record_command(notebook: str | Path) -> str:
    """The one command that records a lesson's shipped cassette: the local model, seeded, from this folder."""
    notebook = Path(notebook)
    relative = os.path.relpath(notebook.resolve())
    shown = relative if not relative.startswith("..") else str(notebook.resolve())
    return f"TEACHAGENT_LOCAL_SEED={RECORDING_SEED} python -m teachagent notebook record {shown} --mode local"


def notebook_of(cassette: str | Path) -> Path:
    """The notebook a cassette belongs to: notebooks/cassettes/NN_name.jsonl is notebooks/NN_name.ipynb's."""
    cassette = Path(cassette)
    folder = cassette.parent.parent if cassette.parent.name == "cassettes" else cassette.parent
    return folder / f"{cassette.stem}.ipynb"


def _in_use() -> Recorder | Player | None:
    """What this process records to or replays from through select_model, if anything: the latest opened."""
    recorders = [m for m in _open.values() if isinstance(m, Recorder) and not m.finished]
    if recorders:
        return recorders[-1]
    players = [m for m in _open.values() if isinstance(m, Player)]
    return players[-1] if players else None


REAL_RUN = "real_model_run"  # the mark before a recorded real_model_run's calls
MEASUREMENT = "measurement: "  # the mark before a recorded real_model_measurement's calls, with its name after it


def real_model_run(run_on: Callable[[Model], Result], cassette: str | Path) -> Result | None:
    """What a real model did with the same task: `run_on` played from a recording, in every mode.

    `cassette` is the lesson's shipped recording of the small local model (seeded), relative
    to the notebook, e.g. "cassettes/03_agent_loop.jsonl". `run_on` always starts where this
    run began when it was recorded (a mark), so every mode plays the same run: offline, local
    and live on a new player of `cassette`; in replay mode on a new player of the cassette being
    replayed (what the cells above played, or did not yet, makes no difference, and the session's
    player is left as it was). In record mode
    it runs on the recorder, after writing that mark, so this run is in the new recording too
    (the old cassette may be stale or missing). Prints one line: which model's recording, and
    what the run did; in replay and record modes it says that recording is also your model's,
    so a run shown above as your model's is not taken for another model's. A cassette that is
    missing, or that does not hold this task, is one line saying so and the command that
    records it, and the result is None.
    """
    played = _on_the_recording(run_on, cassette, REAL_RUN, "this task")
    if played is None:
        return None
    result, said = played
    print(one_line(f"a real model's run, {said}: {describe(result)}", 1000))
    return result


def real_model_measurement(measure_on: Callable[[Model], Measured], cassette: str | Path, name: str) -> Measured | None:
    """A seeded measurement of a real model (measurement.py), played from a recording, in every mode.

    As `real_model_run`, for many runs: `measure_on` measures whatever model it is given,
    setting its seed before each run; here that model is a player of the lesson's shipped
    recording, starting at the mark `name` labels; in record mode, the recorder; in replay mode,
    the session's player gone on to that mark (`Player.skip_to`), so that a cell below that
    measures your model with the same seeded requests gets the replies recorded for it, not
    these again. A player answers a seeded request with the reply recorded
    for that seed, so the measurement gives the recorded counts in any order. Prints one line:
    whose recording, and where it plays from. A recording that misses any of the runs (a prompt
    changed) is one line with the command that records it again, and the result is None.
    """
    played = _on_the_recording(measure_on, cassette, MEASUREMENT + name, "these runs")
    if played is None:
        return None
    result, said = played
    print(one_line(f"a real model's runs, {said}", 1000))
    return result


def _recording_at(mark: str, path: Path, command: str) -> Recorder | Player | None:
    """What plays the part of a notebook that `mark` labels: in record mode the recorder, marked; in replay mode
    for a measurement, the session's player gone on to the mark; else a new player of the cassette (the one
    replayed, or `path`) at the mark. None, after one line saying why and how to record it, if there is none."""
    model = _in_use()
    if isinstance(model, Recorder):
        model.mark(mark)
        return model
    if isinstance(model, Player) and mark != REAL_RUN:  # a measurement goes on in the session's player
        model.skip_to(mark)
        return model
    path = model.path if isinstance(model, Player) else path  # replay mode: the cassette replayed, at the mark
    if not os.path.lexists(path):
        print(one_line(f"no recording of a real model at {path} yet; record it with: {command}", 1000))
        return None
    try:
        return Player(path, start=mark)
    except CassetteError as error:
        print(one_line(f"the recording at {path} cannot be played ({error}); record it again with: {command}", 1000))
        return None


def _on_the_recording(run_on: Callable[[Model], Any], cassette: str | Path, mark: str,
                      what: str) -> tuple[Any, str] | None:
    """`run_on` on the recording (see `real_model_run`), and whose recording it was and where it plays from, in words;
    None, after one line saying why and how to record it, if the recording is missing or does not hold `what`."""
    command = record_command(notebook_of(Path(cassette)))
    model = _recording_at(mark, Path(cassette), command)
    if model is None:
        return None
    missed = model.unanswered if isinstance(model, Player) else 0  # a measurement counts an unanswered run as failed
    try:
        result, held = run_on(model), True
    except (CassetteError, AgentError) as error:
        if not isinstance(error, CassetteError) and not isinstance(error.__cause__, CassetteError):
            raise  # a live model failing while recording: the recording must fail too
        result, held = None, False
    if not held or (isinstance(model, Player) and model.unanswered > missed):
        print(one_line(f"the recording at {model.path} does not hold {what} (its prompts changed since it was "
                       f"recorded); record it again with: {command}", 1000))
        return None
    where = f"recorded now into {model.path}" if isinstance(model, Recorder) else f"played from {model.path}"
    if _in_use() is not None:  # replay or record mode: the recording is also what plays (or records) your model
        where += ", the same recording as your model's runs in this notebook"
    return result, f"{model.source}, {where}"
