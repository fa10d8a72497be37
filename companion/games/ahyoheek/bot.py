"""The Ahyoheek bot: beat what the others picked most often so far, with a one-in-three
surprise."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from companion.games.ahyoheek.rules import BEATS, PICKS
from companion.games.base import Action

if TYPE_CHECKING:  # the state imports this module
    from companion.games.ahyoheek.state import AhyoheekState


def choose_action(state: AhyoheekState, rng: random.Random) -> Action:
    """Beat what the others picked most often so far, with a one-in-three surprise."""
    seat = state.current_player()
    seen: dict[str, int] = dict.fromkeys(PICKS, 0)
    for rnd in state.rounds:
        for s, p in enumerate(rnd):
            if s != seat and p is not None:
                seen[p] += 1
    if rng.random() < 1 / 3 or not any(seen.values()):
        pick = rng.choice(PICKS)
    else:
        likely = max(PICKS, key=lambda p: (seen[p], rng.random()))
        pick = next(p for p, beaten in BEATS[state.game.options["cycle"]].items() if beaten == likely)
    return Action.make("pick", seat, pick=pick)
