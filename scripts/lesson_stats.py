"""How heavy each lesson is to read: its words of prose and its lines of code.

    python scripts/lesson_stats.py              # every notebook, a row each, and the totals

For each notebook: the words of its markdown cells, in all and before its "## Exercises"
heading (what a learner reads to learn the lesson), its code cells and code lines, and the
code lines that exist only to run the scripted reference beside the learner's model (a
line that names `reference`), also as a share of the lesson's code. A word is anything
between spaces; a code line is a line of a code cell that is neither blank nor a comment.
The limits the course keeps (issue 40): at most 2,500 words before the exercises in every
lesson, at most 18,000 words in all, and at most 3 % of a lesson's code for the reference.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
REFERENCE = re.compile(r"\w*reference\w*")
LESSON_WORDS, ALL_WORDS, REFERENCE_SHARE = 2500, 18000, 0.03


@dataclass
class Weight:
    """What one notebook asks a reader to read."""

    name: str
    words: int
    words_before_exercises: int
    code_cells: int
    code_lines: int
    reference_lines: int

    @property
    def reference_share(self) -> float:
        return self.reference_lines / self.code_lines if self.code_lines else 0.0


def weigh(path: Path) -> Weight:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    words = before = 0
    exercises_seen = False
    code_cells = code_lines = reference_lines = 0
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            exercises_seen = exercises_seen or bool(re.search(r"^#+ Exercises", source, re.M))
            n = len(source.split())
            words += n
            before += 0 if exercises_seen else n
        elif cell["cell_type"] == "code":
            code_cells += 1
            lines = [line for line in source.splitlines() if line.strip() and not line.strip().startswith("#")]
            code_lines += len(lines)
            reference_lines += sum(bool(REFERENCE.search(line)) for line in lines)
    return Weight(path.stem, words, before, code_cells, code_lines, reference_lines)


def main() -> int:
    weights = [weigh(path) for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))]
    print(f"{'notebook':<22} {'words':>6} {'before ex.':>10} {'cells':>6} {'lines':>6} {'ref. lines':>10} {'ref. %':>7}")
    for w in weights:
        flag = " over" if w.words_before_exercises > LESSON_WORDS or w.reference_share > REFERENCE_SHARE else ""
        print(f"{w.name:<22} {w.words:>6,} {w.words_before_exercises:>10,} {w.code_cells:>6} {w.code_lines:>6} "
              f"{w.reference_lines:>10} {w.reference_share:>7.1%}{flag}")
    total = sum(w.words for w in weights)
    print(f"{'all':<22} {total:>6,} {sum(w.words_before_exercises for w in weights):>10,} "
          f"{sum(w.code_cells for w in weights):>6} {sum(w.code_lines for w in weights):>6} "
          f"{sum(w.reference_lines for w in weights):>10}{' over' if total > ALL_WORDS else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
