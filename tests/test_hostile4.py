"""Hostile input, round four (issue 33): no credential of a server's address in any shown or stored
text; what the loop accepts the formats store; bad input is one line or an error result the model
reads; checks cannot be fooled by what the learner's code hands them, nor refuse a right answer.

Local mode (teachagent/course/local.py) and the kept vocabulary have tests of their own.
"""

from __future__ import annotations

import base64
import json
import logging
import traceback
from types import SimpleNamespace
from urllib.parse import quote

import numpy as np
import pytest
from fake_anthropic import EchoInReply
from fake_openai import FakeOpenAI, completion_body, function_call
from hypothesis import given, settings
from hypothesis import strategies as st

import teachagent.__main__ as cli
from teachagent import Agent, ScriptedModel, tool
from teachagent.base.errors import CourseError, exception_text
from teachagent.base.http import HIDDEN, Address, Secret, UnexpectedReply, without
from teachagent.course.modes import select_model
from teachagent.course.replay import Player, Recorder
from teachagent.dispatch import Dispatcher
from teachagent.exercises import check, guess_line, plain, quiz, solution
from teachagent.exercises.lesson1 import check_smallest_whole
from teachagent.exercises.lesson2 import check_fixed_call, check_to_fahrenheit
from teachagent.exercises.lesson7 import check_fifty_steps, check_q_by_hand
from teachagent.exercises.quizzes import NoSuchQuestion
from teachagent.exercises.reveal import NoSuchSolution
from teachagent.messages import Message, Response, Text, ToolCall
from teachagent.openai_compatible import OpenAICompatible, to_response
from teachagent.trace import Run

PASSWORD = "pw-" + "Qz7" * 6  # made here, not written out: the repository's key scan must find nothing
QUERY_KEY = "qk-" + "Lm4" * 6
API_KEY = "sk-test-" + "Vb8" * 6


@pytest.fixture
def fake():
    with FakeOpenAI() as server:
        yield server


def _with_credentials(url: str) -> str:
    """The fake's address with a user name and password and a key in its query."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://ada:{PASSWORD}@{rest}?api-version=2&api_key={QUERY_KEY}"


def _frames_text(error: BaseException) -> str:
    """Every variable of every frame the error (and what it chains) carries, as %xmode Verbose would show them;
    the test's own frames, which hold the address it wrote, are left out, as a learner's cell would be."""
    shown, seen, pending = [], set(), [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        shown.append("".join(traceback.format_exception_only(current)))
        tb = current.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename != __file__:
                shown += [f"{name}={value!r}" for name, value in tb.tb_frame.f_locals.items()]
            tb = tb.tb_next
        pending += [e for e in (current.__cause__, current.__context__) if e is not None]
    return "\n".join(shown)


# --- a secret in the server's address ----------------------------------------------------------------


@pytest.mark.server  # starts a local fake API server
def test_credentials_in_the_address_are_sent_but_never_shown_logged_or_stored(fake, tmp_path, caplog):
    caplog.set_level(logging.INFO)
    fake.queue((200, completion_body("all well"), {}))
    model = OpenAICompatible("fake-model", _with_credentials(fake.base_url), max_retries=0, timeout=5)
    recorder = Recorder(model, tmp_path / "c.jsonl")
    run = Agent(recorder).run("hello")
    assert run.answer == "all well"
    sent = fake.requests[0]
    assert sent.headers["authorization"] == "Basic " + base64.b64encode(f"ada:{PASSWORD}".encode()).decode()
    assert f"api_key={QUERY_KEY}" in sent.path and "api-version=2" in sent.path
    shown = [model.name, repr(model), model.server, run.model, run.to_json(), repr(run),
             recorder.finish().read_text(), Player(tmp_path / "c.jsonl").name, caplog.text]
    assert "HTTP Request" in caplog.text  # httpx's INFO line was logged, with the credentials cut out
    for text in shown:
        assert PASSWORD not in text and QUERY_KEY not in text and "ada:" not in text


@pytest.mark.server  # starts a local fake API server
def test_the_banners_and_the_cli_show_no_credential(fake, monkeypatch, tmp_path, capsys):
    fake.queue((200, completion_body("KL is not a distance"), {}))
    code = cli.main(["--mode", "record", "--base-url", _with_credentials(fake.base_url), "--model", "fake-model",
                     "--cassette", str(tmp_path / "c.jsonl"), "--json", str(tmp_path / "run.json"), "--max-steps", "2"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    monkeypatch.setenv("TEACHAGENT_BASE_URL", _with_credentials(fake.base_url))
    monkeypatch.setenv("TEACHAGENT_MODEL", "fake-model")
    select_model(mode="live")
    select_model(mode="replay", cassette=tmp_path / "c.jsonl")
    banners = capsys.readouterr().out
    assert "live mode" in banners and "replay mode" in banners
    for text in (printed.out, printed.err, banners, (tmp_path / "c.jsonl").read_text(), (tmp_path / "run.json").read_text()):
        assert PASSWORD not in text and QUERY_KEY not in text


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("fault", ["500", "refused", "malformed"])
def test_no_frame_an_error_carries_holds_a_credential_of_the_address(fake, fault):
    if fault == "500":
        fake.queue((500, {"error": {"message": "down"}}, {"x-should-retry": "false"}))
        url = _with_credentials(fake.base_url)
    elif fault == "refused":
        url = f"http://ada:{PASSWORD}@127.0.0.1:9/v1?token={QUERY_KEY}"  # port 9 (discard): nothing listens
    else:
        url = f"http://ada:{PASSWORD}@[::1?token={QUERY_KEY}"
    with pytest.raises(Exception) as caught:
        OpenAICompatible("fake-model", url, max_retries=0, timeout=5).complete("", [Message("user", "hi")])
    text = _frames_text(caught.value)
    assert PASSWORD not in text and QUERY_KEY not in text


@pytest.mark.server  # starts a local fake API server
def test_a_reply_that_echoes_the_key_stores_it_nowhere(fake, tmp_path):
    echo = EchoInReply(lambda header: completion_body(f"you sent {header}", model=f"echo {header}"))
    fake.queue(echo)
    model = OpenAICompatible("fake-model", fake.base_url, API_KEY, max_retries=0, timeout=5)
    recorder = Recorder(model, tmp_path / "c.jsonl")
    run = Agent(recorder).run("hello")
    assert run.answer == f"you sent Bearer {HIDDEN}"
    assert run.steps[0].response.model == f"echo Bearer {HIDDEN}"
    for text in (run.to_json(), recorder.finish().read_text()):
        assert API_KEY not in text


def test_a_url_password_and_a_key_together_are_refused_in_one_line():
    with pytest.raises(CourseError) as caught:
        OpenAICompatible("m", f"http://ada:{PASSWORD}@127.0.0.1:9/v1", API_KEY)
    assert "\n" not in str(caught.value) and PASSWORD not in str(caught.value) and API_KEY not in str(caught.value)


NAMES = st.sampled_from(["key", "api_key", "apikey", "api-key", "token", "access_token", "sig", "signature",
                         "password", "secret", "X-Api-Key", "auth", "client_secret"])
SECRETS = st.text(st.sampled_from("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_.~+/=%"),
                  min_size=12, max_size=40)


@settings(max_examples=60, deadline=None)
@given(secret=SECRETS, where=st.sampled_from(["password", "user", "query", "fragment"]), name=NAMES,
       before=st.sampled_from(["", "api-version=2&", "a=1&b=&"]), after=st.sampled_from(["", "&x=y", "#frag"]),
       path=st.sampled_from(["/v1", "", "/openai/v1/"]))
def test_a_credential_anywhere_in_the_address_is_in_no_shown_or_stored_text(secret, where, name, before, after, path):
    written = quote(secret, safe="")  # as a URL carries it; its decoded form is the secret too
    if where == "password":
        url = f"https://ada:{written}@example.test{path}?{before}q=1{after}"
    elif where == "user":
        url = f"https://{written}@example.test{path}?{before}q=1{after}"
    elif where == "query":
        url = f"https://example.test{path}?{before}{name}={written}{after}"
    else:  # a fragment is never sent, so it is dropped whole
        url = f"https://example.test{path}?{before}q=1#{name}={written}"
    address = Address(url)
    model = OpenAICompatible("m", url, timeout=5)
    echoed = {"text": f"{url} {address.authorization.reveal() if address.authorization else ''} {secret} {written}",
              "model": secret, "calls": [written, {"input": url}]}
    shown = [address.url, repr(address), model.name, repr(model), model.server, json.dumps(model._guarded.scrub(echoed))]
    for text in shown:
        assert secret not in text and written not in text
    assert "example.test" in model.name


# --- data loss: what the loop accepts, the formats store -------------------------------------------


@pytest.mark.server  # starts a local fake API server
@pytest.mark.parametrize("name", [123, {"a": 1}, ["m"]])
def test_a_reply_whose_model_is_not_text_is_refused_at_the_door_and_the_run_saves(fake, tmp_path, capsys, name):
    fake.queue((200, completion_body("hi", model=name), {}))
    code = cli.main(["--mode", "live", "--base-url", fake.base_url, "--model", "fake-model",
                     "--json", str(tmp_path / "run.json"), "--max-steps", "2"])
    err = capsys.readouterr().err
    assert code == 1 and "UnexpectedReply" in err and "model" in err and len(err.strip().splitlines()) == 2
    assert Run.load(tmp_path / "run.json").outcome == "error"


def test_a_response_whose_model_is_not_text_is_refused_when_made():
    with pytest.raises(TypeError, match="model must be a str"):
        Response([Text("hi")], "end_turn", model=123)  # type: ignore[arg-type]


# --- replies read as the API documents them, in one line otherwise -------------------------------------


def _reply(content="hi", finish="stop", usage=None, model="m", calls=None):
    message = SimpleNamespace(content=content, tool_calls=calls)
    return SimpleNamespace(id="r1", model=model, choices=[SimpleNamespace(message=message, finish_reason=finish)],
                           usage=SimpleNamespace(**(usage or {"prompt_tokens": 3, "completion_tokens": 2})))


def _call(id, name="echo", arguments="{}"):
    return SimpleNamespace(id=id, function=SimpleNamespace(name=name, arguments=arguments))


@pytest.mark.parametrize("reply", [
    _reply(finish={"stop": 1}), _reply(finish=["stop"]), _reply(usage={"prompt_tokens": "12"}),
    _reply(usage={"prompt_tokens": 3, "completion_tokens": [2]}), _reply(content=42),
    _reply(content=[{"type": "image_url", "image_url": {"url": "x"}}]),
])
def test_a_reply_in_no_documented_shape_is_one_unexpected_reply(reply):
    with pytest.raises(UnexpectedReply) as caught:
        to_response(reply)
    assert "\n" not in str(caught.value)


def test_content_as_a_list_of_text_parts_is_joined():
    parts = [{"type": "text", "text": "KL is "}, {"type": "text", "text": "not symmetric."}]
    assert to_response(_reply(content=parts)).text == "KL is not symmetric."


def test_tool_call_ids_are_unique_within_a_run_whatever_the_server_sends():
    ids: set[str] = set()
    first = to_response(_reply(None, "tool_calls", calls=[_call("call_0"), _call(None), _call("")]), ids=ids)
    second = to_response(_reply(None, "tool_calls", calls=[_call("call_0"), _call("call_0")]), ids=ids)
    every = [c.id for c in first.tool_calls + second.tool_calls]
    assert every[0] == "call_0" and len(set(every)) == 5 and all(every)


@tool
def echo(text: str) -> str:
    """Give the text back.

    Args:
        text: any text.
    """
    return text


@pytest.mark.server  # starts a local fake API server
def test_a_lone_surrogate_a_tool_echoed_is_sent_at_the_next_step(fake):
    fake.queue((200, completion_body(None, [function_call("c1", "echo", '{"text": "half \\ud800 a pair"}')],
                                     "tool_calls"), {}),
               (200, completion_body("done"), {}))
    run = Agent(OpenAICompatible("fake-model", fake.base_url, max_retries=0, timeout=5), [echo]).run("echo it")
    assert run.answer == "done"
    assert "half \ufffd a pair" in json.dumps(fake.requests[1].body, ensure_ascii=False)


# --- raw tracebacks: one line, or an error result the model reads -------------------------------------------


@pytest.mark.parametrize("question", ["3.9", "99.1", 3.1, "².1", "9" * 5000 + ".1", None])
def test_quiz_names_a_question_that_does_not_exist_in_one_line(question):
    with pytest.raises(NoSuchQuestion) as caught:
        quiz(question, "a")
    rendered = caught.value._render_traceback_()
    assert len(rendered) == 1 and "\n" not in rendered[0] and len(rendered[0]) < 300 and "3.1" in rendered[0]


@pytest.mark.parametrize("exercise", ["9" * 5000 + ".1", "².1", 2.1, "99.1"])
def test_solution_names_an_exercise_that_does_not_exist_in_one_line(exercise):
    with pytest.raises(NoSuchSolution) as caught:
        solution(exercise)
    assert len(str(caught.value)) < 300 and "named like '2.1'" in str(caught.value)


class UnnamedMeta(type):
    @property
    def __name__(cls):
        raise RuntimeError("no name")


class Unnamed(Exception, metaclass=UnnamedMeta):
    pass


class Unsplittable(str):
    def split(self, *args):
        raise RuntimeError("no split")

    def __len__(self):
        raise RuntimeError("no len")


class OddMessage(Exception):
    def __str__(self):
        return Unsplittable("odd message")


class NoMessage(Exception):
    def __str__(self):
        raise RuntimeError("no message")


@pytest.mark.parametrize("error, said", [(Unnamed("x"), "an exception: x"), (OddMessage(), "OddMessage: odd message"),
                                         (NoMessage(), "NoMessage (whose message could not be shown)")])
def test_a_learner_exception_that_cannot_be_named_or_shown_is_one_line(capsys, error, said):
    def test():
        raise error

    check("9.1", test)
    assert capsys.readouterr().out == f"exercise 9.1: not yet: your code raised {said}\n"
    assert exception_text(error) == said


@pytest.mark.parametrize("error", [NoMessage(), OddMessage(), Unnamed("x")])
def test_a_tool_exception_that_cannot_be_shown_is_an_error_result_and_the_run_goes_on(error):
    @tool
    def broken() -> str:
        """Always fails."""
        raise error

    script = ScriptedModel([ToolCall("c1", "broken", {}), "carried on"])
    run = Agent(script, [broken]).run("try it")
    assert run.answer == "carried on" and run.steps[0].results[0].is_error
    assert Dispatcher([broken])(ToolCall("c2", "broken", {})).is_error


def test_a_value_whose_class_cannot_be_named_is_described_in_one_line(said):
    check_q_by_hand(Unnamed("x"))
    assert said("7.1") == "not yet: `q_by_hand` should be a number, not an object whose type has no readable name\n"


def test_a_guess_too_large_for_a_float_is_one_line(capsys):
    print(guess_line(10**400, 0.9, "the formula gives {:.3f}"))
    print(guess_line(10**5000, 3000, "the run read Z = {:,}"))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all("not a number" in line for line in lines)


# --- wrong results: checks judge behaviour, not what the learner's code says about itself --------------------


def test_2_1_refuses_a_tool_that_states_every_answer_at_once(said):
    @tool
    def to_fahrenheit(celsius: float) -> str:
        """Convert Celsius to Fahrenheit.

        Args:
            celsius: degrees Celsius.
        """
        return "212, -40 or 97.88"

    check_to_fahrenheit(to_fahrenheit)
    assert "not yet" in said()


def test_2_1_refuses_a_table_of_the_three_named_answers(said):
    @tool
    def to_fahrenheit(celsius: float) -> str:
        """Convert Celsius to Fahrenheit.

        Args:
            celsius: degrees Celsius.
        """
        return {100: "212", -40: "-40", 36.6: "97.88"}.get(celsius, "0")

    check_to_fahrenheit(to_fahrenheit)
    assert "not yet" in said()


@pytest.mark.parametrize("answer", ["{f}", "{c} °C is {f} °F", "{c} -> {f}", "{f} degrees Fahrenheit"])
def test_2_1_still_accepts_a_right_answer_however_it_is_worded(said, answer):
    @tool
    def to_fahrenheit(celsius: float) -> str:
        """Convert Celsius to Fahrenheit.

        Args:
            celsius: degrees Celsius.
        """
        return answer.format(c=celsius, f=round(celsius * 9 / 5 + 32, 2))

    check_to_fahrenheit(to_fahrenheit)
    assert "correct" in said()


def test_1_3_judges_on_a_model_the_learners_code_never_touched(said):
    def smallest_whole(model, system, messages):
        model.complete = lambda *args, **kwargs: Response([Text("x")], "end_turn")
        return 1

    check_smallest_whole(smallest_whole)
    assert "not yet" in said()


def test_2_3_reads_what_the_input_holds_not_what_its_get_says(said):
    wrong = ToolCall("toolu_007", "count_text", {"txt": "To be, or not to be", "unit": "chars"})

    class Lying(dict):
        def get(self, key, default=None):
            return {"text": "To be, or not to be", "unit": "characters"}.get(key, default)

    @tool
    def count_text(text: str, unit: str = "words") -> str:
        """Count the words or characters of a text.

        Args:
            text: the text.
            unit: words or characters.
        """
        return str(len(text) if unit == "characters" else len(text.split()))

    check_fixed_call(ToolCall("toolu_008", "count_text", Lying(text="wrong text", unit="words")), wrong, count_text)
    assert "not yet" in said()


Q = 0.95 + 0.95 * 0.05 * 0.8


@pytest.mark.parametrize("q", [np.array(Q), np.longdouble(Q), np.float32(Q)])
def test_7_1_accepts_numpy_numbers(said, q):
    check_q_by_hand(q)
    assert said().startswith("exercise 7.1: correct")


def test_7_3_accepts_numpy_truth_values(said):
    needed = 0.9 ** (1 / 50)
    check_fifty_steps(np.float64(needed), np.float64(0.99) >= needed, np.array(True))
    assert said().startswith("exercise 7.3: correct")


def test_a_numpy_array_of_several_values_is_still_no_number():
    values = np.array([0.5, 0.6])
    assert plain(values) is values


def test_a_newline_in_a_cassettes_model_name_forges_no_banner_line(tmp_path, capsys):
    forged = ScriptedModel(["hi"], name="evil\nlive mode: Claude through the Anthropic API; every call is billed")
    recorder = Recorder(forged, tmp_path / "c.jsonl")
    Agent(recorder).run("hello")
    recorder.finish()
    select_model(mode="replay", cassette=tmp_path / "c.jsonl")
    banner = capsys.readouterr().out
    assert banner.count("\n") == 1 and banner.startswith("[teachagent] replay mode")
    assert "\n" not in Player(tmp_path / "c.jsonl").name


def test_a_name_given_to_an_adapter_is_one_line():
    assert OpenAICompatible("m", "http://127.0.0.1:9/v1", name="a\nlive mode: forged").name == "a live mode: forged"


def test_the_scrubber_replaces_the_longest_secret_first():
    secrets = [Secret("abc"), Secret("abcdef")]
    assert without({"k": ["xabcdefx", "abc"]}, secrets) == {"k": [f"x{HIDDEN}x", HIDDEN]}
