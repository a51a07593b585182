"""The package keeps its floors: base, then the ideas in lesson order, then the course, then exercises; no cycles."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import import_graph


def test_the_floors_hold_and_nothing_cycles():
    assert import_graph.problems() == []


def test_the_floors_are_read_from_the_folders():
    edges = import_graph.graph()
    floors = {m: import_graph.floor(m) for m in edges}
    assert floors["base.errors"] == floors["base.formats"] == "base"
    assert floors["course.viz"] == floors["course.modes"] == "course"
    assert floors["agent"] == floors["research.researcher"] == "idea"
    assert floors["exercises.lesson3"] == floors["__main__"] == floors["__init__"] == "top"
    assert set(floors.values()) == {"base", "idea", "course", "top"}


def test_an_ideas_lesson_is_the_notebook_its_docstring_names():
    lesson = import_graph.lessons()
    assert lesson["messages"] == 1 and lesson["dispatch"] == 2 and lesson["agent"] == 3 and lesson["cost"] == 6
    assert lesson["research.researcher"] == 5
    assert "course.viz" not in lesson and "base.errors" not in lesson


def test_the_graph_sees_imports_inside_functions_and_relative_ones():
    edges = import_graph.graph()
    assert "messages" in edges["research.researcher"]  # from ..messages import ...
    assert "claude" in edges["course.modes"]  # imported inside select_model
    assert "base.errors" in edges["course.viz"]  # from ..base.errors import ...
    assert all(import_graph.floor(other) == "base" for m in edges if m.startswith("base.") for other in edges[m])


def test_a_bad_import_is_named():
    edges = {m: set(found) for m, found in import_graph.graph().items()}
    edges["agent"].add("cost")  # lesson 3 reaching forward to lesson 6
    edges["tokens"].add("course.modes")  # an idea importing the course
    edges["base.display"].add("messages")  # base reaching up to an idea
    edges["course.viz"].add("exercises.lesson3")  # the course reaching up to the exercises
    edges["messages"].add("trace")  # and now trace -> messages -> trace
    found = import_graph.problems(edges)
    assert "idea agent (lesson 3) imports cost (lesson 6), which comes after it" in found
    assert "idea tokens imports course course.modes; idea may import only base and idea" in found
    assert "base base.display imports idea messages; base may import only base" in found
    assert "course course.viz imports top exercises.lesson3; course may import only base and course and idea" in found
    assert any(line.startswith("import cycle:") and "trace" in line and "messages" in line for line in found)


def test_an_idea_that_names_no_notebook_is_named():
    edges = {**import_graph.graph(), "mystery": set()}
    named = "idea mystery names no notebook of notebooks/ in its docstring, so its lesson is unknown"
    assert named in import_graph.problems(edges)


def test_a_cycle_through_from_dot_import_a_name_is_found(tmp_path, monkeypatch):
    # `from . import helper` names the package's __init__ when helper is no submodule: a module
    # that the __init__ imports and that imports a name back from it is a cycle.
    package = tmp_path / "teachagent"
    (package / "exercises").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "exercises" / "__init__.py").write_text("def helper(): ...\nfrom .quizzes import quiz\n")
    (package / "exercises" / "quizzes.py").write_text("from . import helper\n\ndef quiz(): ...\n")
    (package / "exercises" / "lesson1.py").write_text("from . import quizzes\n")  # a submodule by that name: no cycle
    monkeypatch.setattr(import_graph, "PACKAGE", package)
    edges = import_graph.graph()
    assert edges["exercises.quizzes"] == {"exercises.__init__"}
    assert edges["exercises.lesson1"] == {"exercises.quizzes"}
    found = import_graph.problems(edges, lesson={})
    assert "import cycle: exercises.__init__ -> exercises.quizzes -> exercises.__init__" in found
