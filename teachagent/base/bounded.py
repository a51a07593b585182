"""A cache with two bounds: how many entries it keeps, and how much text its keys hold in all.

Counting tokens (teachagent/tokens.py, lesson 1) keeps the count of every text it has
seen, so that a conversation that grows by one message is encoded by one message. A
bound on entries alone is not enough there: sixteen thousand texts of a few megabytes
each would keep gigabytes alive. So this cache also bounds the total length of its keys,
forgets the least recently used entry while either bound is passed, and never keeps a
key longer than an eighth of the whole. Tools count tokens on their own threads, hence the lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Generic, TypeVar

Value = TypeVar("Value")


@dataclass
class BoundedCache(Generic[Value]):
    """At most `entries` values, under str keys whose lengths add up to at most `chars`."""

    entries: int
    chars: int
    _kept: OrderedDict[str, Value] = field(default_factory=OrderedDict, init=False, repr=False)  # least recent first
    _chars: int = field(default=0, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __repr__(self) -> str:
        return f"BoundedCache({len(self._kept)} of {self.entries} entries, {self._chars:,} of {self.chars:,} characters)"

    def __len__(self) -> int:
        return len(self._kept)

    @property
    def held_chars(self) -> int:
        """The total length of the keys kept now."""
        return self._chars

    def keys(self) -> list[str]:
        """The keys kept, least recently used first."""
        with self._lock:
            return list(self._kept)

    def get(self, key: str) -> Value | None:
        """The value kept for `key`, now the most recently used; None if none is kept."""
        with self._lock:
            value = self._kept.get(key)
            if value is not None:
                self._kept.move_to_end(key)
            return value

    def put(self, key: str, value: Value) -> None:
        """Keep `value` for `key`, unless the key alone is too long to be worth keeping."""
        if len(key) > self.chars // 8:
            return
        with self._lock:
            if key not in self._kept:
                self._kept[key] = value
                self._chars += len(key)
            while len(self._kept) > self.entries or self._chars > self.chars:
                self._chars -= len(self._kept.popitem(last=False)[0])

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self._chars = 0
