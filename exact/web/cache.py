"""The solutions ``gops serve`` solved on the fly, kept in a cache bounded in bytes.

Least recently used dropped first.  A Solution weighs its value arrays' ``nbytes`` (exact
fractions counted one by one), a variant's solution its ``memory_bytes()``.  Invariant:
the bytes kept plus the bytes reserved for the solves under way stay within
``capacity`` (a solution larger than the whole cache is never kept); room is made before
a solve starts (:meth:`SolutionCache.reserve`) and again when it is kept.  Not thread-safe
by itself: its owner (:class:`exact.web.solutions.Solutions`) holds a lock around it.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator


def solution_bytes(solution) -> int:
    """What a Solution weighs: its value arrays' nbytes (exact fractions counted one by
    one; they are kept for small N only)."""
    total = 0
    for values in solution.values:
        total += values.nbytes
        if values.dtype == object:
            total += sum(
                sys.getsizeof(x)
                + sys.getsizeof(getattr(x, "numerator", 0))
                + sys.getsizeof(getattr(x, "denominator", 0))
                for x in values.flat
            )
    return total


class SolutionCache:
    """Solutions by key, at most ``capacity`` bytes of them with the reserved bytes,
    oldest use first; iterating gives the keys from the least recently used.

    >>> cache = SolutionCache(10)
    >>> cache.put("a", "A", 6); cache.put("b", "B", 4); cache.get("a")
    'A'
    >>> cache.put("c", "C", 3); list(cache), cache.used  # b was the least recently used
    (['a', 'c'], 9)
    >>> cache.put("huge", "H", 11); list(cache)  # larger than the cache: dropped nothing
    ['a', 'c']
    """

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.used = 0  # bytes of the solutions kept
        self.reserved = 0  # bytes of the solves under way
        self._entries: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def get(self, key: Hashable):
        """The solution kept under ``key`` (marked as used), or None."""
        if key not in self._entries:
            return None
        self._entries.move_to_end(key)
        return self._entries[key][0]

    def find(self, answers: Callable[[Hashable], bool]):
        """(key, solution) of the first solution kept whose key ``answers`` (marked as
        used), or None."""
        for key in self._entries:
            if answers(key):
                return key, self.get(key)
        return None

    def reserve(self, size: int) -> None:
        """Make room for, and hold, ``size`` bytes of a solve about to start."""
        self._evict(size)
        self.reserved += size

    def release(self, size: int) -> None:
        """Give back the ``size`` bytes reserved by a solve that ended."""
        self.reserved -= size

    def put(self, key: Hashable, solution, weight: int) -> None:
        """Keep ``solution`` (of ``weight`` bytes), dropping the least recently used
        solutions to make room; one larger than the whole cache is not kept."""
        if weight > self.capacity:
            return
        self._evict(weight)
        self._entries[key] = (solution, weight)
        self.used += weight

    def _evict(self, room: int) -> None:
        """Drop the least recently used solutions until ``room`` more bytes fit."""
        while self._entries and self.used + self.reserved + room > self.capacity:
            _, (_, size) = self._entries.popitem(last=False)
            self.used -= size
