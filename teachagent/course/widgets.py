"""The course's interactive widgets (course machinery; notebooks/03_agent_loop.ipynb and 07_reliability.ipynb).

- `play(agent, task)`: you are the model. The loop runs on a helper thread and waits for
  the Send button, so the kernel stays free to receive the click.
- `SuccessExplorer`: sliders for p, δ, r and n over the reliability formulas.

(The step viewer, `StepViewer`, lives with the static view of a run in viz.py.)
ipywidgets and matplotlib are imported only when a widget is made.
"""

from __future__ import annotations

import html
import queue
import threading
from dataclasses import dataclass, field
from typing import Any

from ..base.display import terminal_text
from ..human import HumanModel, example_call, pointing_at
from ..reliability import floor_n50, n50, step_success, task_success
from ..trace import Run
from .plots import plot_task_success, task_length_range


@dataclass(repr=False)
class Session:
    """One run in which a person plays the model in a notebook widget.

    The loop runs on a helper thread and waits for the Send button; `run` is the finished
    `Run` (None while it goes on), `error` whatever stopped it otherwise. `page` shows what
    is new since the last reply, so the newest tool results are at the top of the box;
    `whole` holds the whole page the model reads, folded.
    """

    page: Any
    whole: Any
    problem: Any
    reply: Any
    send: Any
    widget: Any
    replies: queue.Queue[str] = field(default_factory=queue.Queue)  # what the learner typed, one reply at a time
    run: Run | None = None
    error: BaseException | None = None
    thread: threading.Thread | None = None

    def __repr__(self) -> str:
        state = "waiting for your reply" if self.run is None and self.error is None else (
            f"finished: {self.run!r}" if self.run else f"stopped: {self.error}")
        return f"Session({state})"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle: dict[str, Any] = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle

    def type_and_send(self, typed: str) -> None:
        """What the Send button does: hand the typed reply to the waiting loop."""
        self.replies.put(typed)


def refusal(problem: str, typed: str, where: int | None) -> str:
    """The "not sent" line for a refused reply, with the line at fault and a caret at the mistake when known."""
    shown = f"<b style='color:#b00'>not sent:</b> {html.escape(problem)}"
    if where is not None and typed:
        shown += f"<pre style='margin:2px 0'>{html.escape(pointing_at(typed, where))}</pre>"
    return shown


def play(agent: Any, task: str) -> Session:
    """Let the person in front of the notebook play `agent`'s model for one run on `task`.

    `agent.model` must be a `HumanModel`; its `ask` and `show` are pointed at the widget. A
    reply that cannot be sent stays in the box, with the mistake marked, to be fixed.
    """
    import ipywidgets as widgets

    if not isinstance(agent.model, HumanModel):
        raise TypeError(f"play() needs an Agent whose model is a HumanModel, got {agent.model!r}")
    model = agent.model
    whole_page = widgets.Textarea(disabled=True, layout=widgets.Layout(width="100%", height="320px"))
    session = Session(
        page=widgets.Textarea(disabled=True, layout=widgets.Layout(width="100%", height="240px")),
        whole=widgets.Accordion(children=[whole_page], titles=("The whole page the model reads",), selected_index=None),
        problem=widgets.HTML(),
        reply=widgets.Textarea(placeholder=f"The answer, or: {example_call(agent.specs[0])}"
                               if agent.specs else "The answer",
                               layout=widgets.Layout(width="100%", height="80px")),
        send=widgets.Button(description="Send", button_style="primary"),
        widget=None,
    )
    session.widget = widgets.VBox([session.page, session.problem, session.reply, session.send, session.whole])

    def ask(page: str, problem: str | None) -> str:  # runs on the loop's thread, which waits here for a click
        if problem:  # the reply stays where it was typed, to be fixed
            session.problem.value = refusal(problem, model.typed, model.mistake)
            session.reply.focus()
        else:  # the last reply was sent (or the whole page asked for): a fresh box for the next one
            session.page.value, session.problem.value, session.reply.value = terminal_text(page), "", ""
        whole_page.value = terminal_text(model.page)  # what tools wrote, shown as safe text (base/display.py)
        return session.replies.get()

    def loop() -> None:
        try:
            session.run = agent.run(task)
            answer = f"\nThe answer: {session.run.answer}" if session.run.answer is not None else ""
            session.page.value = (f"The run is over: {session.run.outcome}.{answer}\n"
                                  "Look at it with StepViewer(session.run).")
        except Exception as error:  # shown in the widget: the kernel's main thread is not there to see it
            session.error = error
            session.page.value = f"The run stopped: {type(error).__name__}: {error}"
        session.problem.value = ""  # a "not sent" from before the end says nothing now
        session.send.disabled = session.reply.disabled = True

    model.answers = None
    model.ask, model.show = ask, lambda problem: None
    session.send.on_click(lambda _: session.type_and_send(session.reply.value))
    session.thread = threading.Thread(target=loop, name="teachagent-you-are-the-model", daemon=True)
    session.thread.start()
    return session


class SuccessExplorer:
    """Sliders for p, δ (`delta`), r and n, with q, qⁿ, n₅₀ and the success curve updated as they move.

    Outside a widget-aware frontend it shows its numbers as text; draw the static curve
    with `plot_task_success` for such renderers.
    """

    def __init__(self, p: float = 0.9, delta: float = 0.9, r: int = 2, n: int = 20) -> None:
        import ipywidgets as widgets

        self.p = widgets.FloatSlider(value=p, min=0.5, max=0.999, step=0.001, readout_format=".3f", description="p")
        self.delta = widgets.FloatSlider(value=delta, min=0.0, max=1.0, step=0.01, description="δ")
        self.r = widgets.IntSlider(value=r, min=0, max=5, description="r (retries)")
        self.n = widgets.IntSlider(value=n, min=1, max=200, description="n (steps)")
        self.readout = widgets.HTML()
        self.plot = widgets.Image(format="png")  # a picture, not captured output: same in every frontend
        for slider in (self.p, self.delta, self.r, self.n):
            slider.observe(lambda change: self._draw(), names="value")
        self.widget = widgets.VBox([widgets.HBox([self.p, self.delta]), widgets.HBox([self.r, self.n]), self.readout, self.plot])
        self._draw()

    def summary(self) -> str:
        q = step_success(self.p.value, self.delta.value, self.r.value)
        half = f"{n50(q):.1f}, ⌊n₅₀⌋ = {floor_n50(q)}" if 0 < q < 1 else "∞"
        return (
            f"p={self.p.value:g}, δ={self.delta.value:g}, r={self.r.value}, n={self.n.value}: q = {q:.5f}, "
            f"task success qⁿ = {task_success(q, self.n.value):.3f} (unchecked pⁿ = {self.p.value ** self.n.value:.3f}), "
            f"n₅₀ = {half}"
        )

    def __repr__(self) -> str:
        return f"SuccessExplorer({self.summary()})"

    def _draw(self) -> None:
        import io

        import matplotlib.pyplot as plt

        self.readout.value = self.summary()
        figure, ax = plt.subplots(figsize=(6, 3.2))
        p, delta, r, n = self.p.value, self.delta.value, self.r.value, self.n.value
        n_max = task_length_range(p, delta, r, n)  # both n₅₀ and n in view
        plot_task_success(p, delta, r, n_max=n_max, ax=ax)
        ax.axvline(n, color="black", linewidth=0.8, label=f"your task: n = {n} steps")
        ax.legend(fontsize=8)  # again, so that the line for n has its entry too
        figure.tight_layout()
        png = io.BytesIO()
        figure.savefig(png, format="png")
        plt.close(figure)
        self.plot.value = png.getvalue()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle: dict[str, Any] = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        bundle["text/html"] = f"<pre>{self.summary()}</pre>"
        return bundle
