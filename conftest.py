"""pytest settings that apply wherever it is started: the settings it clears, how many workers run the tests,
which are notebooks, and solutions checked.

`pyproject.toml` asks pytest-xdist for one worker per CPU (`-n auto`), each taking whole
files (`--dist loadfile`), so a notebook's cells run in order in one kernel. A single
file gains nothing from a second worker, so it runs without any.
"""

import os
import sys
import tempfile
from pathlib import Path

import pytest

# The course's settings (a mode, a model, a server, a key, a cassette: TEACHAGENT_*, OPENAI_*, ANTHROPIC_*) and
# proxies come from the shell, and one `export` in a maintainer's shell would change what the tests see. So the
# tests run without any of them: cleared here for the kernels and programs the run starts, and again before every
# test (`no_course_settings`), whatever an earlier test left. Kept: the settings that set up this run itself
# (its threads for the local model, its Mermaid, the site CI built for the browser step, and the key of a run that
# asked for the live tests).
PREFIXES = ("TEACHAGENT_", "OPENAI_", "ANTHROPIC_")
PROXIES = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}
HARNESS = {"TEACHAGENT_LOCAL_THREADS", "TEACHAGENT_MERMAID_JS", "TEACHAGENT_SITE", "TEACHAGENT_LIVE_TESTS",
           "TEACHAGENT_CHECK_SOLUTIONS"}
if os.environ.get("TEACHAGENT_LIVE_TESTS") == "1":  # tests/test_live.py: the maintainer asked for real calls
    HARNESS.add("ANTHROPIC_API_KEY")


def course_settings() -> list[str]:
    """The settings in the environment now that the tests run without."""
    return [name for name in os.environ if (name.startswith(PREFIXES) or name in PROXIES) and name not in HARNESS]


for name in course_settings():
    del os.environ[name]


@pytest.fixture(autouse=True)
def no_course_settings(monkeypatch):
    """Every test starts with none of the course's settings; one it sets itself (monkeypatch.setenv) ends with it."""
    for name in course_settings():
        monkeypatch.delenv(name)


# Every notebook's `solution("N.M")` cells also run their reference solution and fail unless it
# passes its check (teachagent/exercises/reveal.py); the kernels nbval starts inherit this.
os.environ["TEACHAGENT_CHECK_SOLUTIONS"] = "1"

# A run starts some forty Python processes (workers, kernels, the CLI). Where PYTHONDONTWRITEBYTECODE
# is set, each would compile the course, the tests and pytest's plugins afresh: about 8 s per worker
# here. They keep bytecode in one folder under the temporary directory instead, never beside the sources.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / "teachagent-pycache"))
    sys.dont_write_bytecode = False
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]


def pytest_xdist_auto_num_workers(config):
    """No workers for one file (`pytest tests/test_agent.py`); otherwise xdist's own choice."""
    paths = {arg.split("::")[0] for arg in config.args}
    if len(paths) == 1 and Path(config.invocation_params.dir, *paths).is_file():
        return 0
    return None


def pytest_collection_modifyitems(config, items):
    """Every notebook cell nbval collects is marked `notebook`, as a test that starts a kernel is by hand,
    so the quick tier (docs/tests.md) leaves them out.

    Then the files go out longest first: those with the most tests that start a kernel or fuzz
    (a notebook's cells count as one, sharing one kernel), so that no long file is left to run
    alone at the end while the other worker waits. pyproject.toml passes --no-loadscope-reorder,
    which makes pytest-xdist keep this order rather than sort files by their number of tests."""
    heavy: dict[Path, int] = {}
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.notebook)
            heavy[item.path] = 1
        elif item.get_closest_marker("notebook") or item.get_closest_marker("fuzz"):
            heavy[item.path] = heavy.get(item.path, 0) + 1
    items.sort(key=lambda item: -heavy.get(item.path, 0))  # stable: a file's tests keep their order
