"""Draw teachagent's import graph and check its shape.

    python scripts/import_graph.py            # the graph as Mermaid, then any problems

The package has three kinds of module:
- utilities (errors, display, schema) import nothing else from teachagent;
- ideas, in lesson order, each importing only utilities and the ideas before it;
- course machinery (modes, replay, the notebook runner, views, plots, widgets, the
  terminal demo, the package's own __init__), which may import anything and which no
  idea imports.
Every import counts, at module level or inside a function, and no cycle is allowed.
tests/test_import_graph.py runs `problems()`, so a new import that breaks the shape fails.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "teachagent"
UTILITIES = ["base.__init__", "base.errors", "base.display", "base.schema", "base.formats"]
IDEAS = [  # lesson by lesson, in the order a module may build on the ones before it
    ["messages", "tokens", "models", "claude"],
    ["tools", "dispatch"],
    ["trace", "agent", "human", "sampling"],
    ["plan", "memory"],
    ["research.corpus", "research.calculator", "research.researcher"],
    ["cost"],
    ["reliability", "simulation"],
]
MACHINERY = ["course.__init__", "course.modes", "course.replay", "course.notebook_runner", "course.viz", "course.plots",
             "course.widgets", "__main__", "__init__", "research.__init__",
             "exercises.__init__"]  # and every exercises.lessonN: the checks of lesson N's exercises


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE).with_suffix("").parts)


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The teachagent modules `path` imports, wherever the import statement is."""
    name = module_name(path)
    package = name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            found.update([".".join([*base, node.module])] if node.module else
                         [".".join([*base, alias.name]) for alias in node.names])
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


def is_machinery(module: str) -> bool:
    return module in MACHINERY or module.startswith("exercises.")


def problems(edges: dict[str, set[str]] | None = None) -> list[str]:
    """Every way the graph (by default teachagent's own) breaks the shape described above; empty when it holds."""
    edges, found = graph() if edges is None else edges, []
    order = {m: (lesson, i) for lesson, group in enumerate(IDEAS, start=1) for i, m in enumerate(group)}
    unclassified = {m for m in edges if m not in UTILITIES and m not in order and not is_machinery(m)}
    found += [f"{m} is in no list of scripts/import_graph.py: is it a utility, an idea or machinery?"
              for m in sorted(unclassified)]
    for module, imported in sorted(edges.items()):
        for other in sorted(imported):
            if module in UTILITIES and other not in UTILITIES:
                found.append(f"utility {module} imports {other}; utilities import only other utilities")
            elif module in order and is_machinery(other):
                found.append(f"idea {module} imports course machinery {other}")
            elif module in order and other in order and order[other] >= order[module]:
                found.append(f"idea {module} (lesson {order[module][0]}) imports {other} (lesson {order[other][0]}), "
                             "which does not come before it")
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
    holds = "\nthe graph holds: utilities, then ideas in lesson order, then machinery; no cycles"
    print("\n".join(trouble) if trouble else holds)
    sys.exit(1 if trouble else 0)
