"""Yonac at the table: what the camera's observations mean (docs/demo.md, "Yonac").

The Pile is face down; what the camera reads is the **Set**: the cards a player picks up
are shown face up in front of them (their Set area, a "play" zone), a few at a time when
the area is full. The engine takes the whole Set at once (one `draw` with exactly as many
cards as were collected), while the camera reports one card at a time, so the adapter
keeps the cards shown so far (`CardBuffer`, keyed by the state) and returns the `draw`
when the last one has been shown, its cards in deck order as the log writes them. A card
counts once it has been seen face up in the Set area: gathering the cards shown to make
room for the next ones takes nothing back.

The count a player collects or adds, the Ace of Clubs played and the Joker's swap (the
player chooses whose Ace) are announced on the touchscreen. Cards leaving the Set for a
Stash, being set aside or going back into the Pile are consequences the engine already
knows: no moves. A card shown when none is due, or in front of the wrong player, is
refused with the engine's or the adapter's reason.
"""

from __future__ import annotations

from companion.adapters.common import CardBuffer, arrived
from companion.errors import IllegalAction
from companion.games import Action, State
from companion.games.yonac import DECK, DRAW, YonacState, card_name
from companion.observation import Observation
from companion.table import register_adapter
from companion.words import in_deck_order_lenient

GAME = "yonac"

shown = CardBuffer()


def adapt(state: State, obs: Observation) -> Action | None:
    """The Yonac action `obs` stands for in `state`, or None while a Set is incomplete or
    when the change is no move."""
    if not isinstance(state, YonacState):
        raise TypeError(f"the Yonac adapter needs a Yonac state, got {type(state).__name__}")
    if not arrived(obs) or obs.zone_kind != "play" or obs.seat is None:
        return None
    if obs.kind == "moved" and (obs.from_seat is not None or obs.code in state.set):
        return None  # an Ace set aside or swapped, a card nudged: the engine knows already
    if state.step != DRAW:
        return Action.make("draw", None, cards=[obs.code])  # the engine says why not now
    if obs.seat != state.seat:
        raise IllegalAction(f"turn {state.turn_number()}: {_name(obs.code)} was shown in "
                            f"front of seat {obs.seat}, but seat {state.seat} is showing the "
                            f"cards picked up")
    cards = [str(c) for c in shown.add(state, obs.code)]
    if len(cards) < state.need:
        return None
    shown.clear(state)
    return Action.make("draw", None, cards=deck_order(cards))


def deck_order(cards: list[str]) -> list[str]:
    """The cards as the deck lists them (how the log writes a draw); a code that is no
    card of the deck goes last, for the engine to refuse by name."""
    return in_deck_order_lenient(cards, DECK.name)


def _name(code: str) -> str:
    try:
        return f"{card_name(code)} ({code})"
    except KeyError:
        return repr(code)


def register() -> None:
    """Make `adapt` the game's table adapter (again, if the registry was reset)."""
    register_adapter(GAME, adapt)


register()
