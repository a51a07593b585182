"""pytest settings that apply wherever it is started: how many workers run the tests, and solutions checked.

`pyproject.toml` asks pytest-xdist for one worker per CPU (`-n auto`), each taking whole
files (`--dist loadfile`), so a notebook's cells run in order in one kernel. A single
file gains nothing from a second worker, so it runs without any.
"""

import os
from pathlib import Path

# Every notebook's `solution("N.M")` cells also run their reference solution and fail unless it
# passes its check (teachagent/exercises/reveal.py); the kernels nbval starts inherit this.
os.environ["TEACHAGENT_CHECK_SOLUTIONS"] = "1"


def pytest_xdist_auto_num_workers(config):
    """No workers for one file (`pytest tests/test_agent.py`); otherwise xdist's own choice."""
    paths = {arg.split("::")[0] for arg in config.args}
    if len(paths) == 1 and Path(config.invocation_params.dir, *paths).is_file():
        return 0
    return None
