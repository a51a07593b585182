"""What a run costs: Z, the theorem, prices and prompt caching (introduced in notebooks/06_cost.ipynb).

Call k sends the model everything so far, the context c_k, and the model reads all of
it. Over a run of K calls the loop reads

    Z = c_1 + c_2 + ... + c_K    input tokens.

When each step adds about the same d tokens (what it wrote plus what its tool returned),
c_k = c_1 + (k - 1) d and

    Z = K c_1 + d K (K - 1) / 2:

a part linear in K and a part quadratic in K, which soon decides the bill; Z(2K)/Z(K)
tends to 4 as K grows. This module measures Z on a `Run`, predicts it from (K, c_1, d), fits d to a
run, prices a run in dollars, and works out what prompt caching changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base.display import shorten
from .base.errors import MOST_TOKENS, SettingError, check_number
from .trace import Run
from .usage import Usage


@dataclass
class ZComparison:
    """Z for one run as we counted it (tiktoken), beside the API's own count when the run was live."""

    counted: int
    reported: int | None = None

    def __repr__(self) -> str:
        if self.reported is None:
            return f"ZComparison(counted={self.counted:,})"
        off = "" if self.relative_difference is None else f", off by {self.relative_difference:+.1%}"
        return f"ZComparison(counted={self.counted:,}, reported={self.reported:,}{off})"

    @property
    def relative_difference(self) -> float | None:
        """How far our count is from the API's: (counted - reported) / reported."""
        return None if not self.reported else (self.counted - self.reported) / self.reported


def compare_Z(run: Run) -> ZComparison:
    """`run.Z`, and the API's Σ of input tokens over the run's calls. A scripted model's usage
    is our own count, so only live runs have a `reported` Z."""
    if run.scripted:
        return ZComparison(run.Z)
    return ZComparison(run.Z, sum(step.response.usage.total_input_tokens for step in run.steps))


def predicted_total(K: int, c1: float, d: float) -> float:
    """Z = K c_1 + d K (K - 1) / 2: the total when every call adds d tokens to the context."""
    check_number("K", K, whole=True, at_least=1, at_most=10**9)
    check_number("c1", c1, at_least=0, at_most=MOST_TOKENS)
    check_number("d", d, at_least=0, at_most=MOST_TOKENS)
    return K * c1 + d * K * (K - 1) / 2


def fitted_d(sizes: list[int], method: str = "endpoints") -> float:
    """The growth per call d that best describes c_1, ..., c_K.

    "endpoints" is (c_K - c_1) / (K - 1), the average growth, as the course's source
    computes it. "least_squares" fits c_k - c_1 = d (k - 1) to every call, not just the
    last one.
    """
    K = len(sizes)
    if K < 2:
        raise ValueError("a growth per call needs at least two calls")
    for k, size in enumerate(sizes, start=1):  # a NaN would make d NaN, and every prediction from it
        check_number(f"c_{k}", size, at_least=0, at_most=MOST_TOKENS, unit="tokens")
    if method == "endpoints":
        return (sizes[-1] - sizes[0]) / (K - 1)
    if method == "least_squares":
        steps = range(K)
        return sum(k * (c - sizes[0]) for k, c in zip(steps, sizes)) / sum(k * k for k in steps)
    raise ValueError(f"unknown method {method!r}; use 'endpoints' or 'least_squares'")


# --- prices ---------------------------------------------------------------------------

PRICES_CHECKED = "2026-11-30"  # against Anthropic's published pricing pages; check again before relying on them


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens for one model.

    Some models charge more for long prompts: above `long_prompt_from` input tokens
    (cached or not), every rate of that call is multiplied by `long_prompt_factor`.
    """

    input: float
    output: float
    cache_write: float  # writing a prefix into the 5-minute cache
    cache_read: float  # reading a cached prefix
    long_prompt_from: int | None = None
    long_prompt_factor: float = 1.0

    def __post_init__(self) -> None:
        for name in ("input", "output", "cache_write", "cache_read"):
            price = getattr(self, name)
            check_number(f"the {name} price", price, at_least=0, at_most=10**6, unit="dollars per million tokens")
        if self.long_prompt_from is not None:
            check_number("long_prompt_from", self.long_prompt_from, whole=True, at_least=1, at_most=MOST_TOKENS)
        check_number("long_prompt_factor", self.long_prompt_factor, at_least=1, at_most=1000)

    def dollars(self, usage: Usage) -> float:
        """Dollars for one call with this usage; above `long_prompt_from`, every rate costs more.

        A count that is not a whole number of tokens from 0 up (a negative one would pay money back) is refused.
        """
        for name, count in usage.to_dict().items():
            if type(count) is not int or count < 0:  # the quick test; check_number words the refusal
                check_number(f"usage.{name}", count, whole=True, at_least=0, unit="tokens")
        long_prompt = self.long_prompt_from is not None and usage.total_input_tokens > self.long_prompt_from
        per_million = (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_creation_input_tokens * self.cache_write
            + usage.cache_read_input_tokens * self.cache_read
        )
        return (self.long_prompt_factor if long_prompt else 1.0) * per_million / 1e6


PRICES = {
    "claude-haiku-5-5": Price(0.10, 0.50, 0.125, 0.01, long_prompt_from=100_000, long_prompt_factor=5.0),
    "claude-sonnet-5-5": Price(2.00, 10.00, 2.50, 0.10),
    "claude-opus-5-5": Price(4.00, 20.00, 5.00, 0.20),
    "claude-haiku-4-5": Price(1.00, 5.00, 1.25, 0.10),
}


# How to give a price for a model with none in PRICES: any other provider, a server of your own.
GIVE_A_PRICE = ("Price(input=..., output=..., cache_write=..., cache_read=...) in dollars per million tokens "
                "(Price(0, 0, 0, 0) for a model on your own machine)")


def price_of(model: str | Price) -> Price:
    """`model`'s list price from PRICES; a `Price` given instead is its own price."""
    if isinstance(model, Price):
        return model
    try:
        return PRICES[model]
    except (KeyError, TypeError):
        raise SettingError(f"no list price known for {shorten(repr(model), 80)} (PRICES has {', '.join(PRICES)}); "
                           f"give one as {GIVE_A_PRICE}") from None


def run_cost(run: Run, model: str | Price, usages: list[Usage] | None = None) -> float:
    """Dollars for a run at `model`'s prices (a name in PRICES, or a `Price`): its own usage, or the `usages` given.

    A call's own usage is priced as reading at least our count c_k (`Usage.read_at_least`),
    as the budget counts it, so a run is never priced below the Z shown beside it; cache
    reads a server reported stay cache reads.
    """
    price = price_of(model)
    return sum(price.dollars(u) for u in (usages if usages is not None else priced_usages(run)))


def priced_usages(run: Run) -> list[Usage]:
    """The usage `run_cost` prices for each call of `run`: the server's count, and at least c_k."""
    return [step.response.usage.read_at_least(step.context_tokens) for step in run.steps]


def priced_usage(*runs: Run) -> Usage:
    """What `run_cost` prices for `runs`, added up over every call.

    Set beside Z (our count) it says where a price comes from: a real server counts with its
    own tokenizer and chat template, and may report part of the input as cache reads.
    """
    return sum((u for run in runs for u in priced_usages(run)), Usage())


def cached_usages(run: Run) -> list[Usage]:
    """The usage of each call if the growing prefix were cached (prompt caching).

    Call k puts a cache breakpoint at the end of its context. Call k+1 then reads the
    first c_k tokens from the cache and writes only the part that is new, c_{k+1} - c_k.
    Call 1 writes its whole context. (Real caches also need a minimum prefix length and
    expire after five minutes unused; this is the arithmetic of the ideal case.)
    """
    sizes, usages, cached = run.context_sizes, [], 0
    for size, step in zip(sizes, run.steps):
        usages.append(Usage(0, step.response.usage.output_tokens, cached, size - cached))
        cached = size
    return usages
