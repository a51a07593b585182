"""Reference solutions of lesson 7's exercises (notebooks/07_reliability.ipynb), shown by `solution("7.N")`.

Each section below a `# %% exercise 7.N` line is what the exercise cell holds when solved,
run in the notebook's names. The imports here are what the notebook's first cell imports,
so that this file also reads (and lints) on its own.
"""

from teachagent import step_success
from teachagent.exercises.lesson7 import check_fifty_steps, check_q_by_hand, check_retries, check_tradeoff

# %% exercise 7.1
q_by_hand = 0.95 + (1 - 0.95) * 0.8 * 0.95  # path j = 0: right at once; j = 1: wrong, noticed, then right

check_q_by_hand(q_by_hand)

# %% exercise 7.2
r_needed = 0
while step_success(0.9, 0.9, r_needed) < 0.985:  # q grows with r, so the first r that is enough is the fewest
    r_needed += 1
q_unlimited = 0.9 / (1 - (1 - 0.9) * 0.9)  # p / (1 − (1 − p) δ), the geometric series summed

check_retries(r_needed, q_unlimited)

# %% exercise 7.3
q_required = 0.9 ** (1 / 50)
unchecked_enough = 0.99 >= q_required  # without a check, q is p
checked_enough = step_success(0.99, 0.9, 2) >= q_required

check_fifty_steps(q_required, unchecked_enough, checked_enough)

# %% exercise 7.4
per_success = [tokens[r_] / wins[r_] for r_ in (0, 1, 2)]  # all the tokens read, over the runs that truly succeeded
best_r = min((0, 1, 2), key=lambda r_: per_success[r_])

check_tradeoff(per_success, best_r, wins, tokens)
