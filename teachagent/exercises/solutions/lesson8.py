"""Reference solutions of lesson 8's exercises (notebooks/08_capstone.ipynb), shown by `solution("8.N")`.

Each section below a `# %% exercise 8.N` line is what the exercise cell holds when solved,
run in the notebook's names (NOTES, c1, d, p_hat, ...). The imports here are the ones the
notebook's first cell makes.
"""

from teachagent import floor_n50, predicted_total, step_success, tool
from teachagent.exercises.lesson8 import check_half_time, check_largest_K, check_titles_tool


# %% exercise 8.1
@tool
def note_titles() -> str:
    "One line per note: its file name and its title."
    lines = []
    for path in sorted(NOTES.glob("*.md")):
        title = path.read_text(encoding="utf-8").splitlines()[0].removeprefix("# ")
        lines.append(f"{path.name}: {title}")
    return "\n".join(lines)

check_titles_tool(note_titles, NOTES)

# %% exercise 8.2
BUDGET = 5_000
K_largest = 1  # one call reads c_1, which fits
while predicted_total(K_largest + 1, c1, d) <= BUDGET:  # Z grows with K, so stop at the first K + 1 that does not fit
    K_largest += 1

check_largest_K(K_largest, c1, d, BUDGET)

# %% exercise 8.3
n_unchecked = floor_n50(p_hat)  # the largest n with p^n ≥ 1/2: lesson 7's ⌊n₅₀⌋
n_checked = floor_n50(step_success(p_hat, 0.9, 1))

check_half_time(n_unchecked, n_checked, p_hat, 0.9, 1)
