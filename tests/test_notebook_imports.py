"""Every lesson imports what it uses from `teachagent` itself, the same way, and only names it exports.

The other imports a lesson may have are the checks of its own exercises,
`from teachagent.exercises.lessonN import ...`, and the exercise machinery's
`from teachagent.exercises import quiz, solution` (and `guess_line`, for a "predict, then run").
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import teachagent

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def teachagent_imports(notebook: Path) -> list[ast.ImportFrom | ast.Import]:
    found = []
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or "teachagent" not in source:
            continue
        lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")) and "??" not in line]
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("teachagent"):
                found.append(node)
            elif isinstance(node, ast.Import) and any(a.name.startswith("teachagent") for a in node.names):
                found.append(node)
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_a_lesson_imports_only_from_the_package_itself(notebook):
    imports = teachagent_imports(notebook)
    assert imports, f"{notebook.name} imports nothing from teachagent"
    own_checks = f"teachagent.exercises.lesson{int(notebook.name[:2])}"
    for node in imports:
        assert isinstance(node, ast.ImportFrom) and node.module in ("teachagent", "teachagent.exercises", own_checks), \
            ast.unparse(node)
        if node.module == own_checks:
            continue
        if node.module == "teachagent.exercises":
            assert {a.name for a in node.names} <= {"quiz", "solution", "guess_line"}, ast.unparse(node)
            continue
        missing = [a.name for a in node.names if a.name not in teachagent.__all__]
        assert not missing, f"{notebook.name} imports {missing}, which teachagent does not export"


def test_every_exported_name_exists():
    assert [name for name in teachagent.__all__ if not hasattr(teachagent, name)] == []
