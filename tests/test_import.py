"""`import teachagent` stays light: a name's module loads when the name is first asked for, and the heavy
libraries only when a lesson needs them (its start time is measured in benchmarks/bench_start.py)."""

import json
import subprocess
import sys

import pytest

HEAVY = ("anthropic", "tiktoken", "matplotlib", "ipywidgets")

# Run in a fresh interpreter: this test process has long since imported everything.
IMPORT_AND_REPORT = f"""
import json, sys
import teachagent
print(json.dumps({{"loaded": [m for m in {HEAVY!r} if m in sys.modules],
                  "ours": sorted(m for m in sys.modules if m.startswith("teachagent."))}}))
"""


@pytest.fixture(scope="module")
def fresh_import():
    out = subprocess.run([sys.executable, "-c", IMPORT_AND_REPORT], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_import_loads_no_heavy_library(fresh_import):
    assert fresh_import["loaded"] == []


def test_import_loads_no_module_of_the_course(fresh_import):
    assert fresh_import["ours"] == []


def test_every_exported_name_is_its_modules_own_and_stays_once_asked():
    import importlib

    import teachagent

    for name, (module, real) in teachagent.WHERE.items():
        assert getattr(teachagent, name) is getattr(importlib.import_module(f"teachagent.{module}"), real), name
        assert name in vars(teachagent)  # asked once: kept, and __getattr__ is not asked again
    assert set(teachagent.__all__) <= set(dir(teachagent))
    with pytest.raises(AttributeError, match="has no attribute 'Agnet'"):
        teachagent.Agnet  # noqa: B018
