"""Reference solutions of lesson 1 (notebooks/01_bare_chat.ipynb), shown by solution("1.N"). Not imported."""

# %% exercise 1.1
def was_cut(response):
    return response.stop_reason == "max_tokens"  # the reply says itself why it stopped

check_was_cut(was_cut)

# %% exercise 1.2
hello = Message("user", "Hi! My name is Grace.")
reply = beside(lambda m: m.complete(system, [hello], tools=[], max_tokens=200), model, receptionist)

second_call = [hello, reply.to_message(), Message("user", "What is my name?")]

check_second_call(second_call, reply, ScriptedModel(receptionist))

# %% exercise 1.3
def smallest_whole(model, system, messages):
    for n in range(1, 1000):
        if model.complete(system, messages, [], n).stop_reason != "max_tokens":
            return n

check_smallest_whole(smallest_whole)

# %% exercise 1.4
def tokens_read(system, history):
    each_call = [history[: i + 1] for i, message in enumerate(history) if message.role == "user"]
    return sum(context_tokens(system, messages) for messages in each_call)

check_tokens_read(tokens_read)
