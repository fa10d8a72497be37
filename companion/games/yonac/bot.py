"""The Yonac bot: collect a share of the Pile sized to the risk (more when a Potent Ace of
Hearts covers it, one card when leading in Sudden Death), add one card for the Ace of
Diamonds unless protected, play the Ace of Clubs when the Pile is small enough for a real
chance at the Ace of Spades, and swap a Joker for the Ace that helps most."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from companion.games.base import Action
from companion.games.yonac.rules import ADD, SWAP

if TYPE_CHECKING:  # the state imports this module
    from companion.games.yonac.state import YonacState


def choose_action(state: YonacState, rng: random.Random) -> Action:
    """Collect a share of the Pile sized to the risk (more when a Potent Ace of Hearts
    covers it, one card when leading in Sudden Death), add one card for the Ace of
    Diamonds unless protected, play the Ace of Clubs when the Pile is small enough for a
    real chance at the Ace of Spades, and swap a Joker for the Ace that helps most."""
    seat = state.current_player()
    if state.step == SWAP:
        return min(state.legal_actions(), key=lambda a: _swap_preference(state, a))
    if state.step == ADD:
        count = bot_count(state, seat, rng) if "AH" in state.aside[seat] else 1
        return Action.make("add", seat, count=count)
    if "AC" in state.aside[seat] and bot_plays_clubs(state, seat):
        return Action.make("play_clubs", seat)
    return Action.make("collect", seat, count=bot_count(state, seat, rng))


def bot_count(state: YonacState, seat: int, rng: random.Random) -> int:
    """How many cards the bot collects: a share of the Pile sized to the risk of the Ace of
    Spades (k cards out of P hold it with chance k/P), bolder with a Potent Ace of Hearts; in
    Sudden Death one card when leading, enough to catch up when behind."""
    pile = len(state.pile)
    protected = "AH" in state.aside[seat]
    if state.sudden_death:
        lead = state.card_count(seat) - max(state.card_count(s) for s in state.alive if s != seat)
        if lead > 0 and not protected:
            return 1
        target = max(1 - lead, round(0.35 * pile)) if protected else min(1 - lead, max(1, pile // 4))
    else:
        target = round((0.35 if protected else 0.15) * pile)
    target += rng.choice((-1, 0, 0, 1))
    return max(1, min(pile, target))


def bot_plays_clubs(state: YonacState, seat: int) -> bool:
    """Play the Ace of Clubs when the Pile is small (at least a one-in-six chance of the Ace of
    Spades), or, in Sudden Death while not leading, when it is a one-in-twelve chance."""
    pile = len(state.pile)
    if pile <= 6:
        return True
    if state.sudden_death:
        lead = state.card_count(seat) - max(state.card_count(s) for s in state.alive if s != seat)
        return lead <= 0 and pile <= 12
    return False


def _swap_preference(state: YonacState, action: Action) -> tuple[int, int, int, str]:
    """In Sudden Death, the Ace of the player with the most cards (weaken the leader: their
    loss would end the game); otherwise the Ace of Clubs when the Pile is small (a real chance
    to win with it), else the Ace of Hearts. Then by seat and Joker, to be deterministic."""
    target, ace = action["target"], action["ace"]
    leader_first = -state.card_count(target) if state.sudden_death else 0
    wanted = "AC" if len(state.pile) <= 8 else "AH"
    return (leader_first, 0 if ace == wanted else 1, target, action["joker"])


