"""One explicit, bounded memo per value object (groups, subgroup classes, problems).

Values are frozen dataclasses with declared fields only; what they compute on demand
(inverse table, conjugacy classes, subgroup lattice, irreps, option tables) lives in their
declared `memo` field, so it is freed with the object, never in a module-level cache keyed
by the object. A memo holds at most `limit` entries (oldest first out: a dropped entry is
recomputed when asked again). No lock: two threads may both compute an entry, the first
stored wins (values are pure functions of the object); what must be built once under
concurrency (the subgroup lattice) takes its own lock.

    >>> m = Memo(limit=2)
    >>> m.get("x", lambda: 1 + 1)
    2

`PROCESS` is the one memo of facts about the process itself that a library keeps for the
whole process (HiGHS starts one thread scheduler per process and prints its banner once):
they are recorded once, here, and nowhere else at module level.
"""

from __future__ import annotations

from typing import Any, Callable, Generic, Hashable, TypeVar, overload

T = TypeVar("T")

DEFAULT_LIMIT = 256


class Memo:
    """key -> value, each computed once by `get(key, make)`; at most `limit` entries."""

    __slots__ = ("_data", "limit")

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self._data: dict[Hashable, object] = {}
        self.limit = limit

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        try:
            return self._data[key]  # type: ignore[return-value]
        except KeyError:
            pass
        value = make()
        while len(self._data) >= self.limit:
            self._data.pop(next(iter(self._data)), None)
        return self._data.setdefault(key, value)  # type: ignore[return-value]

    def find(self, key: Hashable) -> object | None:
        """The entry, or None when it has not been computed (or was dropped)."""
        return self._data.get(key)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"Memo({len(self._data)} of {self.limit})"

    def __reduce__(self) -> tuple:
        """Pickles empty (a copy recomputes what it needs)."""
        return (Memo, (self.limit,))


class memoized(Generic[T]):  # noqa: N801 - used like @property
    """A read-only property computed once into the owner's declared `memo` field.

        @memoized
        def inv(self) -> np.ndarray: ...
    """

    def __init__(self, fn: Callable[[Any], T]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    @overload
    def __get__(self, obj: None, owner: type) -> "memoized[T]": ...

    @overload
    def __get__(self, obj: object, owner: type) -> T: ...

    def __get__(self, obj: object, owner: type) -> "T | memoized[T]":
        if obj is None:
            return self
        return obj.memo.get(self.name, lambda: self.fn(obj))  # type: ignore[attr-defined]


PROCESS = Memo(limit=64)  # facts about this process (module docstring); never evicted at this size
