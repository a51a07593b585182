# mypy: ignore-errors
# (the names come from the notebook, where each section runs)
# Reference solutions for the exercises of notebooks/05_research_kl.ipynb (lesson 5: a research agent).
# Each section is what the exercise cell holds once solved; `solution("5.1")` in the
# notebook shows one when the learner asks (teachagent/exercises/reveal.py).

# %% exercise 5.1
# the first distribution, 0.9, weighs the log-ratios: kl_expression(0.9, 0.6) writes them out
result = tools(ToolCall("x", "calculate", {"expression": kl_expression(0.9, 0.6)}))
check_kl_by_tool(result)

# %% exercise 5.2
def read_best(query):
    doc, section, _ = library.search(query)[0]
    return library.read(doc, section=section)

triangle_query = "KL triangle inequality"
check_read_best(read_best, triangle_query)

# %% exercise 5.3
def js(p, q):
    m = (p + q) / 2
    return evaluate(kl_expression(p, m)) / 2 + evaluate(kl_expression(q, m)) / 2

check_js(js)
