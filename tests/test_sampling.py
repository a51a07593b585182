"""The sampled scripted model: one seed, one run; other seeds, other runs; bad settings refused."""

import random

import pytest

from teachagent import Agent, Choices, Message, SampledScriptedModel, ScriptedModel, Text, call, one_of, tool
from teachagent.base.errors import CourseError, SettingError


@tool
def read_file(path: str) -> str:
    """Read a file.

    Args:
        path: the file's name, such as 'index.md'.
    """
    return f"the text of {path}"


def rereader(messages):
    """Reads index.md, then answers, or reads it once more first (four times in ten)."""
    if len(messages) == 1:
        return call("read_file", path="index.md")
    again = [Text("Let me read it once more."), call("read_file", path="index.md")]
    return one_of((0.6, "Done."), (0.4, again))


def run_with(seed: int):
    return Agent(SampledScriptedModel(rereader, seed=seed), tools=[read_file], max_steps=30).run("Read index.md.")


def test_the_same_seed_gives_the_same_run():
    first, again = run_with(3), run_with(3)
    assert [s.response.to_dict() for s in first.steps] == [s.response.to_dict() for s in again.steps]
    assert (len(first.steps), first.Z) == (len(again.steps), again.Z)


def test_reset_starts_the_generator_again_from_its_seed():
    model = SampledScriptedModel(rereader, seed=5)
    first = Agent(model, tools=[read_file], max_steps=30).run("Read index.md.")
    model.reset()
    again = Agent(model, tools=[read_file], max_steps=30).run("Read index.md.")
    assert len(again.steps) == len(first.steps) and again.Z == first.Z


def test_other_seeds_give_other_runs_as_often_as_the_probabilities_say():
    runs = [run_with(seed) for seed in range(200)]
    assert len({(len(r.steps), r.Z) for r in runs}) >= 3
    assert all(r.outcome == "answer" for r in runs)
    # K = 2 exactly when the first draw answers: probability 0.6
    answered_at_once = sum(len(r.steps) == 2 for r in runs) / len(runs)
    assert 0.5 < answered_at_once < 0.7


def test_draw_follows_the_probabilities():
    choices = one_of((0.25, "a"), (0.75, "b"))
    rng = random.Random(0)
    drawn = [choices.draw(rng) for _ in range(4000)]
    assert 0.22 < drawn.count("a") / len(drawn) < 0.28
    assert one_of((1.0, "only")).draw(rng) == "only"
    assert one_of((0.0, "never"), (1.0, "always")).draw(random.Random(1)) == "always"


def test_a_list_script_and_nested_choices_are_sampled_too():
    model = SampledScriptedModel([one_of((0.5, one_of((0.5, "a"), (0.5, "b"))), (0.5, "c"))], seed=0)
    assert model.complete("", [Message("user", "hi")]).text in {"a", "b", "c"}
    single = SampledScriptedModel(one_of((1.0, "only")), seed=1)
    assert single.complete("", [Message("user", "hi")]).text == "only"


def test_it_says_it_is_scripted():
    model = SampledScriptedModel(rereader, seed=7)
    assert isinstance(model, ScriptedModel)
    assert "scripted" in model.name and "seed 7" in model.name
    assert repr(model) == "SampledScriptedModel(name='scripted, sampled with seed 7', policy=rereader, seed=7, played=0)"
    assert model.describe() == "policy=rereader, sampled with seed 7"
    run = run_with(7)
    assert run.scripted and "scripted" in run.model
    assert repr(one_of((0.5, "yes"), (0.5, "no"))) == "one_of(0.5: 'yes', 0.5: 'no')"


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True, None, float("nan")])
def test_a_bad_seed_is_refused(seed):
    with pytest.raises(SettingError, match="seed must be a whole number of at least 0"):
        SampledScriptedModel(rereader, seed=seed)


@pytest.mark.parametrize("options, message", [
    ((), "at least one"),
    (("yes",), r"\(probability, reply\) pairs"),
    (((0.5, "a", "b"),), r"\(probability, reply\) pairs"),
    (((1.5, "a"),), "a probability in one_of must be a number between 0 and 1, got 1.5"),
    (((-0.1, "a"), (1.1, "b")), "between 0 and 1, got -0.1"),
    ((("half", "a"), (0.5, "b")), "between 0 and 1, got 'half'"),
    (((float("nan"), "a"),), "got nan"),
    (((0.5, "a"), (0.4, "b")), "must add up to 1, got 0.9"),
])
def test_bad_probabilities_are_refused_with_a_course_error(options, message):
    with pytest.raises(SettingError, match=message) as caught:
        one_of(*options)
    assert isinstance(caught.value, CourseError)


def test_choices_is_what_one_of_makes():
    assert one_of((1.0, "x")) == Choices(((1.0, "x"),))


def test_a_lesson_can_select_it_and_the_banner_says_it_is_scripted(capsys):
    from teachagent.course.modes import select_model

    model = SampledScriptedModel(rereader, seed=2)
    assert select_model(script=model, mode="offline") is model
    assert "ScriptedModel (policy=rereader, sampled with seed 2), not Claude" in capsys.readouterr().out
