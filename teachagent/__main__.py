"""The research agent in a terminal: `python -m teachagent`, or the `teachagent` command.

It asks the question of notebooks/05_research_kl.ipynb, "is KL divergence a distance?",
and prints each step k as it happens: the tokens the model read (c_k), the running total
Z = c_1 + ... + c_k, what the model wrote, its tool calls and what they returned.
The model comes from `select_model`, as in the notebooks: offline by default (a scripted
researcher: no key, no network), or `--mode local|live|record|replay` (`--live` for short),
with the same tools; live and record use Claude, or the OpenAI-compatible server that
`--base-url URL --model NAME` name (or TEACHAGENT_BASE_URL and TEACHAGENT_MODEL); record
with `--record-from local` records the small local model instead; record and replay use
the cassette `--cassette PATH`. With
`--human` you are the model: each step shows what it reads and you type its reply. Exit code: 0
for an answer, 1 for a run without one, 2 for a bad option, a missing API key, a
cassette that cannot be used or a --json path that cannot be written.

`--json PATH` is checked before the model is called: its folder must exist and be
writable, and it must not be a folder, nor an existing file other than a saved run. A
symlink is written through to its target. The run is written to a new file beside it and
renamed over it only when whole. Text the terminal's encoding cannot show is printed as
escapes (\\u03a3), never a crash. `notebook record|replay` gives bad input (no such
notebook, not a notebook, a cassette that cannot be used) one line and exit code 2, and a
cell that fails exit code 1. Ctrl-C stops it at once, with exit code 130; a recording it was
making then keeps the old cassette as it was.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import sys
from typing import Any, TextIO

from .agent import MAX_STEPS, AgentError
from .base.display import one_line, terminal_text
from .base.errors import CourseError, SettingError, check_number
from .base.formats import FormatError, writable
from .course.modes import MODES, RECORD_FROM, select_model
from .course.replay import CassetteError, Recorder, ended_by
from .human import WHOLE_PAGE, HumanModel, example_call
from .messages import STOPS
from .models import Model
from .research.corpus import Library
from .research.researcher import QUESTION, STRATEGIES, research_agent
from .scripted import ScriptedModel
from .thinking import Thinking
from .tokens import count_tokens
from .trace import OUTCOMES, Run, Step

# Stop reasons after which the model's text is its final answer (messages.STOPS says what each does).
FINAL: tuple[str, ...] = tuple(reason for reason, stop in STOPS.items() if stop.move == "answer")


def at_least_one(text: str) -> int:
    """A step budget typed on the command line: a whole number from 1 to what `Agent` accepts."""
    try:
        number = int(text) if text.strip().isdigit() and len(text) < 20 else text  # int() of 5,000 digits raises
        return int(check_number("the value", number, whole=True, at_least=1, at_most=MAX_STEPS))
    except SettingError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("the value ")) from None


USAGE = ("%(prog)s [options]\n       %(prog)s notebook {record,replay} NOTEBOOK [--mode live|local] [--cassette PATH]"
         "\n       %(prog)s mcp [--folder DIR] [--memory FILE] [--allow save_note]"
         "\n       %(prog)s site [--out DIR]")
NOTEBOOK_COMMANDS = ("notebook record runs a notebook against a real model (--mode live: Claude, or the server of "
                     "--base-url and --model; --mode local: the small model in this process) and records every call "
                     "to a cassette, notebooks/cassettes/<notebook>.jsonl unless --cassette says otherwise; notebook "
                     "replay runs it again from that cassette, with no key and no network. For instructors: record "
                     "once, replay in class (teachagent notebook --help). mcp serves the course's tools to an MCP "
                     "client such as Claude Desktop or Claude Code, read-only unless --allow names a tool that writes "
                     "(teachagent mcp --help).")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="teachagent", usage=USAGE, description=__doc__.splitlines()[0],
                                     epilog=NOTEBOOK_COMMANDS)
    parser.add_argument("--strategy", choices=list(STRATEGIES), default="excerpt",
                        help="how the scripted researcher works (offline only; default: excerpt)")
    parser.add_argument("--mode", choices=MODES, help="offline, local (a small model in this process), live (Claude, "
                        "or the server of --base-url), record or replay (default: TEACHAGENT_MODE, else offline)")
    parser.add_argument("--live", action="store_const", const="live", dest="mode", help="short for --mode live")
    parser.add_argument("--base-url", metavar="URL", help="an OpenAI-compatible server for live and record, e.g. "
                        "http://localhost:11434/v1 for Ollama (default: TEACHAGENT_BASE_URL; none: Claude)")
    parser.add_argument("--model", metavar="NAME", help="the model that server runs (default: TEACHAGENT_MODEL)")
    parser.add_argument("--record-from", choices=RECORD_FROM, help="what --mode record records: live (Claude or "
                        "the server of --base-url) or local (default: TEACHAGENT_RECORD_FROM, else live)")
    parser.add_argument("--cassette", metavar="PATH", help="the cassette to record to or replay from "
                        "(default: TEACHAGENT_CASSETTE)")
    parser.add_argument("--human", action="store_true", help="you are the model: see what it reads, type its replies")
    parser.add_argument("--max-steps", type=at_least_one, default=15, metavar="N", help="step budget (default: 15)")
    parser.add_argument("--json", metavar="PATH", help="save the run to PATH (Run.to_json)")
    parser.add_argument("--question", default=QUESTION, help="the question (default: the KL question)")
    args = parser.parse_args(argv)
    if args.human and args.mode not in (None, "offline"):
        parser.error("--human plays the model yourself; it cannot be combined with --mode " + args.mode)
    if args.mode in ("record", "replay") and not (args.cassette or os.environ.get("TEACHAGENT_CASSETTE")):
        parser.error(f"--mode {args.mode} needs --cassette PATH")
    return args



def print_step(step: Step, run: Run) -> None:
    """The `on_step` hook: one step, printed as soon as the agent has taken it."""
    print(f"\nstep {step.index}: c_{step.index} = {step.context_tokens} tokens, Z = {run.Z}")
    for thought in step.response.thoughts:
        shown = one_line(thought.thinking) if isinstance(thought, Thinking) and thought.thinking else "(hidden)"
        print(f"  thought: {shown}")
    if step.response.stop_reason in FINAL:
        print("  model: (final answer, below)")
    elif step.response.text:
        print(f"  model: {step.response.text}")
    results = {r.tool_use_id: r for r in step.results}
    for call in step.response.tool_calls:
        print(f"  call:  {call.name} {one_line(json.dumps(call.input, ensure_ascii=False), 200)}")
        if call.id in results:
            result = results[call.id]
            error = "ERROR " if result.is_error else ""
            print(f"  got:   {error}{one_line(result.content)}  [{count_tokens(result.content)} tokens]")
    sys.stdout.flush()


def notebook_main(argv: list[str]) -> int:
    """`python -m teachagent notebook record|replay NOTEBOOK [--mode live|local] [--cassette PATH]`."""
    from .course.modes import default_cassette
    from .course.notebook_runner import NotebookError, run_notebook

    parser = argparse.ArgumentParser(prog="teachagent notebook",
                                     description="Record a notebook's calls to a real model in a cassette, or replay them.")
    parser.add_argument("command", metavar="{record,replay}", choices=["record", "replay"])
    parser.add_argument("notebook", help="the .ipynb file to execute")
    parser.add_argument("--mode", choices=RECORD_FROM, default=None, help="the model to record: live (Claude, or "
                        "the server of --base-url and --model) or local (the small model in this process; "
                        "TEACHAGENT_LOCAL_SEED makes it repeat); default: TEACHAGENT_RECORD_FROM, else live")
    parser.add_argument("--base-url", metavar="URL", help="an OpenAI-compatible server to record (with --mode live; "
                        "default: TEACHAGENT_BASE_URL; none: Claude)")
    parser.add_argument("--model", metavar="NAME", help="the model that server runs (default: TEACHAGENT_MODEL)")
    parser.add_argument("--cassette", help="the cassette file (default: notebooks/cassettes/<notebook>.jsonl)")
    args = parser.parse_args(argv)
    if args.command == "replay" and (args.mode or args.base_url or args.model):
        parser.error("--mode, --base-url and --model choose the model to record; replay plays the cassette's own")
    if args.mode == "local" and (args.base_url or args.model):
        parser.error("--base-url and --model name a server for --mode live; --mode local runs the small model itself")
    missing = [name for name in ("nbclient", "nbformat") if importlib.util.find_spec(name) is None]
    if missing:  # the extra a learner's install leaves out
        print(f"teachagent: notebook {args.command} needs {' and '.join(missing)}: pip install \"teachagent[notebook]\" "
              "(in a clone: pip install -e \".[notebook]\")", file=sys.stderr)
        return 2
    try:
        run_notebook(args.notebook, args.command, args.cassette, progress=lambda line: print(line, flush=True),
                     source=args.mode, base_url=args.base_url, model_name=args.model)
    except NotebookError as error:  # a cell failed: the notebook ran, and did not finish
        print(f"teachagent: {error}", file=sys.stderr)
        return 1
    except (CourseError, ValueError) as error:  # the notebook, the cassette or the key cannot be used
        print("teachagent: " + " ".join(str(error).split()), file=sys.stderr)
        return 2
    print(f"{args.command} finished: {args.cassette or default_cassette(args.notebook)}")
    return 0


class Shown:
    """An output stream that passes text on with every control character made visible (`terminal_text`).

    The demo prints what a model wrote, what a tool returned and what a file held; any of it
    may carry escape sequences (clear the screen, hide text, write the clipboard). Through
    this stream they arrive as text to read, e.g. \\x1b[2J, whoever printed them.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(terminal_text(text))

    def __getattr__(self, name: str) -> Any:  # flush, fileno, encoding, isatty: those of the stream
        return getattr(self.stream, name)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["mcp"]:  # an MCP server: its stdout carries the protocol, so it is left exactly as it is
        from .course.mcp_server import main as mcp_main

        return mcp_main(argv[1:])
    for stream, errors in ((sys.stdout, "backslashreplace"), (sys.stderr, "backslashreplace"), (sys.stdin, "replace")):
        if isinstance(stream, io.TextIOWrapper):  # a terminal that cannot show Σ or é gets \u03a3 rather than a crash
            stream.reconfigure(errors=errors)
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Shown(stdout), Shown(stderr)
    try:
        if argv[:1] == ["site"]:  # the course as a website (course/site.py)
            from .course.site import main as site_main
            from .exercises.reveal import solution_source
            return site_main(argv[1:], solution_source)
        return notebook_main(argv[1:]) if argv[:1] == ["notebook"] else research_main(argv)
    except BrokenPipeError as error:  # the reader went away, as with `| head`: stop quietly
        ended_by(error)  # a recording cut short here replaces no cassette
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
        return 1
    except KeyboardInterrupt as error:  # Ctrl-C: the learner's stop, said in one line (local mode's server stops at exit)
        ended_by(error)
        print("\nteachagent: stopped (Ctrl-C)", file=stderr, flush=True)
        return 130
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def research_main(argv: list[str]) -> int:
    """The research agent on the KL question, step by step."""
    args = parse_args(argv)
    if args.json:  # a path the run cannot be saved to is refused now, before any model is called
        try:
            writable(args.json, "a saved run", Run.load)
        except FormatError as error:
            print(f"teachagent: {error}", file=sys.stderr)
            return 2
    library = Library()
    scripted = ScriptedModel(STRATEGIES[args.strategy](library), name=f"scripted researcher ({args.strategy})")
    model: Model
    if args.human:
        model = HumanModel()
    else:
        try:  # the banner to stderr: stdout is the run's
            model = select_model(scripted, mode=args.mode, cassette=args.cassette, file=sys.stderr,
                                 base_url=args.base_url, model_name=args.model, source=args.record_from)
        except (CourseError, ValueError) as error:  # no key, or a cassette that cannot be used: before any call
            print(f"teachagent: {error}", file=sys.stderr)
            return 2
    if model is scripted and args.question != QUESTION:
        print("[teachagent] note: the scripted researcher answers the KL question whatever you ask.", file=sys.stderr)
    # a person sees each step's results on their next page, so only a model's steps are printed as they happen
    agent = research_agent(args.strategy, model=model, library=library, max_steps=args.max_steps,
                           on_step=None if args.human else print_step)
    if args.human:
        examples = "; ".join(example_call(spec) for spec in agent.specs)
        print("[teachagent] you are the model: the first step shows the whole page the model reads, later steps "
              f"only what is new ({WHOLE_PAGE} shows it all). Reply with text for a final answer, or with one line "
              f"per tool call: {examples}. Ctrl-D stops.")
    print(f"question: {args.question}", flush=True)

    try:
        run = agent.run(args.question)
    except AgentError as error:
        if isinstance(error.__cause__, BrokenPipeError):  # printing a step found the reader gone
            raise error.__cause__ from None
        print("teachagent: " + " ".join(str(error).split()), file=sys.stderr)  # one line, no traceback
        run = error.run
    print(f"\nfinal answer: {run.answer}" if run.outcome == "answer" else
          f"\nno answer: {OUTCOMES[run.outcome]} (after {len(run.steps)} of {args.max_steps} steps)")
    print(f"outcome: {run.outcome}\nK = {len(run.steps)} steps, Z = Σ c_k = {run.Z} tokens", flush=True)

    code = 0 if run.outcome == "answer" else 1
    if isinstance(model, Recorder):  # keep the recording only if it is whole
        try:
            print(f"recorded to {model.finish()}")
        except CassetteError as error:
            print(f"teachagent: {error}", file=sys.stderr)
            code = 1
    if args.json:
        try:
            print(f"run saved to {run.save(args.json)}")
        except (OSError, FormatError) as error:  # the folder changed while the agent ran
            print(f"teachagent: cannot save the run to {args.json}: {getattr(error, 'strerror', None) or error}",
                  file=sys.stderr)
            return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
