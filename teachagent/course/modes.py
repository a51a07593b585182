"""Which model a lesson or the terminal demo uses (course machinery; docs/models.md).

Every notebook, from notebooks/01_bare_chat.ipynb on, and `python -m teachagent` get
their model from `select_model`, which reads the mode from `TEACHAGENT_MODE` unless
told otherwise: `offline` (a scripted model), `local` (a small real model in this
process), `live` (Claude, or any OpenAI-compatible server), `record` (a real model,
every exchange saved to a cassette) or `replay` (answers read back from a cassette).

The live model is Claude (`ANTHROPIC_API_KEY`) unless `TEACHAGENT_BASE_URL` names an
OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM, OpenAI); `TEACHAGENT_MODEL`
then names the model it should run, and `OPENAI_API_KEY` is sent if the server wants one.
The terminal demo passes its `--base-url` and `--model` to `select_model` as arguments.
Record mode records the live model, or the local one when `TEACHAGENT_RECORD_FROM=local`
(`python -m teachagent notebook record NOTEBOOK --mode local` sets it for the kernel).

The cassette is `TEACHAGENT_CASSETTE`, or else the running notebook's own,
notebooks/cassettes/<notebook>.jsonl (Jupyter names the notebook in `JPY_SESSION_NAME`).
Interactive recording (`TEACHAGENT_MODE=record jupyter lab`, or a script) replaces the
cassette when the kernel or program ends normally (a kernel shut down or restarted), and
only if it made at least one call, every call it started finished and none failed; a
program ended by an exception nobody caught or by Ctrl-C keeps the old cassette as it was. `python -m teachagent notebook
record` sets `TEACHAGENT_DRAFT` instead: the kernel then records into that draft and the
command replaces the cassette once the whole notebook has run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TextIO

from ..base.display import one_line, shorten
from ..base.errors import SettingError, checked_name, shown_value
from ..models import Model
from ..scripted import ScriptedModel

MODES = ("offline", "local", "live", "record", "replay")
RECORD_FROM = ("live", "local")  # what record mode records: the live model (Claude or a server), or the local one


def default_cassette(notebook: str | Path) -> Path:
    """Where a notebook's cassette lives unless told otherwise: notebooks/cassettes/<name>.jsonl."""
    notebook = Path(notebook)
    return notebook.parent / "cassettes" / f"{notebook.stem}.jsonl"


def cassette_path(mode: str, given: str | Path | None = None) -> Path:
    """The cassette to use: `given`, TEACHAGENT_CASSETTE, or the running notebook's own."""
    if given is not None and not isinstance(given, (str, os.PathLike)):
        raise SettingError(f"cassette is a path, such as 'cassettes/demo.jsonl'; got {shown_value(given)}")
    given = str.__str__(given) if isinstance(given, str) else given  # a str subclass: the text it holds
    notebook = os.environ.get("JPY_SESSION_NAME", "")
    path = given or os.environ.get("TEACHAGENT_CASSETTE") or (default_cassette(notebook) if notebook.endswith(".ipynb") else "")
    if not path:
        raise SettingError(f"{mode} mode needs a cassette file: set TEACHAGENT_CASSETTE to its path")
    return Path(path)


def _setting(given: str | None, name: str) -> str:
    """A value the caller gave (the CLI's option), or else the environment's setting; blank is unset."""
    return (given if given is not None else os.environ.get(name, "")).strip()


def live_model(base_url: str | None = None, model_name: str | None = None) -> tuple[Model, str, bool]:
    """The live model, where its answers come from (in words), and whether it is Claude, which bills.

    `base_url` and `model_name` are an OpenAI-compatible server and its model; not given,
    they are TEACHAGENT_BASE_URL and TEACHAGENT_MODEL. No server: Claude. The address is
    read where it is used and never kept in a variable of this frame: it may hold a password.
    """
    if not _setting(base_url, "TEACHAGENT_BASE_URL"):
        from ..claude import Claude

        claude = Claude()  # a missing key stops here, before any call
        return claude, f"{claude.name} through the Anthropic API", True
    name = checked_name("TEACHAGENT_MODEL (or --model)", _setting(model_name, "TEACHAGENT_MODEL"))
    if not name:
        raise SettingError("TEACHAGENT_BASE_URL names a server; set TEACHAGENT_MODEL to the model it should run "
                           "(e.g. llama3.2 for Ollama), or unset TEACHAGENT_BASE_URL for Claude")
    from ..openai_compatible import OpenAICompatible

    model = OpenAICompatible(name, _setting(base_url, "TEACHAGENT_BASE_URL"))
    return model, f"{model.name}, an OpenAI-compatible server", False


def record_from(given: str | None = None) -> str:
    """What record mode records: `given`, else TEACHAGENT_RECORD_FROM, else the live model."""
    chosen = _setting(given, "TEACHAGENT_RECORD_FROM").lower() or "live"
    if chosen not in RECORD_FROM:
        raise SettingError(f"record mode records from {' or '.join(RECORD_FROM)}, not {shorten(repr(chosen), 60)}; "
                           "set TEACHAGENT_RECORD_FROM to one of them")
    return chosen


def check_recordable_from(source: str | None, base_url: str | None = None, model_name: str | None = None) -> None:
    """Stop now, before any cell runs, if the model to record cannot be had: no key, no model name, no local install."""
    if record_from(source) == "local":
        from .local import check_installed

        check_installed()
    else:
        live_model(base_url, model_name)  # makes the adapter only: no call, no server started


def recorded_model(source: str | None, base_url: str | None = None,
                   model_name: str | None = None) -> tuple[Model, str, str, bool]:
    """The model record mode records, where its answers come from, how the cassette names it, and whether it bills.

    The cassette's name for it says which model answered and how, never where a server is:
    "SmolLM2-135M-Instruct (local mode, seed 0)", "llama3.2 (live mode, an OpenAI-compatible server)".
    """
    if record_from(source) == "local":
        from .local import MODEL, default_seed, local_model

        seed = default_seed()
        named = f"{MODEL} (local mode, {'unseeded' if seed is None else f'seed {seed}'})"
        return local_model(), f"{named}, in this process on the CPU", named, False
    model, where, billed = live_model(base_url, model_name)
    from ..openai_compatible import OpenAICompatible

    if isinstance(model, OpenAICompatible):
        return model, where, f"{shorten(model.model, 100)} (live mode, an OpenAI-compatible server)", billed
    return model, where, f"{model.name} (live mode, the Anthropic API)", billed


def select_model(script: Any = None, mode: str | None = None, quiet: bool = False, cassette: str | Path | None = None,
                 file: TextIO | None = None, *, base_url: str | None = None, model_name: str | None = None,
                 source: str | None = None) -> Model:
    """The model a lesson should use, chosen by `mode` or else `TEACHAGENT_MODE`.

    - `offline` (the default): a `ScriptedModel` playing `script` (a list of steps or a
      policy function); no key, no network.
    - `local`: SmolLM2-135M-Instruct on a llama.cpp server this process starts on
      127.0.0.1 (teachagent/course/local.py); no key, no network, a weak real model.
    - `live`: `Claude()`, which needs `ANTHROPIC_API_KEY`; or, with `base_url` and
      `model_name` (else TEACHAGENT_BASE_URL and TEACHAGENT_MODEL), `OpenAICompatible` for that server.
    - `record`: the live model, or the local one if `source` (else TEACHAGENT_RECORD_FROM)
      is "local", every exchange recorded for the cassette (`cassette`, or see the module's docstring).
    - `replay`: answers read back from that cassette; no key, no network. The banner says
      which model's recording it is.

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
        from .replay import Player, cassette_model, check_recordable

        path = cassette_path(chosen, cassette)
        if chosen == "record":
            check_recordable(path)  # before a model is made: the local one starts a server
            live, where, named, billed = recorded_model(record_from(source), base_url, model_name)
            model = cassette_model(chosen, path, live, named)
            when = ("once every cell of the notebook has run" if os.environ.get("TEACHAGENT_DRAFT")  # notebook record
                    else "when this kernel or program ends")
            banner = (f"record mode: {where}, every call {'billed and ' if billed else ''}recorded; "
                      f"the recording replaces {path} {when}, if every call finished and none failed.")
        else:
            model = cassette_model(chosen, path)
            assert isinstance(model, Player)  # replay mode always gives a player
            banner = f"replay mode: a recording of {model.source}, read back from {path}; no API calls."
    elif chosen == "live":
        model, where, billed = live_model(base_url, model_name)
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
    if not quiet:  # a cassette's words and a path may hold anything: the banner is shown as safe text
        print(f"[teachagent] {one_line(banner, 2000)}", file=file)  # None: standard output, as print does
    return model
