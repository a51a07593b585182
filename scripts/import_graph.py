"""Draw teachagent's import graph and check its three floors.

    python scripts/import_graph.py            # the graph as Mermaid, then any problems

The folders are the floors, so there is no list of modules to keep up to date:
- `teachagent/base/` imports only `base/`: no idea, nothing of the course;
- the ideas (every other module of `teachagent/`, `research/` included) import `base/` and
  the ideas of their own lesson or an earlier one, never `course/`; an idea's lesson is the
  first notebook its docstring names (`notebooks/03_agent_loop.ipynb` makes it lesson 3);
- `teachagent/course/` may import the ideas and `base/`;
- `teachagent/exercises/`, `__main__` and the package's own `__init__` sit above everything.
Every import counts, at module level or inside a function, and no cycle is allowed; only an
import under `if TYPE_CHECKING:` does not, as it names a type for annotations and never runs
(the adapters of lesson 1 name lesson 2's `AnswerForm` in their signatures that way).
tests/test_import_graph.py runs `problems()`, so a new import that breaks the shape fails.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "teachagent"
NOTEBOOKS = PACKAGE.parent / "notebooks"
NOTEBOOK = re.compile(r"\b(\d\d)_\w+\.ipynb\b")


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE).with_suffix("").parts)


def floor(module: str) -> str:
    """Which floor a module is on, read from its folder: base, idea, course or top."""
    if module.startswith("base."):
        return "base"
    if module.startswith("course."):
        return "course"
    if module in ("__init__", "__main__") or module.startswith("exercises."):
        return "top"
    return "idea"


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The teachagent modules `path` imports, wherever the import statement is."""
    name = module_name(path)
    package = name.split(".")[:-1]
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
                 for statement in block.body for node in ast.walk(statement)}
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            if node.module:
                found.add(".".join([*base, node.module]))
            else:  # `from . import NAME`: the submodule NAME if there is one, else a name of the package itself
                for alias in node.names:
                    submodule = ".".join([*base, alias.name])
                    found.add(submodule if {submodule, f"{submodule}.__init__"} & known else ".".join([*base, "__init__"]))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("teachagent."):
            found.add(node.module.removeprefix("teachagent."))
        elif isinstance(node, ast.Import):
            found.update(a.name.removeprefix("teachagent.") for a in node.names if a.name.startswith("teachagent."))
    # a package stands for its __init__; anything else of the standard library is no concern here
    resolved = {m if m in known else f"{m}.__init__" for m in found}
    return (resolved & known) - {name}


def graph() -> dict[str, set[str]]:
    """Each module of teachagent, with the teachagent modules it imports."""
    paths = sorted(PACKAGE.rglob("*.py"))
    known = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, known) for p in paths}


def lessons() -> dict[str, int]:
    """Each idea's lesson: the first notebook of notebooks/ that its docstring names."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        named = [m for m in NOTEBOOK.finditer(doc) if (NOTEBOOKS / m.group(0)).is_file()]
        if floor(name) == "idea" and named:
            found[name] = int(named[0].group(1))
    return found


def problems(edges: dict[str, set[str]] | None = None, lesson: dict[str, int] | None = None) -> list[str]:
    """Every way the graph (by default teachagent's own) breaks the floors described above; empty when it holds."""
    edges = graph() if edges is None else edges
    lesson = lessons() if lesson is None else lesson
    found = [f"idea {m} names no notebook of notebooks/ in its docstring, so its lesson is unknown"
             for m in sorted(edges) if floor(m) == "idea" and m not in lesson]
    allowed = {"base": {"base"}, "idea": {"base", "idea"}, "course": {"base", "idea", "course"},
               "top": {"base", "idea", "course", "top"}}
    for module, imported in sorted(edges.items()):
        for other in sorted(imported):
            here, there = floor(module), floor(other)
            if there not in allowed[here]:
                may = " and ".join(sorted(allowed[here]))
                found.append(f"{here} {module} imports {there} {other}; {here} may import only {may}")
            elif here == there == "idea" and module in lesson and other in lesson and lesson[other] > lesson[module]:
                found.append(f"idea {module} (lesson {lesson[module]}) imports {other} (lesson {lesson[other]}), "
                             "which comes after it")
    found += [f"import cycle: {' -> '.join(cycle)}" for cycle in cycles(edges)]
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Each cycle found by a depth-first walk, as the list of modules around it."""
    found, state = [], {}

    def walk(module: str, path: list[str]) -> None:
        state[module] = "open"
        for other in sorted(edges.get(module, ())):
            if state.get(other) == "open":
                found.append([*path[path.index(other):], other] if other in path else [module, other])
            elif other not in state:
                walk(other, [*path, other])
        state[module] = "done"

    for module in sorted(edges):
        if module not in state:
            walk(module, [module])
    return found


def mermaid() -> str:
    lines = ["graph BT"]
    for module, imported in sorted(graph().items()):
        lines += [f"    {module.replace('.', '_')} --> {other.replace('.', '_')}" for other in sorted(imported)]
    return "\n".join(lines)


if __name__ == "__main__":
    print(mermaid())
    trouble = problems()
    holds = "\nthe floors hold: base, then the ideas in lesson order, then the course, then exercises and __main__; no cycles"
    print("\n".join(trouble) if trouble else holds)
    sys.exit(1 if trouble else 0)
