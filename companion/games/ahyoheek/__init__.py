"""Ahyoheek as a library: its rules (round scores and winners), the game and its state, its
words and its bot, one module each (rules, state, words, bot); the names other programs use
are re-exported here."""

from __future__ import annotations

from companion.games.ahyoheek.rules import (
    BEATS,
    GOAL,
    PICKS,
    round_scores,
    round_winners,
)
from companion.games.ahyoheek.state import (
    Ahyoheek,
    AhyoheekState,
)

__all__ = [
    "BEATS",
    "GOAL",
    "PICKS",
    "Ahyoheek",
    "AhyoheekState",
    "round_scores",
    "round_winners",
]
