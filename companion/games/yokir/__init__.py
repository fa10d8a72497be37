"""Yokir as a library: its rules (trick winners, legal plays, points), the game and its
state, its words and its bot, one module each (rules, state, words, bot); the names other
programs use are re-exported here."""

from __future__ import annotations

from companion.errors import UnknownSuit  # raised by parse_suit; imported from here by older code
from companion.games.yokir.rules import (
    CODES,
    DECK,
    HAND_SIZE,
    PLAYERS,
    RANKS,
    SAME_COLOUR,
    SUITS,
    TARGET,
    TRICKS,
    card_name,
    card_power,
    effective_suit,
    explain_plays,
    game_winner,
    hand_points,
    legal_plays,
    oracle,
    parse_suit,
    role,
    sage,
    sort_cards,
    suit_name,
    title,
    trick_winner,
)
from companion.games.yokir.state import (
    Yokir,
    YokirState,
)

__all__ = [
    "CODES",
    "DECK",
    "HAND_SIZE",
    "PLAYERS",
    "RANKS",
    "SAME_COLOUR",
    "SUITS",
    "TARGET",
    "TRICKS",
    "UnknownSuit",
    "Yokir",
    "YokirState",
    "card_name",
    "card_power",
    "effective_suit",
    "explain_plays",
    "game_winner",
    "hand_points",
    "legal_plays",
    "oracle",
    "parse_suit",
    "role",
    "sage",
    "sort_cards",
    "suit_name",
    "title",
    "trick_winner",
]
