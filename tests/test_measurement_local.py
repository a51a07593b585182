"""A seeded measurement of the real small model: recorded, it replays to the same counts in any order, with no model;
measured again live on the same seeds, it lands inside the recorded interval. Short: 8 runs of two calls, one thread.
Skipped, with the reason, when the local extra or the model file is not installed."""

from __future__ import annotations

import re

import pytest

from teachagent import Agent, AnswerForm, EvalTask, tool
from teachagent.course import local
from teachagent.course.replay import Player, Recorder
from teachagent.measurement import Design, measure

pytestmark = pytest.mark.local

try:
    local.check_installed()
except local.LocalModelMissing as missing:
    pytest.skip(str(missing), allow_module_level=True)

NOTES = {"fern.md": "# Boston fern\nWater every: 3 days.\n", "cactus.md": "# Cactus\nWater every: 21 days.\n"}


@tool(choices={"name": lambda: list(NOTES)})
def read_note(name: str) -> str:
    """Read one of the user's plant notes and return its text."""
    return NOTES[name]


def says_only(number):
    return lambda answer: re.findall(r"\d+", answer) == [str(number)]


TASKS = [EvalTask(name, f"How many days apart should I water my plant? Its note is {name}.",
                  says_only(re.search(r"(\d+) days", text)[1])) for name, text in NOTES.items()]


def read_first(run):
    return "none" if any(step.results for step in run.steps) else "read_note"


def numbers_read(run):
    read = [r.content for step in run.steps for r in step.results if not r.is_error]
    found = sorted(set(re.findall(r"\d+", read[-1]))) if read else []
    return AnswerForm(pattern=rf"Every ({'|'.join(found)}) days\.") if found else AnswerForm(pattern=r"Every [0-9]{1,3} days\.")


HELD = Design("held", lambda m: Agent(m, [read_note], system="First read the note the question names, then answer.",
                                      max_steps=2, max_tokens=48, tool_choice=read_first, answer_form=numbers_read))


def verdicts(measured):
    return sorted((t.task.name, t.seed, t.passed, t.run.answer) for t in measured.trials)


@pytest.fixture(scope="module")
def server():
    started = local.start_server(threads=1)
    yield started
    started.stop()


def test_a_recorded_measurement_replays_to_the_same_counts_and_a_live_one_lands_in_its_interval(server, tmp_path):
    cassette = tmp_path / "measured.jsonl"
    recorder = Recorder(local.local_model(server), cassette, source="SmolLM2-135M-Instruct (local mode, seed 0)")
    recorded = measure(HELD, recorder, TASKS, range(4))
    recorder.finish()
    assert recorder.seed is None  # put back after the last run

    replayed = measure(HELD, Player(cassette), TASKS[::-1], [3, 2, 1, 0])  # no model: the player answers, in any order
    assert verdicts(replayed) == verdicts(recorded) and replayed.estimate == recorded.estimate

    live = measure(HELD, local.local_model(server), TASKS, range(4))
    assert recorded.estimate.agrees_with(live.estimate.rate)
    for trial in live.trials:  # the grammar: a read of a note that exists, then an answer of the form
        call = trial.run.steps[0].response.tool_calls[0]
        assert call.name == "read_note" and call.input["name"] in NOTES
