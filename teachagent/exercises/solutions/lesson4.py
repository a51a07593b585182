# mypy: ignore-errors
# (the names come from the notebook, where each section runs)
# Reference solutions for the exercises of notebooks/04_memory.ipynb (lesson 4: memory).
# Each section is what the exercise cell holds once solved; `solution("4.1")` in the
# notebook shows one when the learner asks (teachagent/exercises/reveal.py).

# %% exercise 4.1
def progress(text):
    plan = find_plan(text) or []  # None when the reply holds no plan
    return sum(done for done, _ in plan), len(plan)

check_progress(progress, scripted_run)

# %% exercise 4.2
# one run of the scripted planner on city_trip, with no limit: the context only grows, so the
# largest one the run read is its last, and the limit must hold it
city_run = Agent(ScriptedModel(planner), tools=[read_file_tool(city_trip)], system=planning).run(packing_task)
smallest = max(city_run.context_sizes)
check_smallest_limit(smallest, planner, [read_file_tool(city_trip)], planning, packing_task)

# %% exercise 4.3
def seat_finder(messages):
    results = latest_results(messages)
    if not results:
        return call("search_notes", query="window")
    return "Seat booked: " + results[0].content

check_seat_finder(seat_finder, memory_file)
