"""Piktas's open-hand hints (every move on a player's turn with the score it leaves) and
the bot that plays the best of them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.errors import IllegalAction
from companion.games.base import Action
from companion.games.piktas.rules import (
    Score,
    card_order,
    check_pool,
    field_total,
    is_void,
    score,
    score_hands,
)
from companion.words import seat_words

if TYPE_CHECKING:  # the state imports this module
    from companion.games.piktas.state import PiktasState

_MOVE_ORDER = {"pass": 0, "void": 1, "swap": 2}


# --- open hand: what a player could do -----------------------------------------

@dataclass(frozen=True)
class Hint:
    """One move open to a player on their turn: the score it leaves them with, and the
    best total of the field alone afterwards (the floor every other player shares)."""

    kind: str  # "pass", "swap" (take a field card, give a hand card) or "void"
    score: Score
    field_total: int
    take: str | None = None  # swap: the field card taken
    give: str | None = None  # swap: the hand card given; void: the void placed
    on: str | None = None  # void: the field card covered

    def words(self) -> str:
        if self.kind == "swap":
            return f"swap: take {self.take}, give {self.give}"
        if self.kind == "void":
            return f"place {self.give} on {self.on}"
        return "pass"

    def action(self, seat: int) -> Action:
        if self.kind == "swap":
            return Action.make("swap", seat, take=self.take, give=self.give)
        if self.kind == "void":
            return Action.make("void", seat, void=self.give, on=self.on)
        return Action.make("pass", seat)

    def sort_key(self) -> tuple[Any, ...]:
        moved = [card_order(c) for c in (self.give, self.take or self.on) if c]
        return (tuple(-k for k in self.score.rank()), self.field_total, _MOVE_ORDER[self.kind],
                moved)

    def to_json(self) -> dict[str, Any]:
        move: dict[str, Any] = {"type": self.kind}
        if self.kind == "swap":
            move.update(take=self.take, give=self.give)
        elif self.kind == "void":
            move.update(void=self.give, on=self.on)
        return {"move": move, **self.score.to_json(), "field_total": self.field_total}


def hints(hand: Sequence[str], field: Sequence[str], covered: Sequence[str] = ()) -> list[Hint]:
    """Every move a player holding `hand` could make on their turn, best first.

    A swap never changes a player's own pool (hand and field are pooled), only which cards
    are in the hand (the Full Hand bonus) and what the field offers everybody else. So the
    moves are ranked by the score they leave the player (with the tie-breaks), then by the
    weakest field they leave the others, then pass before a void before a swap.
    `field` is the uncovered field cards (they can be taken), `covered` the cards under
    voids (they score but cannot be taken)."""
    hand, field, covered = list(hand), list(field), list(covered)
    check_pool(hand, field + covered)
    takeable = [c for c in field if not is_void(c)]
    rest = covered + [c for c in field if is_void(c)]
    field_alone = field_total(field + covered)
    moves: list[tuple[str, str | None, str | None, list[str], int]] = [("pass", None, None, hand,
                                                                      field_alone)]
    for give in sorted(hand, key=card_order):
        others = [c for c in hand if c != give]
        for take in takeable:
            if is_void(give):
                moves.append(("void", give, take, others, field_alone))
            else:
                pool = [c for c in takeable if c != take] + [give] + rest
                moves.append(("swap", give, take, [*others, take], field_total(pool)))
    # every move leaves the same pool (a void scores nothing): one search scores them all
    scores = score_hands(hand, field + covered, [m[3] for m in moves])
    out = []
    for (kind, give, take, _, alone), result in zip(moves, scores, strict=True):
        if kind == "swap":
            out.append(Hint("swap", result, alone, take=take, give=give))
        elif kind == "void":
            out.append(Hint("void", result, alone, give=give, on=take))
        else:
            out.append(Hint("pass", result, alone))
    out.sort(key=Hint.sort_key)
    return out



def choose_action(state: PiktasState, rng: random.Random) -> Action:
    """Swap cycles: the move that leaves the best score (see `hints`). Betting: raise
    once with a strong pool, fold a weak one facing a raise, otherwise match or stay."""
    seat = state.current_player()
    hand = state.hands[seat]
    if hand is None:
        raise IllegalAction(f"{seat_words(seat)}'s hand is hidden: a bot plays only a seat whose "
                            f"hand it knows")
    if state.phase == "show":
        return Action.make("show", seat, hand=hand)
    if state.phase == "swap":
        return state.hints()[0].action(seat)
    total = score(hand, state.field_cards()).total
    owed = state.owed(seat)
    if total >= 20 and seat not in state.raisers:
        return Action.make("raise", seat, amount=min(state.game.options["buy_in"],
                                                     state.game.options["max_raise"]))
    if owed and total < 8:
        return Action.make("fold", seat)
    return Action.make("match" if owed else "stay", seat)
