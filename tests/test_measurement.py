"""A design measured over seeded runs (measurement.py, lesson 2), each step alone (steps_alone.py, lesson 7),
a real check with retries (checked_runs.py, lesson 7), and a measurement played from a recording in every
mode (course/replay.py's real_model_measurement). A scripted stand-in that samples with a seed plays the model:
its reply is a function of the seed and the conversation, as a seeded llama.cpp server's is."""

from __future__ import annotations

import re

import pytest

from teachagent import Agent, AgentError, AnswerForm, EvalTask, ScriptedModel, call, tool, tool_exchanges
from teachagent.base.errors import CourseError, SettingError
from teachagent.checked_runs import RETRY_SEEDS, measure_checked
from teachagent.course import replay
from teachagent.course.replay import Player, Recorder, read_cassette
from teachagent.estimate import Estimate
from teachagent.measurement import Design, Measurement, measure, measurement_table
from teachagent.steps_alone import AfterRightSteps, product

NOTES = {"fern.md": "# Boston fern\nWater every: 3 days.\n", "cactus.md": "# Cactus\nWater every: 21 days.\n",
         "pothos.md": "# Pothos\nWater every: 7 days.\n", "orchid.md": "# Orchid\nWater every: 10 days.\n"}
DAYS = {name: int(re.search(r"(\d+) days", text)[1]) for name, text in NOTES.items()}


@tool(choices={"name": lambda: list(NOTES)})
def read_note(name: str) -> str:
    """Read one of the notes."""
    return NOTES[name]


def says_only(number):
    return lambda answer: re.findall(r"\d+", answer) == [str(number)]


TASKS = [EvalTask(name, f"How many days apart for {name}?", says_only(days)) for name, days in DAYS.items()]


class Seeded:
    """A stand-in that samples with a seed: `policy(seed, messages)` is its reply. It notes each seed it was asked with."""

    def __init__(self, policy, name="seeded stand-in"):
        self.policy, self.name, self.seed, self.asked = policy, name, None, []

    def complete(self, system, messages, tools=(), max_tokens=1024, tool_choice="auto", answer_form=None):
        self.asked.append(self.seed)
        script = ScriptedModel(lambda conversation: self.policy(self.seed, conversation))
        script.played = script._calls = sum(m.role == "assistant" for m in messages)  # call ids go on within a run
        return script.complete(system, messages, tools, max_tokens, tool_choice, answer_form)


def reader(seed, messages):
    """Seed 0 and 1: the named note, then its number; seed 2: the named note, then a wrong number; seed 3: a wrong note."""
    question, done, seed = messages[0].text, tool_exchanges(messages), seed or 0  # unseeded: as seed 0
    named = re.search(r"\S+\.md", question)[0]
    if not done:
        return [call("read_note", name=named if seed % 4 != 3 else next(n for n in NOTES if n != named))]
    read = int(re.search(r"(\d+) days", done[0][1].content)[1])
    return f"Every {read + 1 if seed % 4 == 2 else read} days."


def named_note(task, run):
    calls = [c for step in run.steps for c in step.response.tool_calls]
    return bool(calls) and calls[0].input.get("name") == task.name


STEPS = {"named note": named_note, "right number": lambda task, run: task.passed(run)}
DESIGN = Design("read, then answer", lambda m: Agent(m, [read_note], max_steps=2))


def test_every_task_runs_under_every_seed_the_seed_set_before_each_run_and_put_back_after():
    model = Seeded(reader)
    model.seed = 99
    measured = measure(DESIGN, model, TASKS, range(4), STEPS)
    assert [(t.task.name, t.seed) for t in measured.trials] == [(task.name, s) for task in TASKS for s in range(4)]
    assert model.asked == [s for _ in TASKS for s in range(4) for _ in range(2)]  # two calls a run, each with its seed
    assert model.seed == 99
    assert measured.estimate == Estimate(8, 16)  # seeds 0 and 1 pass on every task
    assert [(name, (r.successes, r.trials)) for name, r in measured.step_rates()] == [
        ("named note", (12, 16)), ("right number", (8, 12))]
    assert [t.failed_at for t in measured.trials[:4]] == [None, None, 1, 0]
    rates = [r.rate for _, r in measured.step_rates()]
    assert rates[0] * rates[1] == pytest.approx(measured.estimate.rate)  # the chain's rates multiply to the task's
    assert measured.seeds == [0, 1, 2, 3] and measured.seeds_said == "seeds 0–3"
    assert measured.did() == "8 answered right, 8 answered wrong"
    assert repr(measured) == "Measurement('read, then answer': Estimate(8/16 = 0.500, 95% CI 0.280–0.720), seeds 0–3)"


def test_without_steps_a_run_passes_when_its_task_checker_accepts_the_answer():
    lucky = Seeded(lambda seed, messages: [call("read_note", name="fern.md")] if len(messages) == 1 else "Every 7 days.")
    measured = measure(DESIGN, lucky, TASKS, [5])
    assert measured.steps == ("right answer",)
    assert [t.passed for t in measured.trials] == [t.name == "pothos.md" for t in TASKS]  # right by luck counts here
    with_steps = measure(DESIGN, lucky, TASKS, [5], STEPS)
    assert with_steps.estimate.successes == 0  # but not when reading the named note is a step of the task


def test_a_model_without_a_seed_is_measured_unseeded():
    measured = measure(DESIGN, ScriptedModel(lambda messages: reader(0, messages)), TASKS[:2], range(3))
    assert [t.seed for t in measured.trials] == [None] * 6
    assert measured.seeds == [] and measured.seeds_said == "unseeded" and measured.estimate == Estimate(6, 6)


def test_a_run_that_raises_is_a_failed_trial_with_its_reason_and_a_check_that_raises_fails_its_step():
    def broken(seed, messages):
        if seed == 1:
            raise ConnectionError("the server went away")
        return reader(0, messages)

    def fussy(task, run):
        raise ValueError("no")

    measured = measure(DESIGN, Seeded(broken), TASKS[:1], [0, 1], STEPS)
    ok, failed = measured.trials
    assert ok.passed and ok.error is None
    assert failed.failed_at == 0 and failed.run.outcome == "error" and "the server went away" in failed.error
    assert measured.did() == "1 answered right, 1 failed"
    assert measurement_table([measured]).splitlines()[-1] == (
        "read, then answer: 1 of 2 runs failed; the first (fern.md, seed 1): "
        "AgentError: the model call at step 1 failed: ConnectionError: the server went away")
    fussed = measure(DESIGN, Seeded(reader), TASKS[:1], [0], {"named note": named_note, "fussy": fussy}).trials[0]
    assert fussed.failed_at == 1 and fussed.error == "the check 'fussy' raised ValueError: no"


def test_bad_measurements_are_refused_with_one_clear_error():
    with pytest.raises(CourseError, match="at least one task and one seed"):
        measure(DESIGN, Seeded(reader), [], [0])
    with pytest.raises(CourseError, match="at least one task and one seed"):
        measure(DESIGN, Seeded(reader), TASKS, [])
    with pytest.raises(CourseError, match="fern.md twice"):
        measure(DESIGN, Seeded(reader), [TASKS[0], TASKS[0]], [0])
    with pytest.raises(ValueError, match="seed"):
        measure(DESIGN, Seeded(reader), TASKS, [-1])


def test_the_table_has_a_row_a_design_and_a_column_a_step_by_name():
    model = Seeded(reader)
    rows = [measure(DESIGN, model, TASKS, range(4), STEPS),
            measure(Design("answer at once", lambda m: Agent(m, [read_note], max_steps=1)), model, TASKS, [3], STEPS),
            measure(Design("the step alone", lambda m: Agent(m, [read_note], max_steps=1)), model, TASKS, [0],
                    {"right number": STEPS["right number"]})]
    head, first, second, third = measurement_table(rows).splitlines()
    assert head.split() == ["design", "passed", "95", "%", "interval", "named", "note", "right", "number", "what", "the",
                            "runs", "did"]
    assert first.split()[3:7] == ["8/16", "0.28–0.72", "12/16", "8/12"]
    assert second.split()[4:7] == ["0.00–0.49", "0/4", "–"] and second.endswith("4 ran out of steps")
    assert third.split()[4:6] == ["0.00–0.49", "0/4"]  # its one step stands under its own name
    assert third.rindex("0/4") > head.index("right number")


def right_steps(messages):
    """The reference: the named note, then its number."""
    return reader(0, messages)


def test_after_right_steps_the_reference_plays_the_first_k_replies_and_the_model_the_rest():
    model = Seeded(reader)
    wrapped = AfterRightSteps(model, right_steps, 1)
    wrapped.seed = 3
    assert model.seed == 3 == wrapped.seed
    run = Agent(wrapped, [read_note], max_steps=2).run(TASKS[0].question)  # seed 3 would read the wrong note itself
    assert run.steps[0].response.tool_calls[0].input == {"name": "fern.md"} and run.answer == "Every 3 days."
    assert model.asked == [3]  # only the second call was the model's
    again = Agent(wrapped, [read_note], max_steps=2).run(TASKS[0].question)
    assert again.steps[0].response.tool_calls[0].id == run.steps[0].response.tool_calls[0].id  # each run starts afresh
    assert "after 1 right steps" in repr(wrapped)
    with pytest.raises(SettingError, match="takes no seed"):  # a scripted model samples nothing a seed could repeat
        AfterRightSteps(ScriptedModel(right_steps), right_steps, 1).seed = 1
    step_alone = measure(Design("step 2 alone", lambda m: Agent(AfterRightSteps(m, right_steps, 1), [read_note],
                                                               max_steps=2)), model, TASKS, range(4), STEPS)
    assert step_alone.estimate == Estimate(12, 16)  # seed 3's wrong note never happens: only seed 2's number is wrong


def test_a_product_of_rates_gives_the_range_their_intervals_allow():
    rate, (low, high) = product([Estimate(9, 10), Estimate(1, 2)])
    assert rate == pytest.approx(0.45)
    assert low == pytest.approx(Estimate(9, 10).interval[0] * Estimate(1, 2).interval[0])
    assert high == pytest.approx(Estimate(9, 10).interval[1] * Estimate(1, 2).interval[1])
    with pytest.raises(ValueError):
        product([])


def in_the_note_read(task, run):
    read = [r.content for step in run.steps for r in step.results]
    said = re.findall(r"\d+", run.answer or "")
    return bool(read and said) and set(said) <= set(re.findall(r"\d+", read[-1]))


def test_a_check_with_retries_measures_p_delta_and_q_and_the_formula_gives_its_own_q():
    model = Seeded(lambda seed, messages: reader(seed if seed < RETRY_SEEDS else 0, messages))  # every retry: as seed 0
    checked = measure_checked(DESIGN, model, TASKS[:1], range(4), in_the_note_read, retries=2, steps=STEPS,
                              check_name="number in the note read")
    first_seeds = [[a.seed for a in t.attempts] for t in checked.trials]
    assert first_seeds == [[0], [1], [2, 1002], [3]]  # seed 2's wrong number is caught; the retry reads it right
    assert checked.p == Estimate(2, 4)
    assert checked.delta == Estimate(1, 2)  # the wrong note's own number stands in the note read: missed
    assert [checked.q(r).successes for r in range(3)] == [2, 3, 3]
    assert checked.formula_q(1) == pytest.approx(0.5 * (1 + 0.5 * 0.5))
    assert checked.retried == Estimate(1, 1) and checked.false_alarms == 0
    assert checked.steps == ("named note", "right number")
    with pytest.raises(ValueError):
        checked.q(3)


def test_retries_stop_at_the_first_attempt_the_check_accepts_and_none_left_is_a_failure():
    always_wrong = Seeded(lambda seed, messages: reader(2, messages))
    checked = measure_checked(DESIGN, always_wrong, TASKS[:1], [0], in_the_note_read, retries=2)
    (trial,) = checked.trials
    assert [a.seed for a in trial.attempts] == [0, 1000, 2000] and trial.objected == (True, True, True)
    assert not any(trial.passed(r) for r in range(3))
    assert checked.retried == Estimate(0, 2)


# --- a measurement played from a recording, in every mode --------------------------------------

SMALL = "SmolLM2-135M-Instruct (local mode, seed 0)"


@pytest.fixture
def nothing_open(monkeypatch):
    """No recorder or player of select_model's is open in this process (as in an offline kernel)."""
    monkeypatch.setattr(replay, "_open", {})
    return replay._open


def ladder(model, tasks=TASKS, seeds=range(4)):
    return [measure(DESIGN, model, tasks, seeds, STEPS),
            measure(Design("answer held", lambda m: Agent(m, [read_note], max_steps=2,
                                                          answer_form=AnswerForm(pattern=r"Every \d+ days\."))),
                    model, tasks, seeds, STEPS)]


def counts(measured):
    return [(t.task.name, t.seed, t.passed, t.run.answer) for m in measured for t in m.trials]


def recorded(folder):
    """A lesson's recording of the ladder, after another cell's calls, made through the real Recorder."""
    cassette = folder / "cassettes" / "02_lesson.jsonl"
    recorder = replay.cassette_model("record", cassette, Seeded(reader), SMALL)
    Agent(recorder, [read_note]).run(TASKS[0].question)  # a cell above calls the model too
    measured = replay.real_model_measurement(ladder, cassette, "the ladder")
    recorder.finish()
    return cassette, measured


def test_a_recorded_measurement_replays_to_the_same_counts_in_any_order(tmp_path, nothing_open, capsys):
    cassette, measured = recorded(tmp_path)
    assert capsys.readouterr().out == (f"a real model's runs, {SMALL}, recorded now into {cassette.resolve()}, "
                                       "the same recording as your model's runs in this notebook\n")
    assert [r["label"] for r in read_cassette(cassette) if r["kind"] == "mark"] == ["measurement: the ladder"]
    assert all(r["request"]["seed"] in range(4) for r in read_cassette(cassette)[3:] if r["kind"] == "complete")
    nothing_open.clear()
    played = replay.real_model_measurement(ladder, cassette, "the ladder")
    assert counts(played) == counts(measured)
    assert capsys.readouterr().out == f"a real model's runs, {SMALL}, played from {cassette}\n"
    backwards = replay.real_model_measurement(lambda m: ladder(m, TASKS[::-1], [3, 2, 1, 0]), cassette, "the ladder")
    assert sorted(counts(backwards)) == sorted(counts(measured))
    assert [m.estimate for m in backwards] == [m.estimate for m in measured]


def test_in_replay_mode_the_measurement_plays_from_the_cassette_being_replayed(tmp_path, nothing_open, capsys):
    cassette, measured = recorded(tmp_path)
    nothing_open.clear()
    player = replay.cassette_model("replay", cassette)
    Agent(player, [read_note]).run(TASKS[0].question)
    played = replay.real_model_measurement(ladder, tmp_path / "elsewhere.jsonl", "the ladder")
    assert counts(played) == counts(measured)
    assert f"played from {cassette.resolve()}" in capsys.readouterr().out


def test_a_recording_that_misses_runs_or_is_missing_is_one_line_with_the_command(tmp_path, nothing_open, capsys,
                                                                               monkeypatch):
    cassette, _ = recorded(tmp_path)
    capsys.readouterr()
    nothing_open.clear()
    monkeypatch.chdir(tmp_path.parent)
    assert replay.real_model_measurement(lambda m: ladder(m, seeds=range(5)), cassette, "the ladder") is None
    assert capsys.readouterr().out == (
        f"the recording at {cassette} does not hold these runs (its prompts changed since it was recorded); record it "
        f"again with: TEACHAGENT_LOCAL_SEED=0 python -m teachagent notebook record {tmp_path.name}/02_lesson.ipynb "
        "--mode local\n")
    assert replay.real_model_measurement(ladder, tmp_path / "cassettes" / "03_other.jsonl", "the ladder") is None
    assert capsys.readouterr().out.startswith("no recording of a real model at ")


def test_a_player_counts_the_requests_it_could_not_answer(tmp_path):
    cassette, _ = recorded(tmp_path / "x")
    player = Player(cassette)
    Agent(player, [read_note]).run(TASKS[0].question)
    assert player.unanswered == 0
    with pytest.raises(AgentError, match="never recorded"):
        Agent(player, [read_note]).run("not recorded")
    assert player.unanswered == 1


def test_measurements_are_data_with_a_short_repr():
    trial = measure(DESIGN, Seeded(reader), TASKS[:1], [2], STEPS).trials[0]
    assert repr(trial) == "Trial('fern.md', seed 2: failed at step 2, answer)"
    assert isinstance(Measurement("x", ("a",), (trial,)).estimate, Estimate)
    assert repr(DESIGN) == "Design('read, then answer')"
    assert isinstance(Recorder, type)
