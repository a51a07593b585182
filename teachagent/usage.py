"""What one model call read and wrote, in tokens (introduced in notebooks/01_bare_chat.ipynb).

Every reply reports its `Usage`: the tokens the call read and the tokens the model wrote.
With prompt caching (notebooks/06_cost.ipynb) the read part comes in three pieces, priced
differently: written to the cache on this call, read from it, and the rest. Usages add up,
so a run's total is `sum(step.response.usage for step in run.steps)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")  # in order


@dataclass
class Usage:
    """Tokens one call read and wrote. Usages add up, so a run's total is `sum(...)`.

    With prompt caching, the API reports the cached part of the input separately:
    `cache_creation_input_tokens` were written to the cache on this call and
    `cache_read_input_tokens` were read from it; `input_tokens` is the rest.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
        )

    def __radd__(self, other: object) -> Usage:
        # lets sum(usages) start from its default 0
        if other == 0:
            return self
        return NotImplemented

    @property
    def total_input_tokens(self) -> int:
        """Everything the model read on this call, cached or not."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens

    def read_at_least(self, c_k: int) -> Usage:
        """This usage with what it reports below our count `c_k` added as uncached input: a call read at least c_k.

        The budget counts a call this way (budget.py) and so does its price (cost.py), so a
        server that reports less than the request holds is never billed below the Z beside it.
        """
        short = c_k - self.total_input_tokens
        return self if short <= 0 else Usage(self.input_tokens + short, self.output_tokens,
                                             self.cache_read_input_tokens, self.cache_creation_input_tokens)

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Usage:
        get = d.get
        return cls(int(get(FIELDS[0]) or 0), int(get(FIELDS[1]) or 0), int(get(FIELDS[2]) or 0), int(get(FIELDS[3]) or 0))
