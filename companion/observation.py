"""What vision tells the session: a card became stable in a zone, left it, or moved.

Vision builds these from frames (vision.track); the session turns them into game
actions through the game's table adapter. Plain data: no cv2 here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

KINDS = ("placed", "removed", "moved")


@dataclass(frozen=True)
class Observation:
    """One stable change on the table.

    kind: "placed", "removed" or "moved". code: the card's code (CARDS.md).
    zone / zone_kind / seat: where the card is now ("removed": where it was); zone kinds
    are "play" (a seat's play area), "field", "trick", "meld", "stash", "pile", "table".
    from_zone / from_seat: where a "moved" card came from. t: the frame's time in seconds;
    frame: its index; confidence: the identification's confidence, 0..1. note: why the
    camera chose between close readings, when the referee's possible cards settled it.
    """

    kind: str
    code: str
    zone: str
    zone_kind: str
    seat: int | None = None
    from_zone: str | None = None
    from_seat: int | None = None
    t: float = 0.0
    frame: int | None = None
    confidence: float = 1.0
    note: str = ""  # how the rules' knowledge settled the reading ("read as QS; KS is ...")

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"observation kind must be one of {', '.join(KINDS)}, got {self.kind!r}")

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None and not (k == "note" and not v)}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Observation:
        """From `to_json()`; keys that are no field (a logged answer's "asked") are left out."""
        return cls(**{k: v for k, v in obj.items() if k in _FIELDS})


_FIELDS = frozenset(Observation.__dataclass_fields__)


@dataclass(frozen=True)
class Question:
    """A card lying still that the camera cannot name for sure: the screen asks the
    players, who answer with one touch or a seat button.

    key: the card's identity on the table (the same key while it lies still; vision
    makes it). zone / zone_kind / seat: where it lies, as in `Observation`.
    candidates: the likely cards with their scores, best first (two or three).
    crop_png: the card as the camera sees it, turned upright, as PNG bytes (may be empty).
    t / frame: when it was asked.
    """

    key: str
    zone: str
    zone_kind: str
    candidates: tuple[tuple[str, float], ...]
    seat: int | None = None
    t: float = 0.0
    frame: int | None = None
    crop_png: bytes = b""

    def observation(self, code: str) -> Observation:
        """The observation the answer makes: this card placed where it lies."""
        return Observation("placed", code, self.zone, self.zone_kind, self.seat, t=self.t, frame=self.frame,
                           confidence=1.0)

    def evidence(self) -> dict[str, Any]:
        """What the camera saw, for the log (the crop left out)."""
        return {"key": self.key, "zone": self.zone, "seat": self.seat, "frame": self.frame,
                "candidates": [[c, round(float(s), 3)] for c, s in self.candidates]}
