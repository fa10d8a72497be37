"""The Yokir bot: a simple, deterministic heuristic for full-information play.

Bidding: call a suit when the hand (with the upcard taken up and the worst card
discarded, in round 1) is strong enough to expect three tricks alone. Discard: shorten
a side suit, keep trumps and Masters. Play: the caller draws trumps while it holds the
best one left or three or more; defenders lead side suits; a follower wins as cheaply
as it can, and throws its least useful card when it cannot win or its partner wins.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from companion.errors import IllegalAction
from companion.games.base import Action
from companion.games.yokir.rules import (
    CODES,
    RANKS,
    SUITS,
    card_power,
    effective_suit,
    legal_plays,
    trick_winner,
)
from companion.words import seat_words

if TYPE_CHECKING:  # the state imports this module
    from companion.games.yokir.state import YokirState

# Trick-taking weight of a trump by power (Student 102 .. Oracle 108) and of a side card.
_TRUMP_WEIGHT = {108: 3.0, 107: 2.5, 106: 2.0, 105: 1.5, 104: 1.2, 103: 1.0, 102: 1.0}
_SIDE_WEIGHT = {"M": 1.0, "R": 0.4}
CALL_AT = 5.5  # the strength at which the bot calls trump (about three tricks alone)


def strength(hand: Sequence[str], trump: str) -> float:
    """How many tricks `hand` may take with `trump`, roughly, as a score: trumps by rank,
    side Masters and Scribes, and a bonus for each side suit missing when holding trumps."""
    score = 0.0
    trumps = 0
    side_suits = set()
    for card in hand:
        if effective_suit(card, trump) == trump:
            trumps += 1
            score += _TRUMP_WEIGHT[card_power(card, trump, trump)]
        else:
            side_suits.add(card[1])
            score += _SIDE_WEIGHT.get(card[0], 0.0)
    if trumps >= 2:
        score += 0.5 * (len(SUITS) - 1 - len(side_suits))
    return score


def keep_value(card: str, trump: str) -> int:
    """How much a card is worth keeping: any trump above any side card, then by rank."""
    if effective_suit(card, trump) == trump:
        return card_power(card, trump, trump)
    return RANKS.index(card[0])


def best_discard(hand: Sequence[str], trump: str) -> str:
    """The card to put down after taking up the upcard: a lone low side card first (it
    leaves a suit empty, so trumps can win it), else the least useful card."""
    side = [c for c in hand if effective_suit(c, trump) != trump]
    singletons = [c for c in side if c[0] != "M" and
                  sum(1 for d in side if effective_suit(d, trump) == effective_suit(c, trump)) == 1]
    pool = singletons or list(hand)
    return min(pool, key=lambda c: (keep_value(c, trump), CODES.index(c)))


def choose_action(state: YokirState, rng: random.Random) -> Action:
    """The bot's move for the seat to act. It needs that seat's hand."""
    seat = state.current_player()
    hand = state.hands[seat] if seat >= 0 else None
    if hand is None:
        raise IllegalAction(f"the bot cannot act for {seat_words(seat)}: its hand is not known")
    if state.phase == "bid1":
        return Action.make("bid", seat, bid=_round1_bid(hand, state.upcard))
    if state.phase == "bid2":
        return Action.make("bid", seat, bid=_round2_bid(hand, state.upcard))
    assert state.trump is not None
    if state.phase == "discard":
        return Action.make("discard", seat, card=best_discard(hand, state.trump))
    return Action.make("play", seat, card=_choose_play(state, seat, hand))


def _round1_bid(hand: Sequence[str], upcard: str | None) -> str:
    assert upcard is not None
    trump = upcard[1]
    six = [*hand, upcard]
    kept = list(six)
    kept.remove(best_discard(six, trump))
    return "accept" if strength(kept, trump) >= CALL_AT else "pass"


def _round2_bid(hand: Sequence[str], upcard: str | None) -> str:
    assert upcard is not None
    options = [s for s in SUITS if s != upcard[1]]
    best = max(options, key=lambda s: (strength(hand, s), -SUITS.index(s)))
    return best if strength(hand, best) >= CALL_AT else "pass"


def _choose_play(state: YokirState, seat: int, hand: list[str]) -> str:
    trump = state.trump
    assert trump is not None
    legal = legal_plays(hand, state.led, trump)
    if len(legal) == 1:
        return legal[0]
    unseen = [c for c in CODES if c not in state.played and c not in hand]
    if state.led is None:
        return _lead(legal, trump, unseen, caller=seat == state.caller)
    played = [c for _, c in state.trick]
    best_now, _ = trick_winner(played, trump)
    winning_seat = state.trick[best_now][0]
    partner_wins = seat != state.caller and winning_seat != state.caller
    cheapest = min(legal, key=lambda c: (keep_value(c, trump), CODES.index(c)))
    if partner_wins:
        return cheapest
    winners = [c for c in legal if trick_winner([*played, c], trump)[0] == len(played)]
    if not winners:
        return cheapest
    return min(winners, key=lambda c: (keep_value(c, trump), CODES.index(c)))


def _lead(legal: list[str], trump: str, unseen: list[str], *, caller: bool) -> str:
    trumps = sorted((c for c in legal if effective_suit(c, trump) == trump),
                    key=lambda c: -keep_value(c, trump))
    side = [c for c in legal if effective_suit(c, trump) != trump]

    def boss(card: str) -> bool:
        """No unseen card of its suit beats it."""
        suit = effective_suit(card, trump)
        return all(card_power(u, trump, suit) < card_power(card, trump, suit)
                   for u in unseen if effective_suit(u, trump) == suit)

    if caller and trumps and (boss(trumps[0]) or len(trumps) >= 3):
        return trumps[0]  # draw the defenders' trumps while it is safe or trumps are long
    bosses = [c for c in side if boss(c)]
    if bosses:
        return max(bosses, key=lambda c: (keep_value(c, trump), -CODES.index(c)))
    if side:
        return min(side, key=lambda c: (keep_value(c, trump), CODES.index(c)))
    return trumps[-1]
