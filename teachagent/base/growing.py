"""A running count over a list that only grows: how a scripted model (notebooks/01_bare_chat.ipynb)
counts its context at a cost flat in the number of steps.

An agent's conversation only grows at its end, so a count of it made at step k holds
for step k + 1 plus the messages added in between. `GrowingCount` keeps that count and
counts only what was added; any other list is counted from scratch. This is speed only:
for a list that only grew, the number is the one a full recount gives (a list whose first
and last counted items kept their places but whose middle was changed is taken as grown).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass
class GrowingCount:
    """The last list counted (`items`, under `key`) and its count (`total`)."""

    key: Any = None
    items: list[Any] = field(default_factory=list)
    total: int = 0

    def count(self, key: Any, items: Sequence[T], start: Callable[[], int], each: Callable[[T], int]) -> int:
        """`start() + sum(each(item) for item in items)`, counting only the items added since the last call.

        The last count is reused when `key` is equal to the last one and `items` still begins
        with the items counted then, which is checked in a time that does not grow with the
        list: no fewer items, and the first and the last item counted still in their places.
        An item changed in place after it was counted is not counted again.
        """
        n = len(self.items)
        continued = key == self.key and len(items) >= n
        if continued and n:
            continued = items[0] is self.items[0] and items[n - 1] is self.items[-1]
        if not continued:
            self.key, self.items, self.total = key, [], start()
        new = items[len(self.items):]
        self.total += sum(each(item) for item in new)
        self.items += new
        return self.total
