"""The agent's budgets: what a run may read and spend, checked before every call (introduced in notebooks/03_agent_loop.ipynb).

The step budget K_max is the loop's own (`Agent.max_steps`). Three more bound what a run
reads and costs, and each is checked *before* a call, so a call that could break one is
never made; the run then ends with the budget's name as its outcome:

- `max_context_tokens`: the most one call may read, c_k (working memory; nothing is cut);
- `max_input_tokens`: the most the whole run may read, Z = Σ c_k;
- `max_dollars`: the most the run may cost at `price`, counting the next call at its
  worst: its whole read at the highest rate the price has for reading (plain input, cache
  writes or cache reads: the server decides which it reports, and a cache write costs
  more than plain input), plus a full `max_tokens` reply.

Our c_k is a tiktoken estimate, and a real model's tokenizer may count more. So the next
call's read is taken at the largest of: our count, the model's own count when it can be
asked (`Claude.count_tokens`), and, for a model that cannot, what its replies so far say
about how far its counts run above ours.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Protocol

from .base.errors import MOST_TOKENS, SettingError, check_number, shown_value
from .messages import MAX_TOKENS, Message
from .models import Model, is_scripted, own_count
from .usage import Usage

LARGEST = {"max_context_tokens": MOST_TOKENS, "max_input_tokens": MOST_TOKENS, "max_dollars": 10**6}  # past these: a typo


class Pricing(Protocol):
    """What a dollar budget needs of a price: the dollars one call with a given usage costs.

    `teachagent.cost.Price` (lesson 6) is one; the budget needs nothing else of it.
    """

    def dollars(self, usage: Usage) -> float: ...


def request_bytes(system: str, messages: list[Message], specs: list[dict[str, Any]]) -> int:
    """The UTF-8 bytes of a request as JSON: more than its tokens for any tokenizer whose tokens are one byte or more."""
    body = {"system": system, "messages": [m.to_dict() for m in messages], "tools": specs}
    return len(json.dumps(body, ensure_ascii=False).encode("utf-8", "backslashreplace"))


def worst_call(price: Pricing, read: int, written: int) -> float:
    """The most a call that reads `read` tokens and writes `written` can cost at `price`.

    The server says how much of the read was a cache write, a cache read or plain input, and
    only after the call; so the read is priced at whichever of the three costs most.
    """
    ways = (Usage(read, written), Usage(0, written, cache_creation_input_tokens=read), Usage(0, written, read))
    return max(price.dollars(usage) for usage in ways)


def check_limits(max_context_tokens: int | None, max_input_tokens: int | None, max_dollars: float | None,
                 price: Pricing | None) -> None:
    """Refuse, in one line naming it, a limit no budget can keep, or a dollar budget without a price."""
    for name, value in (("max_context_tokens", max_context_tokens), ("max_input_tokens", max_input_tokens),
                        ("max_dollars", max_dollars)):
        if value is not None:  # None: no such budget
            check_number(name, value, at_least=0, at_most=LARGEST[name])
    if price is not None and not callable(getattr(price, "dollars", None)):  # a model's name, say
        raise SettingError(f"price must be a Price (from teachagent.cost), such as PRICES['claude-haiku-5-5'] for "
                           f"Claude, or Price(input=..., output=..., cache_write=..., cache_read=...) in dollars per "
                           f"million tokens; got {shown_value(price)}")
    if max_dollars is not None and price is None:
        raise SettingError("max_dollars needs a price: price=PRICES['claude-haiku-5-5'] for Claude, or for any other "
                           "model price=Price(input=..., output=..., cache_write=..., cache_read=...) in dollars per "
                           "million tokens (teachagent.cost)")


@dataclass
class Budget:
    """One run's budgets, and what its calls so far have read and cost (running totals: a check costs the same at any step)."""

    max_context_tokens: int | None = None
    max_input_tokens: int | None = None
    max_dollars: float | None = None
    price: Pricing | None = None
    max_tokens: int = MAX_TOKENS
    read: int = 0
    dollars: float = 0.0
    calls: int = 0
    ratio: float = 1.0  # the largest input the model reported over our c_k
    most_written: int = 0  # the longest reply the model reported

    def __post_init__(self) -> None:
        check_limits(self.max_context_tokens, self.max_input_tokens, self.max_dollars, self.price)

    def __repr__(self) -> str:
        set_ = {name: getattr(self, name) for name in LARGEST if getattr(self, name) is not None}
        limits = ", ".join(f"{name}={value}" for name, value in set_.items()) or "no token or dollar budget"
        return f"Budget({limits}; {self.calls} calls read {self.read:,} tokens, ${self.dollars:.4f})"

    @property
    def any(self) -> bool:
        """Whether a token or dollar budget is set: without one, nothing needs counting beyond c_k."""
        return self.max_context_tokens is not None or self.max_input_tokens is not None or self.max_dollars is not None

    def next_read(self, model: Model, system: str, messages: list[Message], specs: list[dict[str, Any]], c_k: int) -> int:
        """How many tokens the next call will read: at least our count c_k, never less than the model's.

        A model that can count is asked (only when a budget is set: no budget, no extra
        request). One that cannot and is not scripted is estimated from its replies so far
        (c_k times the largest ratio of its count to ours); before its first reply, at one
        token per byte of the request, which no tokenizer of bytes exceeds.
        """
        if not self.any:
            return c_k
        counted = own_count(model, system, messages, specs)
        if counted is not None:
            return max(c_k, counted)
        if is_scripted(model):  # its usage is our own count
            return c_k
        if not self.calls:
            return max(c_k, request_bytes(system, messages, specs))
        return max(c_k, math.ceil(c_k * self.ratio))

    def broken_by(self, next_read: int) -> str | None:
        """The budget a next call reading `next_read` tokens could break (its name, the run's outcome), or None."""
        if self.max_context_tokens is not None and next_read > self.max_context_tokens:
            return "max_context_tokens"
        if self.max_input_tokens is not None and self.read + next_read > self.max_input_tokens:
            return "max_input_tokens"
        if self.max_dollars is not None and self.price is not None:
            worst = worst_call(self.price, next_read, max(self.max_tokens, self.most_written))  # the reply at its longest
            if self.dollars + worst > self.max_dollars:
                return "max_dollars"
        return None

    def add(self, c_k: int, usage: Usage) -> None:
        """Count one call: what the model reported reading (the API's count, live) or our c_k, whichever is larger."""
        reported = usage.total_input_tokens
        self.read += max(reported, c_k)  # what the call is counted and priced as reading: `Usage.read_at_least(c_k)`
        self.calls += 1
        self.ratio = max(self.ratio, reported / max(c_k, 1))
        self.most_written = max(self.most_written, usage.output_tokens)
        if self.max_dollars is not None and self.price is not None:
            self.dollars += self.price.dollars(usage.read_at_least(c_k))  # as cost.run_cost prices it
