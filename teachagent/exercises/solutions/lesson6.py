"""Reference solutions of lesson 6's exercises (notebooks/06_cost.ipynb), shown by `solution("6.N")`.

Each section below a `# %% exercise 6.N` line is what the exercise cell holds when solved,
run in the notebook's names (everything_run, excerpt_run, ...). The imports here are
the ones the notebook's first cell makes.
"""

from teachagent import cached_usages, fitted_d, predicted_total, run_cost
from teachagent.exercises.lesson6 import check_crossover, check_opus, check_six_articles

# %% exercise 6.1
c = everything_run.context_sizes
prediction = predicted_total(6 + 1, c[0], fitted_d(c))  # six articles: one call per article, then the answer

check_six_articles(prediction)

# %% exercise 6.2
plain = run_cost(everything_run, "claude-opus-5-5")
cached = run_cost(everything_run, "claude-opus-5-5", cached_usages(everything_run))
excerpt = run_cost(excerpt_run, "claude-opus-5-5")
saves_more = "excerpts" if plain - excerpt > plain - cached else "caching"

check_opus(plain, cached, excerpt, saves_more)

# %% exercise 6.3
def crossover(c1, d):
    if d == 0:
        return None  # no growth: the quadratic term is 0 and never wins
    # d K(K−1)/2 > K c₁ means K − 1 > 2c₁/d; the smallest whole K above it
    return int(2 * c1 // d) + 2

check_crossover(crossover)
