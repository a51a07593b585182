"""`import teachagent` stays light: the heavy libraries load only when a lesson needs them."""

import json
import subprocess
import sys

import pytest

HEAVY = ("anthropic", "tiktoken", "matplotlib", "ipywidgets")

# Run in a fresh interpreter: this test process has long since imported everything.
# The CPU time the import takes: tests run in parallel, so the wall time also counts waiting for a core.
IMPORT_AND_REPORT = f"""
import json, sys, time
start = time.process_time()
import teachagent
seconds = time.process_time() - start
print(json.dumps({{"seconds": seconds, "loaded": [m for m in {HEAVY!r} if m in sys.modules]}}))
"""


@pytest.fixture(scope="module")
def fresh_import():
    out = subprocess.run([sys.executable, "-c", IMPORT_AND_REPORT], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_import_loads_no_heavy_library(fresh_import):
    assert fresh_import["loaded"] == []


def test_import_is_fast(fresh_import):
    assert fresh_import["seconds"] < 0.3
