"""A cache kept to a number of bytes: the least recently used go first.

For values that can be worked out again the same (drawn card faces, identify's pairs of
cards), so a dropped entry costs time, never a different answer."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, MutableMapping


class KeptCache(MutableMapping):
    """A mapping that keeps what was put in it up to `max_bytes` (the numpy arrays in
    each value counted), dropping the least recently used first; the newest entry is
    always kept, even when larger. Asking whether a key is there, or reading it, makes it
    the most recent, so a key just found is still there when it is read. Safe to share
    between threads (the kiosk's camera thread and its screens both draw cards)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._items: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: object) -> bool:
        with self._lock:
            if key not in self._items:
                return False
            self._items.move_to_end(key)
            return True

    def __getitem__(self, key: Hashable) -> object:
        with self._lock:
            value, _ = self._items[key]
            self._items.move_to_end(key)
            return value

    def __setitem__(self, key: Hashable, value: object) -> None:
        with self._lock:
            self._put(key, value)

    def _put(self, key: Hashable, value: object) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self.nbytes -= old[1]
        size = _value_bytes(value)
        self._items[key] = (value, size)
        self.nbytes += size
        while self.nbytes > self.max_bytes and len(self._items) > 1:
            _, (_, dropped) = self._items.popitem(last=False)
            self.nbytes -= dropped

    def __delitem__(self, key: Hashable) -> None:
        with self._lock:
            _, size = self._items.pop(key)
            self.nbytes -= size

    def __iter__(self) -> Iterator[Hashable]:
        with self._lock:
            return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def find(self, key: Hashable) -> object | None:
        """The value kept for `key` (made the most recent), else None."""
        with self._lock:
            kept = self._items.get(key)
            if kept is None:
                return None
            self._items.move_to_end(key)
            return kept[0]

    def made(self, key: Hashable, make: Callable[[], object]) -> object:
        """The value kept for `key`, else `make()` kept and returned (not `get`: a
        mapping's get takes a default, not a maker). `make` runs outside
        the lock (drawing a card takes milliseconds); if another thread made the same key
        meanwhile, its value is the one kept and returned (one array per key)."""
        found = self.find(key)
        if found is not None:
            return found
        value = make()
        with self._lock:
            kept = self._items.get(key)
            if kept is not None:
                self._items.move_to_end(key)
                return kept[0]
            self._put(key, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.nbytes = 0


def _value_bytes(value: object) -> int:
    """The bytes of the numpy arrays in a cache value (an array or a tuple of them)."""
    parts = value if isinstance(value, tuple) else (value,)
    return sum(int(getattr(p, "nbytes", 0)) for p in parts)
