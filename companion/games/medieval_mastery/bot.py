"""The Medieval Mastery bot: win tricks that pay, throw the least useful card otherwise,
and lay the best tableau (`rules.best_arrangement`) after a trick won. Deterministic."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from companion.games.base import Action
from companion.games.medieval_mastery.rules import (
    NEMESIS,
    _strength,
    best_arrangement,
    can_join,
    deck_order,
    religious_suits,
    trick_winner,
    value,
)

if TYPE_CHECKING:  # the state imports this module
    from companion.games.medieval_mastery.state import MedievalMasteryState


def choose_action(state: MedievalMasteryState, rng: random.Random) -> Action:
    """Win tricks that pay (useful cards in them, or hand cards to lay down after), throw
    the least useful card otherwise, and lay the best tableau after a trick won. It uses
    no randomness: the same state gives the same move."""
    seat = state.current_player()
    if state.phase == "meld":
        hand = state.known[seat]
        groups = best_arrangement(state.laid(seat), state.trick_cards(), hand)
        return Action.make("meld", seat, groups=groups)
    legal = [a["card"] for a in state.legal_actions()]
    return Action.make("play", seat, card=_bot_card(state, seat, legal))


def _bot_card(state: MedievalMasteryState, seat: int, legal: list[str]) -> str:
    """Try to win a trick when winning pays (useful cards in it, or hand cards that the
    seat could then lay down), with the cheapest winning card when last to play and the
    strongest otherwise; else throw the least useful, lowest card. Lead the strongest card,
    a Ruler last (its nemesis may be out)."""
    groups = state.melds[seat]
    religious = religious_suits(groups)
    hand = state.known[seat]

    def useful(card: str) -> bool:
        if card[0] in "XA" or any(can_join(g, card, religious) for g in groups):
            return True
        partner = {"K": "Q", "Q": "K", "J": "P", "P": "J"}.get(card[0])
        return partner is not None and any(c[0] == partner for c in [*hand, *state.laid(seat)])

    def keep(card: str) -> tuple[int, int]:
        return value(card) + (30 if useful(card) else 0), deck_order(card)

    trick = state.trick_cards()
    if not trick:
        # Lead to win: a strong card that a nemesis cannot take, better one the seat cannot use.
        return max(legal, key=lambda c: (c[0] not in NEMESIS, not useful(c), _strength(c)))
    winning = [c for c in legal if trick_winner([*trick, c])[0] == len(trick)]
    prize = sum(value(c) for c in [*trick, *hand] if useful(c))
    if winning and prize:
        last = len(trick) == state.game.players - 1
        return min(winning, key=keep) if last else max(winning, key=_strength)
    return min(legal, key=keep)
