"""The files other tools read agree with pyproject.toml and with each other.

.github/workflows/ci.yml (GitHub Actions), environment.yml (conda, repo2docker, Binder) and
the README's first lines all name the Pythons the course supports; the workflow must run
the project's own `bash .ci/run`, and environment.yml must install the package itself, so
its dependencies have one source: pyproject.toml.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli on 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
ENVIRONMENT = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
JOB = WORKFLOW["jobs"]["test"]
PYTHONS = JOB["strategy"]["matrix"]["python"]


def test_the_workflow_runs_ci_run_with_bash_on_three_systems():
    assert JOB["strategy"]["matrix"]["os"] == ["ubuntu-latest", "macos-latest", "windows-latest"]
    last = JOB["steps"][-1]
    assert last["run"] == "bash .ci/run" and last["shell"] == "bash"
    assert (ROOT / ".ci" / "run").is_file()
    assert [step["uses"].split("@")[0] for step in JOB["steps"] if "uses" in step] == ["actions/checkout", "actions/setup-python"]


def test_the_workflow_tests_every_supported_python_and_only_those():
    assert all(isinstance(version, str) for version in PYTHONS)  # unquoted, YAML reads 3.10 as the number 3.1
    supported = SpecifierSet(PYPROJECT["requires-python"])
    assert PYTHONS == ["3.10", "3.11", "3.12", "3.13"]
    assert all(version in supported for version in PYTHONS) and "3.9" not in supported


def test_the_readme_names_the_pythons_the_workflow_tests():
    first_lines = (ROOT / "README.md").read_text(encoding="utf-8")[:1500]
    assert f"Python {PYTHONS[0]}–{PYTHONS[-1]}" in first_lines


def test_the_browser_test_has_its_chromium_on_linux():
    (check,) = [step for step in JOB["steps"] if "chromium" in step.get("run", "")]
    assert check["if"] == "runner.os == 'Linux'"


def test_environment_yml_installs_the_package_so_pyproject_is_the_one_list_of_dependencies():
    conda = [dep for dep in ENVIRONMENT["dependencies"] if isinstance(dep, str)]
    (pip,) = [dep["pip"] for dep in ENVIRONMENT["dependencies"] if isinstance(dep, dict)]
    assert ".[test]" in pip  # the package and its test extra, read from pyproject.toml at install time
    listed_twice = {Requirement(dep).name for dep in pip if dep != ".[test]"} & {
        Requirement(dep).name for dep in PYPROJECT["dependencies"] + PYPROJECT["optional-dependencies"]["test"]}
    assert listed_twice == set()  # a second version spec could drift from pyproject's
    python = next(dep for dep in conda if re.fullmatch(r"python=[\d.]+", dep)).split("=")[1]
    assert python in PYTHONS and python in SpecifierSet(PYPROJECT["requires-python"])
