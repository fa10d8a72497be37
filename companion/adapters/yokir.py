"""Yokir at the table: what the camera's observations mean (docs/demo.md, "Yokir").

The camera sees two things in Yokir:

- **the upcard**, turned face up at the deal in front of the dealer (the dealer's play
  area): the deal, with the dealer and the upcard, the hands unseen. An upcard turned on
  the mat's upcard spot (a zone of no seat) is dealt by the seat whose turn it is to
  deal; the first hand must show who deals, so there it is refused with the reason.
- **each card played**, put in the player's play area: a play by that seat.

A card leaving the table (the upcard taken up or turned down, a trick gathered) and a
card nudged within the current trick are no moves. Bids and the caller's face-down
discard are not cards the camera can read: they come from the touchscreen or the panel.
Every action is judged by the engine, so a card played out of turn or seen twice is
refused there, with the rule.
"""

from __future__ import annotations

from companion.adapters.common import arrived
from companion.errors import IllegalAction
from companion.games import Action, State
from companion.games.yokir import YokirState, card_name
from companion.observation import Observation
from companion.table import register_adapter

GAME = "yokir"


def adapt(state: State, obs: Observation) -> Action | None:
    """The Yokir action `obs` stands for in `state`, or None when it is no move."""
    if not isinstance(state, YokirState):
        raise TypeError(f"the Yokir adapter needs a Yokir state, got {type(state).__name__}")
    if not arrived(obs):
        return None  # the upcard taken up or turned down, a trick gathered
    if state.phase == "deal":
        return _upcard(state, obs)
    if obs.zone_kind != "play" or obs.seat is None:
        return None  # only a play area makes a move once the hand is dealt
    if obs.kind == "moved" and (obs.from_seat == obs.seat or obs.code in state.played
                                or any(card == obs.code for _, card in state.trick)):
        return None  # a card nudged in its area, or an old trick card slid across
    return Action.make("play", obs.seat, card=obs.code)


def _upcard(state: YokirState, obs: Observation) -> Action | None:
    if obs.zone_kind == "play" and obs.seat is not None:
        dealer = obs.seat
    elif obs.seat is None and obs.zone_kind in ("pile", "field"):  # the upcard spot
        dealer = state.next_dealer()
        if dealer is None:
            raise IllegalAction(f"the {card_name(obs.code) if _known(obs.code) else obs.code!r} was "
                                f"turned up on the upcard spot, but nobody has dealt yet: turn the "
                                f"first upcard in front of the dealer so the Companion knows who deals")
    else:
        return None
    return Action.make("deal", None, dealer=dealer, hands=None, upcard=obs.code)


def _known(code: str) -> bool:
    try:
        card_name(code)
    except KeyError:
        return False
    return True


def register() -> None:
    """Make `adapt` the game's table adapter (again, if the registry was reset)."""
    register_adapter(GAME, adapt)


register()
