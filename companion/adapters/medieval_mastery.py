"""Medieval Mastery at the table: what the camera's observations mean (docs/demo.md).

The camera reads **each card played**: it goes into the shared trick area in turn, so
the seat is the one whose turn it is (play goes clockwise from the leader; the engine
refuses a card that cannot be that seat's, naming the rule). A card nudged within the
trick, a trick gathered, cards laid out in a tableau and cards going under the stock are
no moves: the trick winner's tableau is confirmed on the touchscreen (the engine judges
the whole arrangement at once), and the deal and the refills are face down.
"""

from __future__ import annotations

from companion.adapters.common import arrived
from companion.games import Action, State
from companion.games.medieval_mastery import MedievalMasteryState
from companion.observation import Observation
from companion.table import register_adapter

GAME = "medieval-mastery"


def adapt(state: State, obs: Observation) -> Action | None:
    """The Medieval Mastery action `obs` stands for in `state`, or None when it is no move."""
    if not isinstance(state, MedievalMasteryState):
        raise TypeError(f"the Medieval Mastery adapter needs its state, got {type(state).__name__}")
    if not arrived(obs) or obs.zone_kind != "trick":
        return None
    if obs.kind == "moved" and obs.from_zone == obs.zone:
        return None
    if obs.code in state.trick_cards():
        return None  # already in this trick: nudged, or seen again after a hand passed
    turn = state.current_player()
    return Action.make("play", turn if turn >= 0 else None, card=obs.code)


def register() -> None:
    """Make `adapt` the game's table adapter (again, if the registry was reset)."""
    register_adapter(GAME, adapt)


register()
