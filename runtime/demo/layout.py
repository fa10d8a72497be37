"""The cards lying face up on the synthetic table, by zone: what the demo shows the camera.

A `Layout` is plain data (no vision types): card code -> `Lay` (the mat zone it lies in
and its slot there). Slots are handed out lowest free first, so a card keeps its place
while others come and go, as on a real table. Turning it into pixels is the camera's
business (`runtime.demo.camera`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Lay:
    """One card face up: the zone (a mat zone name) and its slot in that zone."""

    code: str
    zone: str
    slot: int


@dataclass(frozen=True)
class Change:
    """What happens on the table in one go: cards taken away, then cards put down (a card
    may go from one zone to another: it is moved, not removed)."""

    remove: tuple[str, ...] = ()
    place: tuple[tuple[str, str], ...] = ()  # (code, zone)

    def __bool__(self) -> bool:
        return bool(self.remove or self.place)


class Layout:
    """The face-up cards on the table now."""

    def __init__(self) -> None:
        self._cards: dict[str, Lay] = {}

    def __contains__(self, code: object) -> bool:
        return code in self._cards

    def __len__(self) -> int:
        return len(self._cards)

    def __iter__(self) -> Iterator[Lay]:
        """The cards by zone and slot."""
        return iter(sorted(self._cards.values(), key=lambda lay: (lay.zone, lay.slot)))

    def where(self, code: str) -> str | None:
        """The zone `code` lies in, None when it is not on the table."""
        lay = self._cards.get(code)
        return lay.zone if lay else None

    def in_zone(self, zone: str) -> list[str]:
        """The codes in `zone`, by slot."""
        return [lay.code for lay in self if lay.zone == zone]

    def apply(self, change: Change) -> None:
        """Take away, then put down. A card put down where it already lies stays put."""
        for code in change.remove:
            self._cards.pop(code, None)
        for code, zone in change.place:
            old = self._cards.get(code)
            if old is not None and old.zone == zone:
                continue
            self._cards.pop(code, None)
            used = {lay.slot for lay in self._cards.values() if lay.zone == zone}
            slot = next(i for i in range(len(used) + 1) if i not in used)
            self._cards[code] = Lay(code, zone, slot)
