"""Looking at a run: the static HTML page, what c_k is made of, and the step viewer."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teachagent.agent import Agent
from teachagent.base.errors import CourseError
from teachagent.course.viz import PREVIEW, StepViewer, compare_html, compare_runs, composition, legend_html, run_html, step_html
from teachagent.messages import Response, Text, ToolCall
from teachagent.scripted import ScriptedModel, call
from teachagent.tools import tool
from teachagent.trace import Run
from teachagent.usage import Usage

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@tool
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@tool
def echo(text: str) -> str:
    """Return the text it is given."""
    return text


@tool
def fail() -> str:
    """Always raise."""
    raise RuntimeError("the disk is on fire")


def play(script, task="What is 2 + 3?", **kw) -> Run:
    agent = Agent(ScriptedModel(script), tools=[add, echo, fail], system="You add numbers.", **kw)
    return agent.run(task)


def small_run() -> Run:
    """Three steps: a tool call, an unknown tool (an error), then the answer."""
    return play([call("add", a=2, b=3), call("subtract", a=2, b=3), "So 2 + 3 = 5."])


def mixed_run() -> Run:
    """Every kind of step: errors of each sort, two calls at once, a pause, long and non-ASCII text."""
    return play(
        [
            [Text("Let me add."), call("add", a=2, b=3)],
            call("subtract", a=1, b=1),  # unknown tool
            call("add", a="two", b=3),  # input that does not match the schema
            call("fail"),  # the tool raises
            [call("echo", text="é 漢字 " * 50), call("add", a=1, b=1)],  # two calls in one step
            Response([Text("still thinking...")], "pause_turn"),
            "The sum is 5.",
        ],
        max_steps=10,
    )


# --- run_html: the static page -----------------------------------------------------------


def test_the_page_shows_every_step():
    run = small_run()
    page = run_html(run)
    for step in run.steps:
        k = step.index
        assert f"Step {k} of 3" in page
        assert f"c_{k} = {step.context_tokens} tokens" in page
        assert f"<code>{step.response.stop_reason}</code>" in page
    assert "<code>add</code>" in page and "<code>subtract</code>" in page  # the tool calls
    assert "observation" in page and ">5</pre>" in page  # what add returned
    assert "error returned" in page and "there is no tool named" in page
    assert "So 2 + 3 = 5." in page and "<b>answer</b>" in page


def test_the_page_says_the_model_is_scripted():
    assert "scripted model, not Claude" in run_html(small_run())


def test_a_renamed_scripted_model_is_still_marked_as_scripted():
    run = Agent(ScriptedModel(["hi"], name="tutor")).run("t")
    assert "not Claude" in run_html(run)


def test_z_is_the_sum_of_the_c_k():
    run = small_run()
    z = sum(s.context_tokens for s in run.steps)
    assert f"Z = {z} tokens read" in run_html(run)
    assert f"Z so far = {z}</h4>" in step_html(run, 3)  # the last step's running total is Z


def test_a_run_with_no_steps_has_z_zero():
    page = run_html(Run("t", "scripted"))
    assert "0 steps" in page and "Z = 0 tokens read" in page


def test_a_run_has_no_html_of_its_own_the_viewer_draws_it():
    """trace.py knows nothing of views: the page comes from viz.run_html."""
    run = small_run()
    assert not hasattr(run, "_repr_html_") and run_html(run).startswith("<div><div><b>Run</b> of")


@pytest.mark.parametrize("where", ["answer", "observation", "tool input", "task"])
def test_text_is_escaped_wherever_it_comes_from(where):
    evil = "<script>alert('hi')</script>"
    script = {
        "answer": [evil],
        "observation": [call("echo", text=evil), "done"],
        "tool input": [call("add", a=1, b=2), call("echo", text=evil), "done"],
        "task": ["done"],
    }[where]
    page = run_html(play(script, task=evil if where == "task" else "t"))
    assert "<script>" not in page
    assert "&lt;script&gt;" in page


def test_long_observations_are_cut_with_a_note():
    run = play([call("echo", text="x" * (PREVIEW + 600)), "done"])
    page = run_html(run)
    assert "[600 more characters]" in page
    assert "x" * PREVIEW in page and "x" * (PREVIEW + 1) not in page


def test_short_text_is_not_cut():
    assert "more characters" not in run_html(play(["x" * PREVIEW]))


def test_the_page_is_the_same_for_identical_runs():
    first, second = small_run(), small_run()
    second.steps[0].seconds, first.steps[0].seconds = 123.0, 0.001  # timings always differ
    assert run_html(first) == run_html(second)


# --- composition: what c_k is made of ------------------------------------------------------


@pytest.mark.parametrize("make", [small_run, mixed_run])
def test_the_parts_of_c_k_add_up_to_c_k(make):
    run = make()
    for step in run.steps:
        assert sum(n for _, n in composition(run, step.index)) == step.context_tokens


def test_c_k_is_what_the_model_was_sent():
    run = mixed_run()
    assert run.outcome == "answer" and len(run.steps) == 7
    assert [s.response.usage.input_tokens for s in run.steps] == [s.context_tokens for s in run.steps]


def test_the_parts_are_labelled_in_order():
    run = small_run()
    assert [label for label, _ in composition(run, 1)] == ["system + tools", "task"]
    assert [label for label, _ in composition(run, 3)] == ["system + tools", "task", "v1", "N(v1)", "v2", "N(v2)"]


def test_a_step_with_no_observation_adds_only_its_v():
    run = mixed_run()  # step 6 is a pause_turn: no tool ran, so there is no N(v6)
    labels = [label for label, _ in composition(run, 7)]
    assert labels[-3:] == ["v5", "N(v5)", "v6"]


def test_composition_survives_saving_the_run():
    run = mixed_run()
    loaded = Run.from_json(run.to_json())
    assert [composition(loaded, k) for k in range(1, 8)] == [composition(run, k) for k in range(1, 8)]


@pytest.mark.parametrize("k", [0, -1, 4, 100])
def test_composition_of_a_step_that_does_not_exist(k):
    with pytest.raises(IndexError, match="steps 1 to 3"):
        composition(small_run(), k)


def test_composition_of_a_run_with_no_steps():
    with pytest.raises(IndexError):
        composition(Run("t", "scripted"), 1)


STEP_CHOICES = st.one_of(
    st.builds(lambda a, b: call("add", a=a, b=b), st.integers(-999, 999), st.integers(-999, 999)),
    st.builds(lambda s: call("echo", text=s), st.text(max_size=60)),
    st.just(call("fail")),
    st.just(call("nope")),
    st.builds(lambda s: [Text(s), call("add", a=1, b="x")], st.text(min_size=1, max_size=30)),
    st.builds(lambda s: Response([Text(s)], "pause_turn"), st.text(min_size=1, max_size=30)),
)


@settings(max_examples=30, deadline=None)
@given(steps=st.lists(STEP_CHOICES, max_size=6), task=st.text(min_size=1, max_size=40))
def test_the_parts_add_up_for_any_script(steps, task):
    run = play([*steps, "done"], task=task, max_steps=10)
    for step in run.steps:
        assert sum(n for _, n in composition(run, step.index)) == step.context_tokens


# --- StepViewer: the interactive view -------------------------------------------------------


def test_the_viewer_starts_at_step_1():
    run = small_run()
    viewer = StepViewer(run)
    assert repr(viewer) == "StepViewer(3 steps, showing step 1, outcome 'answer')"
    assert (viewer.slider.min, viewer.slider.max, viewer.slider.value) == (1, 3, 1)
    assert viewer.page.value == step_html(run, 1)


def test_the_viewer_repr_says_when_the_final_reply_said_nothing():
    run = Agent(ScriptedModel([");"])).run("t")
    assert repr(StepViewer(run)) == "StepViewer(1 step, showing step 1, outcome 'empty_answer')"


def test_the_viewer_repr_is_the_same_for_identical_runs():
    assert repr(StepViewer(small_run())) == repr(StepViewer(small_run()))


@pytest.mark.parametrize("k, shown", [(2, 2), (3, 3), (0, 1), (-5, 1), (4, 3), (99, 3)])
def test_show_moves_to_a_step_that_exists(k, shown):
    run = small_run()
    viewer = StepViewer(run)
    viewer.show(k)
    assert viewer.slider.value == shown
    assert viewer.page.value == step_html(run, shown)


def test_the_buttons_move_one_step_and_stop_at_the_ends():
    viewer = StepViewer(small_run())
    seen = []
    for button in ["previous", "next", "next", "next", "previous"]:
        getattr(viewer, button).click()
        seen.append(viewer.slider.value)
    assert seen == [1, 2, 3, 3, 2]


def test_moving_the_slider_redraws_the_page():
    run = small_run()
    viewer = StepViewer(run)
    viewer.slider.value = 2
    assert viewer.page.value == step_html(run, 2)


def test_every_move_draws_the_step_once(monkeypatch):
    from teachagent.course import viz

    drawn = []
    real = viz.step_html
    monkeypatch.setattr(viz, "step_html", lambda run, k, *rest: drawn.append(k) or real(run, k, *rest))
    viewer = StepViewer(small_run())
    moves = [lambda: viewer.next.click(), lambda: viewer.show(3), lambda: viewer.previous.click(),
             lambda: viewer.show(2), lambda: setattr(viewer.slider, "value", 1)]
    for move in moves:
        drawn.clear()
        move()
        assert drawn == [viewer.slider.value]  # one drawing, of the step now shown
    viewer = StepViewer()
    for step in small_run().steps:  # as on_step, step after step
        drawn.clear()
        viewer(step, small_run())
        assert drawn == [step.index]


@pytest.mark.parametrize("builder", ["run_html", "compare_html"])
def test_a_page_of_k_steps_counts_each_step_once(monkeypatch, builder):
    from teachagent.course import viz  # where composition counts each step

    def page(k: int) -> int:
        run = play([call("add", a=1, b=1)] * k + ["done"], max_steps=k + 1)
        counted = []
        real = viz.message_tokens
        monkeypatch.setattr(viz, "message_tokens", lambda message: counted.append(1) or real(message))
        viz.run_html(run) if builder == "run_html" else viz.compare_html({"a": run})
        monkeypatch.setattr(viz, "message_tokens", real)
        return len(counted)

    assert page(40) <= 2 * 41  # at most a v and an N per step: linear in K, not K²/2


def test_as_on_step_the_viewer_follows_the_run():
    viewer = StepViewer()
    seen = []

    def on_step(step, run):
        viewer(step, run)
        seen.append((viewer.slider.max, viewer.slider.value, viewer.page.value == step_html(run, step.index)))

    run = play([call("add", a=2, b=3), call("subtract"), "So 5."], on_step=on_step)
    assert seen == [(1, 1, True), (2, 2, True), (3, 3, True)]
    assert repr(viewer) == "StepViewer(3 steps, showing step 3, outcome 'answer')"
    assert viewer.run is run


def test_the_viewer_has_text_html_and_a_widget_view():
    run = small_run()
    viewer = StepViewer(run)
    bundle = viewer._repr_mimebundle_()
    assert bundle["text/plain"] == repr(viewer)
    assert bundle["text/html"] == run_html(run)  # what GitHub and nbviewer show
    assert bundle[WIDGET_VIEW]["model_id"] == viewer.widget.model_id


def test_a_viewer_with_no_run_says_so():
    viewer = StepViewer()
    assert repr(viewer) == "StepViewer(no steps yet)"
    assert "no steps yet" in viewer.page.value
    viewer.show(3)
    viewer.next.click()
    assert viewer.slider.value == 1 and "no steps yet" in viewer.page.value
    bundle = viewer._repr_mimebundle_()
    assert bundle["text/plain"] == "StepViewer(no steps yet)"
    assert "no steps yet" in bundle["text/html"] and WIDGET_VIEW in bundle


def test_the_answer_is_shown_whole_and_the_bars_are_explained():
    long_answer = "The answer is long. " * 60
    run = Agent(ScriptedModel([long_answer])).run("t")
    page = run_html(run)
    assert page.count(long_answer.strip()) == 1  # whole once, under "answer"; cut in the step itself
    assert "observation N(v_j)" in page and "system + tools" in page


def test_the_viewer_page_carries_the_colour_legend_of_the_static_page():
    viewer = StepViewer(play([call("add", a=2, b=3), "5"]))
    assert viewer.legend in viewer.widget.children and viewer.legend.value == legend_html()
    assert legend_html() in run_html(viewer.run)


def _widths(page: str) -> list[float]:
    return [float(w) for w in re.findall(r"width:([0-9.]+)%;background:#9e9e9e", page)]


def test_runs_side_by_side_share_one_scale():
    short = play(["5"])
    long = play([call("echo", text="a fairly long observation " * 40), call("add", a=2, b=3), "5"])
    page = compare_html({"short": short, "long": long})
    # the system prompt is the same in both runs, so its segment has the same width everywhere
    widths = _widths(page)
    assert len(widths) == len(short.steps) + len(long.steps)
    assert len(set(widths)) == 1
    # the widest c_k of all fills the whole width
    assert f"the widest bar is {max(s.context_tokens for s in long.steps)} tokens" in page
    assert f"Z = {short.Z} tokens read" in page and f"Z = {long.Z} tokens read" in page
    assert page.index("<b>short</b>") < page.index("<b>long</b>")


def test_the_comparison_shows_itself_in_a_notebook_and_names_its_runs():
    shown = compare_runs({"a": play(["5"]), "b": play([call("add", a=2, b=3), "5"])})
    assert shown._repr_html_().count("(scripted)") == 2
    assert re.fullmatch(r"Comparison\(a: K=1, Z=\d+, b: K=2, Z=\d+\)", repr(shown))


def test_a_run_with_no_steps_can_be_compared():
    empty = Run(task="t", model="scripted", system="s")
    assert "no steps" in compare_html({"empty": empty, "one": play(["5"])})


@pytest.mark.parametrize("runs", [{}, [], {"a": "not a run"}, None])
def test_comparing_something_that_is_not_runs_is_a_clear_error(runs):
    with pytest.raises(CourseError, match="compare_html"):
        compare_runs(runs)


def test_a_call_whose_arguments_were_not_json_shows_what_the_model_wrote():
    class Garbled:
        name = "garbled"

        def complete(self, system, messages, tools=(), max_tokens=1024):
            return Response([ToolCall("c1", "read_file", {}, unparsed='{"path": "a.md"')], "tool_use", Usage(5, 5))

    run = Agent(Garbled(), [echo], max_steps=1).run("t")
    page = step_html(run, 1)
    assert "not a JSON object" in page and "{&quot;path&quot;: &quot;a.md&quot;" in page and "<pre" in page


def test_a_comparison_of_many_steps_stays_short_one_bar_of_four_parts_a_call():
    run = play([call("echo", text="an observation " * 30)] * 12 + ["5"], max_steps=13)
    page = compare_html({"long": run})
    assert page.count("height:12px") <= 4 * len(run.steps)  # at most four parts a bar, however many steps before
    assert len(page) < 1000 + 500 * len(run.steps)
    assert f"c_1 = {run.context_sizes[0]:,} → c_K = {run.context_sizes[-1]:,} tokens" in page


def test_the_runs_of_beside_reference_are_compared_as_the_reference_and_yours_beside_it(capsys):
    from teachagent import beside_reference

    class Stubborn:
        name = "stubborn"

        def complete(self, system, messages, tools=(), max_tokens=1024):
            return Response([call("add", a=1, b=1)], "tool_use", Usage(10, 5), self.name)

    def run_on(model):
        return Agent(model, [add], max_steps=2).run("What is 2 + 3?")

    script = [call("add", a=2, b=3), "5"]
    alone = compare_runs({"a": beside_reference(run_on, ScriptedModel(list(script)), script)})
    assert list(alone.runs) == ["a"]
    both = compare_runs({"a": beside_reference(run_on, Stubborn(), script)})
    assert list(both.runs) == ["a, your model", "a, scripted reference"] and not both.runs["a, your model"].scripted
