"""Local mode's settings and its model file, when they are wrong: one line naming what to change. No model needed."""

from __future__ import annotations

import pytest

from teachagent.base.errors import SettingError
from teachagent.course import local


@pytest.mark.parametrize("setting, read", [("TEACHAGENT_LOCAL_THREADS", local.default_threads),
                                           ("TEACHAGENT_LOCAL_SEED", local.default_seed)])
@pytest.mark.parametrize("given", ["²", "٣", "5" * 5000, "-3", "1.5", "x", str(2**40)])
def test_a_bad_setting_is_one_short_line_that_names_it(monkeypatch, setting, read, given):
    monkeypatch.setenv(setting, given)
    with pytest.raises(SettingError) as raised:
        read()
    message = str(raised.value)
    assert message.startswith(f"{setting} must be a whole number between ") and "\n" not in message
    assert len(message) < 200


@pytest.mark.parametrize("setting, given, value", [("TEACHAGENT_LOCAL_THREADS", " 3 ", 3), ("TEACHAGENT_LOCAL_SEED", "0", 0)])
def test_a_good_setting_is_read(monkeypatch, setting, given, value):
    monkeypatch.setenv(setting, given)
    assert (local.default_threads if setting.endswith("THREADS") else local.default_seed)() == value


def test_the_default_is_half_the_cores_at_least_one(monkeypatch):
    monkeypatch.delenv("TEACHAGENT_LOCAL_THREADS", raising=False)
    monkeypatch.setattr(local.os, "cpu_count", lambda: 2)
    assert local.default_threads() == 1
