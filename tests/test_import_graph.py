"""The package keeps its shape: utilities, then ideas in lesson order, then course machinery; no cycles."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import import_graph


def test_every_idea_imports_only_the_ideas_before_it_and_nothing_cycles():
    assert import_graph.problems() == []


def test_the_graph_sees_imports_inside_functions_and_relative_ones():
    edges = import_graph.graph()
    assert "messages" in edges["research.researcher"]  # from ..messages import ...
    assert "claude" in edges["course.modes"]  # imported inside select_model
    assert edges["base.errors"] == set() and edges["base.display"] == set() and edges["base.schema"] == set()


def test_a_bad_import_is_named():
    edges = {m: set(found) for m, found in import_graph.graph().items()}
    edges["agent"].add("cost")  # lesson 3 reaching forward to lesson 6
    edges["tokens"].add("course.modes")  # an idea importing machinery
    edges["base.display"].add("messages")  # a utility that is not a leaf
    edges["messages"].add("trace")  # and now trace -> messages -> trace
    found = import_graph.problems(edges)
    assert "idea agent (lesson 3) imports cost (lesson 6), which does not come before it" in found
    assert "idea tokens imports course machinery course.modes" in found
    assert "utility base.display imports messages; utilities import only other utilities" in found
    assert any(line.startswith("import cycle:") and "trace" in line and "messages" in line for line in found)


def test_a_module_in_no_list_is_named(tmp_path):
    edges = {**import_graph.graph(), "mystery": set()}
    named = "mystery is in no list of scripts/import_graph.py: is it a utility, an idea or machinery?"
    assert named in import_graph.problems(edges)
