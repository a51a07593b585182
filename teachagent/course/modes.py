"""Which model a lesson or the terminal demo uses (course machinery; README.md, "Choosing a model").

Every notebook, from notebooks/01_bare_chat.ipynb on, and `python -m teachagent` get
their model from `select_model`, which reads the mode from `TEACHAGENT_MODE` unless
told otherwise: `offline` (a scripted model), `local` (a small real model in this
process), `live` (Claude, or any OpenAI-compatible server), `record` (the live model,
every exchange saved to a cassette) or `replay` (answers read back from a cassette).

The live model is Claude (`ANTHROPIC_API_KEY`) unless `TEACHAGENT_BASE_URL` names an
OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM, OpenAI); `TEACHAGENT_MODEL`
then names the model it should run, and `OPENAI_API_KEY` is sent if the server wants one.

The cassette is `TEACHAGENT_CASSETTE`, or else the running notebook's own,
notebooks/cassettes/<notebook>.jsonl (Jupyter names the notebook in `JPY_SESSION_NAME`).
Interactive recording (`TEACHAGENT_MODE=record jupyter lab`) replaces the cassette when
the kernel exits (shut down or restarted), and only if it made at least one call and no
call failed; otherwise the old cassette stays as it was. `python -m teachagent notebook
record` sets `TEACHAGENT_DRAFT` instead: the kernel then records into that draft and the
command replaces the cassette once the whole notebook has run.
"""

from __future__ import annotations

import atexit
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..base.display import shorten
from ..base.errors import SettingError
from ..models import Model, ScriptedModel

if TYPE_CHECKING:  # for the annotations only: replay is imported where it is used
    from .replay import Player, Recorder

MODES = ("offline", "local", "live", "record", "replay")

_open: dict[Path, Recorder | Player] = {}  # one recorder or player per cassette per process, shared by every select_model


def default_cassette(notebook: str | Path) -> Path:
    """Where a notebook's cassette lives unless told otherwise: notebooks/cassettes/<name>.jsonl."""
    notebook = Path(notebook)
    return notebook.parent / "cassettes" / f"{notebook.stem}.jsonl"


def cassette_path(mode: str, given: str | Path | None = None) -> Path:
    """The cassette to use: `given`, TEACHAGENT_CASSETTE, or the running notebook's own."""
    notebook = os.environ.get("JPY_SESSION_NAME", "")
    path = given or os.environ.get("TEACHAGENT_CASSETTE") or (default_cassette(notebook) if notebook.endswith(".ipynb") else "")
    if not path:
        raise SettingError(f"{mode} mode needs a cassette file: set TEACHAGENT_CASSETTE to its path")
    return Path(path)


def cassette_model(mode: str, path: str | Path, live: Model | None = None) -> Recorder | Player:
    """The recorder (of `live`) or the player for `path` in this process, made on first use."""
    from .replay import Player, Recorder

    key = Path(path).resolve()
    if mode == "record":
        recorder = _open.get(key)
        if not isinstance(recorder, Recorder) or recorder.finished:
            if live is None:
                raise SettingError("record mode needs the live model to record, e.g. Claude()")
            draft = os.environ.get("TEACHAGENT_DRAFT")  # set by `notebook record`, which promotes the draft itself
            recorder = Recorder(live, key, draft)
            _open[key] = recorder
            if not draft:
                atexit.register(_finish_at_exit, recorder)
    elif not isinstance(_open.get(key), Player):
        _open[key] = Player(key)
    return _open[key]


def _finish_at_exit(recorder: Recorder) -> None:
    """Keep a whole interactive recording as the cassette; a failed call leaves the old one."""
    from .replay import CassetteError

    if recorder.finished:
        return
    try:
        recorder.finish()
    except CassetteError as error:
        if recorder.failed:  # nothing to say when nothing was recorded
            print(f"teachagent: {error}", file=sys.__stderr__)


def live_model() -> tuple[Model, str, bool]:
    """The live model the settings name, where its answers come from (in words), and whether it is Claude, which bills."""
    if not os.environ.get("TEACHAGENT_BASE_URL", "").strip():  # read, never kept: the address may hold a password
        from ..claude import Claude

        claude = Claude()  # a missing key stops here, before any call
        return claude, f"{claude.name} through the Anthropic API", True
    name = os.environ.get("TEACHAGENT_MODEL", "").strip()
    if not name:
        raise SettingError("TEACHAGENT_BASE_URL names a server; set TEACHAGENT_MODEL to the model it should run "
                           "(e.g. llama3.2 for Ollama), or unset TEACHAGENT_BASE_URL for Claude")
    from ..openai_compatible import OpenAICompatible

    model = OpenAICompatible(name, os.environ["TEACHAGENT_BASE_URL"].strip())
    return model, f"{model.name}, an OpenAI-compatible server", False


def select_model(script: Any = None, mode: str | None = None, quiet: bool = False, cassette: str | Path | None = None,
                 file: TextIO | None = None) -> Model:
    """The model a lesson should use, chosen by `mode` or else `TEACHAGENT_MODE`.

    - `offline` (the default): a `ScriptedModel` playing `script` (a list of steps or a
      policy function); no key, no network.
    - `local`: SmolLM2-135M-Instruct on a llama.cpp server this process starts on
      127.0.0.1 (teachagent/course/local.py); no key, no network, a weak real model.
    - `live`: `Claude()`, which needs `ANTHROPIC_API_KEY`; or, with `TEACHAGENT_BASE_URL`
      and `TEACHAGENT_MODEL`, `OpenAICompatible` for that server.
    - `record`: the live model, every exchange recorded for the cassette (`cassette`, or
      see the module's docstring).
    - `replay`: answers read back from that cassette; no key, no network.

    Prints one line saying which it chose, so a scripted run can never pass for a real one.
    It goes to `file`, or else to standard output: a notebook shows it under the cell
    (Jupyter would shade standard error as a failure); the terminal demo passes sys.stderr,
    which keeps its standard output for the run itself.
    """
    chosen = (mode or os.environ.get("TEACHAGENT_MODE") or "offline").strip().lower()
    if chosen not in MODES:
        raise SettingError(f"unknown mode {shorten(repr(chosen), 60)}; TEACHAGENT_MODE can be one of: {', '.join(MODES)}")

    model: Model
    if chosen in ("record", "replay"):
        path = cassette_path(chosen, cassette)
        if chosen == "record":
            live, where, billed = live_model()
            model = cassette_model(chosen, path, live)
            banner = (f"record mode: {where}, every call {'billed and ' if billed else ''}recorded; "
                      f"the recording replaces {path} when this kernel or program ends, if no call failed.")
        else:
            from .replay import Player

            model = cassette_model(chosen, path)
            assert isinstance(model, Player)  # replay mode always gives a player
            banner = f"replay mode: answers recorded from {model.recorded}, read back from {path}; no API calls."
    elif chosen == "live":
        model, where, billed = live_model()
        banner = f"live mode: {where}; " + ("every call is billed to your key." if billed else
                                            "a server on your machine costs nothing, a hosted one bills its key.")
    elif chosen == "local":
        from .local import local_model

        model = local_model()
        banner = (f"local mode: {model.name}. It runs in this process on the CPU (llama.cpp on 127.0.0.1): "
                  "no key, no network. Its calls always fit the tools' schemas; its choices are its own.")
    else:
        if script is None:
            raise SettingError("offline mode needs a script for the ScriptedModel (a list of steps)")
        model = script if isinstance(script, ScriptedModel) else ScriptedModel(script)
        banner = (
            f"offline mode: the model is a ScriptedModel ({model.describe()}), not Claude. "
            "The tools run for real; token counts and costs are tiktoken estimates at list prices (Claude counts "
            "more). For Claude: TEACHAGENT_MODE=live and ANTHROPIC_API_KEY."
        )
    if not quiet:
        print(f"[teachagent] {banner}", file=file)  # None: standard output, as print does
    return model
