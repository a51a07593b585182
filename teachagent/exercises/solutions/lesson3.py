"""Reference solutions of lesson 3 (notebooks/03_agent_loop.ipynb), shown by solution("3.N"). Not imported."""

# %% exercise 3.1
def total_context(steps):
    return sum(step.context_tokens for step in steps)  # Z = c_1 + ... + c_K

check_total_context(total_context, run)

# %% exercise 3.2
# The careful reader reads the index, then each of the eight notes it lists (nine steps
# with a tool call), and answers in a tenth. Confirmed by trying budgets from 1 up:
def answers_with(max_steps):
    reader = ScriptedModel(careful_reader)  # scripted even when live: the question is about this policy
    return Agent(reader, tools=[read_all], system=system, max_steps=max_steps).run(task).outcome == "answer"

smallest = next(n for n in range(1, 50) if answers_with(n))

check_smallest_budget(smallest, careful_reader, [read_all], system, task)

# %% exercise 3.3
def retry_from_error(messages):
    error = latest_results(messages)[0].content
    suggestion = re.search(r"include: ([^,\s]+)", error)[1]  # the first name after "include: "
    return call("read_file", path=suggestion)

recovering = [call("read_file", path="venus.md"), retry_from_error, "I read the file the error suggested."]
check_recovery(recovering, read_file, system, task)
