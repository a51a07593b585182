"""Looking at a run step by step (introduced in notebooks/03_agent_loop.ipynb).

For each step k the view shows what the model read (c_k, drawn as a bar made of the
system prompt and tools, the task, and every earlier model step v_j and observation
N(v_j)), what it wrote (a plan highlighted), which tools it called, what came back, why
it stopped, and the running total Z of tokens read so far. Course machinery: it reads a
`Run` and nothing else of the loop.

`run_html(run)` is a static HTML page of the whole run: it needs no widgets, so it shows
on GitHub and nbviewer. `StepViewer` is the interactive version, with a slider and
buttons; pass it as `on_step` to watch a run fill in while it happens. `compare_html`
puts two or more runs side by side on one scale (lessons 4 to 6 compare strategies): each
call's c_k as one bar of four parts (system and tools, task, the model's steps, the
observations), so the page stays short however many steps the runs took.
"""

from __future__ import annotations

import html
import itertools
import json
from typing import Any

from ..base.display import plural, shorten
from ..base.errors import CourseError
from ..messages import Message
from ..plan import find_plan
from ..thinking import Thinking
from ..tokens import count_tokens, message_tokens, tools_tokens
from ..trace import OUTCOMES, Run, Step
from .reference import REFERENCE, Runs

COLOURS = {"system + tools": "#9e9e9e", "task": "#4c72b0", "v": "#dd8452", "N": "#55a868"}
PREVIEW = 400  # characters of text shown per block before it is cut


def composition(run: Run, k: int) -> list[tuple[str, int]]:
    """What c_k is made of: (label, tokens) for each part the model read before call k.

    The parts are the system prompt with the tool specs, the task, and then each earlier
    model step v_j and its observation N(v_j). Their tokens add up to c_k.
    """
    if not 1 <= k <= len(run.steps):
        raise IndexError(f"step {k} does not exist; this run has steps 1 to {len(run.steps)}")
    return compositions(run, upto=k)[-1]


def compositions(run: Run, upto: int | None = None) -> list[list[tuple[str, int]]]:
    """`composition(run, k)` for k = 1 to `upto` (every step by default), each part counted once.

    c_{k+1} is c_k plus v_k and N(v_k), so the parts of every step are the first parts of
    the last one: drawing all K steps counts K steps, not K²/2. A run whose history was
    rewritten (lesson 6's compaction) read less than its steps add up to: from the first
    such call on, its history is one part, "history, compacted", of the size it had.
    """
    parts = [
        ("system + tools", count_tokens(run.system) + tools_tokens(run.tools)),
        ("task", count_tokens(run.task)),
    ]
    found, total = [], sum(n for _, n in parts)
    for step in run.steps[: len(run.steps) if upto is None else upto]:
        if total == step.context_tokens:
            found.append(list(parts))
        else:
            found.append([*parts[:2], ("history, compacted", step.context_tokens - parts[0][1] - parts[1][1])])
        added = [(f"v{step.index}", message_tokens(step.response.to_message()))]
        if step.results:
            added.append((f"N(v{step.index})", message_tokens(Message("user", list(step.results)))))
        parts += added
        total += sum(n for _, n in added)
    return found


def _e(value: object) -> str:
    """Any value as HTML text, escaped, whatever its type: a `str` subclass or a number is no exception.

    `str.__str__` makes it a plain str first, as a subclass could change what `replace` (and so escaping) does.
    """
    return html.escape(str.__str__(str(value)))


def _colour(label: str) -> str:
    return COLOURS.get(label) or COLOURS["N" if label.startswith(("N", "observations")) else "v"]


def _pre(text: str, colour: str = "#f6f6f6", cut: bool = True) -> str:
    return (
        f'<pre style="white-space:pre-wrap;margin:2px 0;padding:4px;background:{colour};'
        f'font-size:12px">{_e(shorten(text, PREVIEW) if cut else text)}</pre>'
    )


def legend_html() -> str:
    """What the bar colours mean, shown above every view of a run."""
    names = ("system + tools", "task", "model step v_j", "observation N(v_j)")
    swatches = " ".join(
        f'<span style="background:{colour};color:white;padding:0 4px">{name}</span>'
        for name, colour in zip(names, COLOURS.values())
    )
    return f"<small>the bars: {swatches}</small>"


def context_bar(run: Run, k: int, scale: int | None = None, parts: list[tuple[str, int]] | None = None) -> str:
    """c_k as one horizontal bar, each part as wide as its share of tokens (`parts`: its composition, if counted)."""
    parts = composition(run, k) if parts is None else parts
    scale = scale or max(s.context_tokens for s in run.steps) or 1
    segments = "".join(
        f'<div title="{_e(label)}: {_e(n)} tokens" style="width:{100 * n / scale:.2f}%;'
        f'background:{_colour(label)};height:14px;border-right:1px solid white"></div>'
        for label, n in parts
    )
    legend = " + ".join(f"{_e(label)} {_e(n)}" for label, n in parts)
    return (
        f'<div style="display:flex;width:100%;background:#eee">{segments}</div>'
        f'<div style="font-size:11px;color:#555">c_{_e(k)} = {legend}</div>'
    )


def step_html(run: Run, k: int, parts: list[tuple[str, int]] | None = None, z_so_far: int | None = None) -> str:
    """Step k of `run`: what the model read, wrote and called, and what came back.

    A page of every step passes each step's `parts` and `z_so_far`, counted once for the run.
    """
    step = run.steps[k - 1]
    z_so_far = sum(s.context_tokens for s in run.steps[:k]) if z_so_far is None else z_so_far
    out = [
        f"<h4 style='margin:8px 0 2px'>Step {_e(k)} of {len(run.steps)}: stop_reason "
        f"<code>{_e(step.response.stop_reason)}</code>, c_{_e(k)} = {_e(step.context_tokens)} tokens, "
        f"Z so far = {_e(z_so_far)}</h4>",
        context_bar(run, k, parts=parts),
    ]
    for thought in step.response.thoughts:
        # the API leaves thinking text out unless asked for a summary; encrypted thinking has none to show
        if isinstance(thought, Thinking) and thought.thinking:
            out.append("<b>thought (summary)</b>" + _pre(thought.thinking, "#eef0fb"))
        else:
            out.append("<b>thought (hidden)</b> <small>kept in the history and sent back unchanged</small>")
    for block in step.response.unknown_blocks:
        out.append(f"<b>block of unknown type</b> <code>{_e(block.type)}</code> <small>kept and sent back</small>")
    if step.response.text:
        if find_plan(step.response.text):  # a plan stands out, so its rewrites are easy to follow
            out.append("<b>model wrote, with a plan</b>" + _pre(step.response.text, "#fff3c4"))
        else:
            out.append("<b>model wrote</b>" + _pre(step.response.text))
    for call in step.response.tool_calls:
        if call.unparsed is not None:  # what the model wrote, not the empty input the loop stood in for it
            out.append(f"<b>tool call</b> <code>{_e(call.name)}</code> <small>its arguments are not a JSON object, "
                       "as written:</small>" + _pre(call.unparsed, "#fdf1e8"))
            continue
        written = json.dumps(call.input, ensure_ascii=False)
        out.append(f"<b>tool call</b> <code>{_e(call.name)}</code>" + _pre(written, "#fdf1e8"))
    for result in step.results:
        label = "error returned" if result.is_error else "observation"
        out.append(f"<b>{label}</b>" + _pre(result.content, "#fbe9e9" if result.is_error else "#eaf5ec"))
    return "\n".join(out)


def run_html(run: Run) -> str:
    """The whole run as static HTML: a header, then every step."""
    scripted = " (a scripted model, not Claude)" if run.scripted else ""
    described = _e(OUTCOMES.get(run.outcome, "") if isinstance(run.outcome, str) else "")  # the outcome in words, on hover
    head = (
        f"<div><b>Run</b> of <code>{_e(run.model)}</code>{scripted}: {len(run.steps)} steps, "
        f"outcome <code title='{described}'>{_e(run.outcome)}</code>, Z = {_e(run.Z)} tokens read<br>"
        f"<b>task</b>: {_e(run.task)}<br>{legend_html()}</div>"
    )
    z_so_far = list(itertools.accumulate(s.context_tokens for s in run.steps))
    steps = [step_html(run, k, parts, z_so_far[k - 1]) for k, parts in enumerate(compositions(run), start=1)]
    answer = f"<div><b>answer</b>{_pre(run.answer, cut=False)}</div>" if run.answer is not None else ""
    notes = "".join(f"<div><b>note</b>: {_e(note)}</div>" for note in run.notes)
    return "<div>" + head + "".join(f"<div>{s}</div>" for s in steps) + answer + notes + "</div>"


def compare_html(runs: dict[str, Run]) -> str:
    """Runs side by side: each run's c_k bars and its Z, all drawn on one scale.

    `runs` maps a label to a run, e.g. {"excerpt": run_a, "read everything": run_b}.
    Because every bar shares one scale, a run that reads more is visibly longer.
    """
    if not isinstance(runs, dict) or not runs:
        raise CourseError("compare_html needs a dict of label → Run, e.g. compare_html({'a': run_a, 'b': run_b})")
    for label, run in runs.items():
        if not isinstance(run, Run):
            raise CourseError(f"compare_html: {label!r} is a {type(run).__name__}, not a Run")
    widest = max((s.context_tokens for run in runs.values() for s in run.steps), default=0) or 1
    most = max(run.Z for run in runs.values()) or 1
    columns = []
    for label, run in runs.items():
        scripted = " <small>(scripted)</small>" if run.scripted else ""
        bars = "".join(_kinds_bar(k, parts, widest) for k, parts in enumerate(compositions(run), start=1))
        sizes = run.context_sizes
        span = f"c_1 = {sizes[0]:,} → c_K = {sizes[-1]:,} tokens" if sizes else ""
        bars = f"{bars}<small>{span}</small>" if bars else "<i>no steps</i>"
        z_bar = (
            f'<div title="Z = {_e(run.Z)} tokens" style="width:{100 * run.Z / most:.2f}%;height:10px;background:#333"></div>'
        )
        columns.append(
            f'<div style="flex:1;min-width:220px;padding:0 6px"><b>{_e(label)}</b>{scripted}<br>'
            f"<small>K = {len(run.steps)} calls, outcome <code>{_e(run.outcome)}</code></small>"
            f"{bars}<div style='margin-top:6px'><small>Z = {_e(run.Z)} tokens read</small>{z_bar}</div></div>"
        )
    scale = f"<small>one scale for all: the widest bar is {_e(widest)} tokens, the longest Z bar {_e(most)} tokens</small>"
    return f'<div>{legend_html()}<br>{scale}<div style="display:flex;gap:8px">{"".join(columns)}</div></div>'


def _kinds_bar(k: int, parts: list[tuple[str, int]], scale: int) -> str:
    """c_k as one bar of at most four parts, its parts summed by kind: what the eye compares across runs."""
    kinds: dict[str, int] = {}
    for label, n in parts:
        kind = label if label in COLOURS or label.startswith("history") else (
            "observations N(v_j)" if label.startswith("N") else "model steps v_j")
        kinds[kind] = kinds.get(kind, 0) + n
    segments = "".join(
        f'<div title="{_e(kind)}: {n:,} tokens" style="width:{100 * n / scale:.2f}%;background:{_colour(kind)};'
        f'height:12px"></div>' for kind, n in kinds.items()
    )
    return (f'<div title="c_{k} = {sum(kinds.values()):,} tokens" '
            f'style="display:flex;width:100%;background:#eee;margin-bottom:2px">{segments}</div>')


def _side_by_side(runs: dict[str, Run | Runs[Run]]) -> dict[str, Run]:
    """`runs` with each `Runs` (from beside_reference) as the scripted reference's run, and yours beside it
    when another model played: one label each."""
    if not isinstance(runs, dict):
        return runs
    shown: dict[str, Run] = {}
    for label, run in runs.items():
        if not isinstance(run, Runs):
            shown[label] = run
        elif run.one_run:
            shown[label] = run.reference
        else:
            shown[f"{label}, your model"] = run.yours
            shown[f"{label}, {REFERENCE}"] = run.reference
    return shown


class Comparison:
    """Runs side by side, shown as `compare_html` in a notebook; see `compare_runs`."""

    def __init__(self, runs: dict[str, Run]) -> None:
        self.page = compare_html(runs)  # checks the runs before anything is kept
        self.runs = dict(runs)

    def __repr__(self) -> str:
        parts = ", ".join(f"{label}: K={len(run.steps)}, Z={run.Z}" for label, run in self.runs.items())
        return f"Comparison({parts})"

    def _repr_html_(self) -> str:
        return self.page


def compare_runs(runs: dict[str, Run | Runs[Run]]) -> Comparison:
    """Show runs side by side in a notebook: `compare_runs({"excerpt": a, "everything": b})`.

    A value may be what `beside_reference` returned: the scripted reference's run, with your
    model's beside it when another model played.
    """
    return Comparison(_side_by_side(runs))


class StepViewer:
    """An interactive view of a run: a slider and buttons over its steps.

    `StepViewer(run)` shows a finished run. `StepViewer()` passed as an agent's `on_step`
    fills in as the run goes. Outside a widget-aware frontend it shows the static HTML.
    """

    def __init__(self, run: Run | None = None) -> None:
        import ipywidgets as widgets

        self.run = run
        self.slider = widgets.IntSlider(value=1, min=1, max=1, description="step k", continuous_update=False)
        self.previous = widgets.Button(description="◀ previous")
        self.next = widgets.Button(description="next ▶")
        self.page = widgets.HTML()
        self.legend = widgets.HTML(legend_html())  # the same key to the colours as the static page
        self.previous.on_click(lambda _: self.show(self.slider.value - 1))
        self.next.on_click(lambda _: self.show(self.slider.value + 1))
        self._moving = False
        self.slider.observe(lambda change: None if self._moving else self._draw(), names="value")
        self.widget = widgets.VBox([widgets.HBox([self.previous, self.slider, self.next]), self.legend, self.page])
        self._draw()

    def __call__(self, step: Step, run: Run) -> None:
        """`on_step` hook: follow a run as it happens, showing its newest step."""
        self.run = run
        self.show(step.index)

    def __repr__(self) -> str:
        if not self.run or not self.run.steps:
            return "StepViewer(no steps yet)"
        return (f"StepViewer({plural(len(self.run.steps), 'step')}, showing step {self.slider.value}, "
                f"outcome {self.run.outcome!r})")

    def show(self, k: int) -> None:
        """Move to step k (clamped to the steps that exist), drawing it once."""
        last = len(self.run.steps) if self.run else 1
        self._moving = True  # the slider's observer draws only what the learner moves; here we draw once, below
        try:
            self.slider.max = max(last, 1)
            self.slider.value = min(max(k, 1), self.slider.max)
        finally:
            self._moving = False
        self._draw()

    def _draw(self) -> None:
        if not self.run or not self.run.steps:
            self.page.value = "<i>no steps yet</i>"
            return
        self.slider.max = len(self.run.steps)
        self.page.value = step_html(self.run, self.slider.value)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle: dict[str, Any] = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        bundle["text/html"] = run_html(self.run) if self.run else "<i>no steps yet</i>"
        return bundle
