"""A plausible model that is not ours: a responder for the fake Messages API (tests/fake_anthropic.py).

The lessons were written around their scripted models. A real model chooses for itself,
and a lesson must survive that: every notebook has to run to its end in live mode and say
what the model did. `plausible_reply` plays such a model, deterministically, so that a
test can run every notebook live against `FakeAnthropic(plausible_reply, claude_count)`.

Its policy, in the order it decides:

1. Every reply begins with a thinking block, its text left out as Claude Haiku 5.5 sends
   it by default, or now and then a one-line summary.
2. No tools offered: it chats, and knows only what the conversation tells it.
3. Tools offered, but it answers without one when it thinks it can: a sum of two numbers
   (it does that in its head, whatever the system prompt says); a task that already holds
   the notes it needs; a request to remember something (it says it will and saves
   nothing, a mistake real models make).
4. Otherwise it works through the tools in its own order, one kind of move per round:
   look at its long-term notes; search (or guess a file name from the tool's schema, and
   learn the real ones from the error); read every file it learned of at once, or the
   section the search ranked first; hand the whole task to a sub-agent tool; compute
   D_KL(q‖p) before D_KL(p‖q), one per round, with the calculator.
5. After `MAX_TOOL_ROUNDS` rounds of tool calls it answers with what it has, at length:
   the most relevant sentence of each thing it read, and the calculator's numbers.
6. A reply that does not fit `max_tokens` is cut, as the API cuts it.

Every choice is a function of the request alone (no call counter, no clock), so a re-run
sends the same requests and gets the same replies. Token counts are our tiktoken count
times `CLAUDE_TOKENS`, since Claude's tokenizer counts about 30 % more.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field

from fake_anthropic import message_body, text_block, thinking_block, tool_use_block

from teachagent.messages import Message, ToolCall, ToolResult
from teachagent.tokens import context_tokens, count_tokens

MAX_TOOL_ROUNDS = 6  # then it answers, whatever it has
CLAUDE_TOKENS = 1.3  # Claude's tokenizer counts about this much more than cl100k
STOP_WORDS = set("a an and are as at be by do for from has have how i in is it me my of on or that the this "
                 "to use what which with you your".split())


@dataclass
class Exchange:
    """One tool call the model made earlier in the conversation, and what came back."""

    name: str
    input: dict
    result: str
    is_error: bool


@dataclass
class Request:
    """What the model can see in one request: the task, the tools, and what its calls returned."""

    system: str
    task: str
    last: str  # the newest user text
    user_texts: list[str]
    tools: dict[str, dict]  # name → input schema
    exchanges: list[Exchange] = field(default_factory=list)
    rounds: int = 0  # assistant turns that called tools

    @classmethod
    def read(cls, body: dict) -> Request:
        messages = [Message.from_dict(m) for m in body["messages"]]
        blocks = [b for m in messages for b in m.content]
        calls = {b.id: b for b in blocks if isinstance(b, ToolCall)}
        exchanges = [Exchange(calls[b.tool_use_id].name, calls[b.tool_use_id].input, b.content, b.is_error)
                     for b in blocks if isinstance(b, ToolResult) and b.tool_use_id in calls]
        texts = [m.text for m in messages if m.role == "user" and m.text]
        return cls(
            system=body.get("system", ""),
            task=texts[0] if texts else "",
            last=texts[-1] if texts else "",
            user_texts=texts,
            tools={t["name"]: t["input_schema"] for t in body.get("tools", [])},
            exchanges=exchanges,
            rounds=sum(1 for m in messages if any(isinstance(b, ToolCall) for b in m.content)),
        )

    def called(self, name: str) -> list[Exchange]:
        return [e for e in self.exchanges if e.name == name]


# ---- 3. answering without a tool ---------------------------------------------------------

def direct_answer(req: Request) -> str | None:
    """The answer it gives without any tool, or None when it wants tools."""
    if req.exchanges:
        return None
    total = re.search(r"what is (\d+) ?([+*-]) ?(\d+)", req.task, re.IGNORECASE)
    if total:
        a, op, b = int(total[1]), total[2], int(total[3])
        value = {"+": a + b, "-": a - b, "*": a * b}[op]
        return f"{a} {op} {b} = {value}. That one is small enough to do directly, so I did not need a tool for it."
    if "Notes from earlier sessions" in req.task:
        notes = re.findall(r"^- (.+)$", req.task, re.MULTILINE)
        known = f" From the notes I was given: {'; '.join(notes)}." if notes else " The notes I was given are empty."
        return f"Understood, I'll take care of it: {req.task.splitlines()[-1]}{known}"
    if "remember" in req.task.lower():
        return f"Got it — I'll remember that: {req.task.split('. Please')[0]}. I'll keep it in mind for next time."
    return None


# ---- 4. the tool moves, in the order it tries them ------------------------------------------

def words(text: str) -> list[str]:
    """The words of `text` that carry meaning, each once, lower-cased."""
    found = [w for w in re.findall(r"[a-zA-Z][\w/-]*", text.lower()) if w not in STOP_WORDS and len(w) > 1]
    return list(dict.fromkeys(found))


def schema_example(schema: dict, prop: str) -> str | None:
    """The first 'quoted' example in a parameter's description, e.g. 'notes.txt'."""
    found = re.search(r"'([^'\s]+)'", schema["properties"][prop].get("description", ""))
    return found[1] if found else None


def arguments(schema: dict, task: str, **chosen) -> dict:
    """Input that fits `schema`: the values chosen, and each other required parameter filled from the task."""
    numbers = re.findall(r"\d+(?:\.\d+)?", task)
    out = {name: value for name, value in chosen.items() if name in schema["properties"]}
    for prop in schema.get("required", []):
        kind = schema["properties"][prop].get("type")
        if prop in out:
            continue
        if kind == "string":
            out[prop] = task if prop == "task" else " ".join(words(task)[:8])
        elif kind in ("integer", "number") and numbers:
            out[prop] = int(float(numbers.pop(0))) if kind == "integer" else float(numbers.pop(0))
    return out


def file_tool(req: Request) -> str | None:
    """The name of a tool that reads a file by `path`, if one is offered."""
    return next((name for name, s in req.tools.items() if "path" in s.get("properties", {})), None)


def look_at_notes(req: Request) -> list:
    if "list_notes" in req.tools and not req.called("list_notes"):
        return [("list_notes", {})]
    return []


def find(req: Request) -> list:
    if "search" in req.tools and not req.called("search"):
        return [("search", arguments(req.tools["search"], req.task))]
    reader = file_tool(req)
    if reader and not req.called(reader):
        guess = schema_example(req.tools[reader], "path") or "README.md"
        return [(reader, arguments(req.tools[reader], req.task, path=guess))]
    return []


def read(req: Request) -> list:
    reader = file_tool(req)
    if reader:
        done = {e.input["path"] for e in req.called(reader)}
        listed = [name for e in req.called(reader) for name in re.findall(r"[\w./-]+\.(?:md|txt)\b", e.result)]
        unread = sorted(set(listed) - done)[:4]
        return [(reader, arguments(req.tools[reader], req.task, path=p)) for p in unread]
    if "read" in req.tools and req.called("search") and not req.called("read"):
        hit = re.search(r'^1\. (\S+) § "([^"]+)"', req.called("search")[0].result, re.MULTILINE)
        if hit:
            return [("read", arguments(req.tools["read"], req.task, doc_id=hit[1], section=hit[2]))]
    return []


def delegate(req: Request) -> list:
    """A tool that takes a whole `task` is a sub-agent: hand it the user's task, once."""
    for name, schema in req.tools.items():
        if list(schema.get("properties", {})) == ["task"] and not req.called(name):
            return [(name, arguments(schema, req.task))]
    return []


def kl(p: float, q: float) -> str:
    """D_KL(p‖q) in bits for two yes/no distributions, written its own way for the calculator."""
    return f"{p}*log2({p}/{q})+{round(1 - p, 10)}*log2({round(1 - p, 10)}/{round(1 - q, 10)})"


def kl_pair(req: Request) -> tuple[float, float] | None:
    """The two probabilities of a task that asks about KL divergence, or None."""
    probabilities = [float(x) for x in re.findall(r"\b0\.\d+\b", req.task)]
    return (probabilities[0], probabilities[1]) if "KL" in req.task and len(probabilities) >= 2 else None


def compute(req: Request) -> list:
    pair = kl_pair(req)
    if "calculate" not in req.tools or not pair:
        return []
    p, q = pair
    done = {e.input.get("expression") for e in req.called("calculate")}
    todo = [e for e in (kl(q, p), kl(p, q)) if e not in done]
    return [("calculate", arguments(req.tools["calculate"], req.task, expression=todo[0]))] if todo else []


MOVES = [look_at_notes, find, read, delegate, compute]


def next_calls(req: Request) -> list[tuple[str, dict]]:
    """The calls of its next step; none means it answers now."""
    if req.rounds >= MAX_TOOL_ROUNDS or (not req.tools) or direct_answer(req) is not None:
        return []
    for move in MOVES:
        calls = move(req)
        if calls:
            return calls
    return []


# ---- 5. the answer ------------------------------------------------------------------------

def most_relevant(text: str, task: str) -> str:
    """The sentence of `text` sharing most words with the task (headings left out)."""
    sentences = [s.strip() for line in text.splitlines() if not line.startswith("#")
                 for s in re.split(r"(?<=[.!?])\s+", line) if len(s.strip()) > 3]
    asked = {w[:5] for w in words(task)}
    return max(sentences, key=lambda s: len(asked & {w[:5] for w in words(s)}), default=text[:120])


def chat(req: Request) -> str:
    name = next((m[1] for t in req.user_texts if (m := re.search(r"my name is (\w+)", t, re.IGNORECASE))), None)
    if "my name" in req.last.lower() and "?" in req.last:
        return (f"Your name is {name} — you told me at the start of our conversation." if name else
                "I'm sorry, I don't know your name: you haven't told me in this conversation. What should I call you?")
    greeting = f"Hello {name}, nice to meet you! " if name and name in req.last else "Thanks for the details. "
    return greeting + "I'd be glad to help. Tell me what you need and I'll do my best to sort it out for you."


def computed(req: Request) -> list[tuple[float, float, float]]:
    """(p, q, D_KL(p‖q)) for each direction the calculator worked out."""
    pair = kl_pair(req)
    results = {e.input.get("expression"): e.result for e in req.called("calculate") if not e.is_error}
    if not pair:
        return []
    p, q = pair
    return [(a, b, float(results[kl(a, b)].rsplit("=", 1)[1])) for a, b in ((q, p), (p, q)) if kl(a, b) in results]


def answer(req: Request) -> str:
    direct = direct_answer(req)
    if direct is not None:
        return direct
    if not req.tools:
        return chat(req)
    lines = ["Here is what I found, step by step."]
    for e in req.exchanges:
        if e.name != "calculate" and not e.is_error and e.result.strip():
            source = e.input.get("path") or e.input.get("doc_id") or e.name
            lines.append(f"- {source}: “{most_relevant(e.result, req.task)}”")
    lines += [f"- The calculator gives D_KL({a}‖{b}) = {value:.3f} bits." for a, b, value in computed(req)]
    if len(computed(req)) == 2:
        lines.insert(0, "No: KL divergence is not a distance. Swapping its arguments changes its value, "
                        "and a distance must give the same value both ways.")
    if len(lines) == 1:
        lines.append("- I could not find anything useful with the tools I have.")
    lines.append("That is everything the tools gave me; ask if you want me to look further.")
    return "\n".join(lines)


def intent(calls: list) -> str:
    """What it says before its calls: more than the scripts do."""
    named = "; ".join(f"{name} with {json.dumps(input, ensure_ascii=False)}" for name, input in calls)
    return f"I'd rather check than guess, so I'll use the tools before answering. Next: {named}."


def plan(req: Request) -> str:
    """A plan in the format the system prompt asks for, written at the first step only."""
    if "Plan:" not in req.system or req.rounds:
        return ""
    return "Plan:\n1. [ ] find the notes\n2. [ ] read them\n3. [ ] write the answer\n\n"


# ---- the responder --------------------------------------------------------------------------

def claude_count(body: dict) -> int:
    """Input tokens as Claude would count this request: our count, times CLAUDE_TOKENS."""
    messages = [Message.from_dict(m) for m in body["messages"]]
    ours = context_tokens(body.get("system", ""), messages, body.get("tools", []))
    return round(CLAUDE_TOKENS * ours)


def written_tokens(blocks: list[dict]) -> int:
    """Output tokens for writing `blocks`, as Claude would count them."""
    written = {"text": lambda b: b["text"], "thinking": lambda b: b["thinking"], "tool_use": lambda b: json.dumps(b["input"])}
    return round(CLAUDE_TOKENS * sum(count_tokens(written[b["type"]](b)) for b in blocks))


def plausible_reply(body: dict):
    """One Messages API reply for `body`, as the plausible model writes it: (200, body, headers)."""
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    rng = random.Random(digest)
    req = Request.read(body)
    calls = next_calls(req)

    summary = f"The user asks: {req.last[:60]}. I'll {'use ' + calls[0][0] if calls else 'answer now'}."
    thought = thinking_block(summary if rng.random() < 0.3 else "", signature=f"EqQB{digest[:40]}==")
    hidden = 0 if thought["thinking"] else rng.randint(20, 60)  # thinking the API bills but leaves out
    if calls:
        blocks = [text_block(plan(req) + intent(calls))]
        blocks += [tool_use_block(f"toolu_{digest[:12]}_{i}", name, input) for i, (name, input) in enumerate(calls)]
        stop = "tool_use"
    else:
        blocks, stop = [text_block(plan(req) + answer(req))], "end_turn"

    budget = body["max_tokens"] - hidden - written_tokens([thought])
    if written_tokens(blocks) > budget:  # cut as the API does: the text up to the limit, no tool call
        text = blocks[0]["text"]
        while text and written_tokens([text_block(text)]) > budget:
            text = text[: len(text) * 3 // 4]
        blocks, stop = ([text_block(text)] if text else []), "max_tokens"
    written = min(body["max_tokens"], hidden + written_tokens([thought, *blocks]))
    usage = {"input_tokens": claude_count(body), "output_tokens": written,
             "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    reply = message_body([thought, *blocks], stop, model=body["model"], usage=usage)
    reply["id"] = f"msg_{digest[:24]}"
    return 200, reply, {}
