"""What the adapters share: reading an observation, and the cards of a move that the
camera reports one by one.

The camera reports one card at a time, but some moves are several cards at once (a
Yonac Set shown face up, a Piktas hand at the showdown). `CardBuffer` keeps the cards seen so
far for one state object at one point of its history (`state_key`), so an adapter can
stay a plain function of (state, observation): what was seen for a state that has since
moved on is forgotten.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

from companion.games import State
from companion.observation import Observation


def arrived(obs: Observation) -> bool:
    """The card now lies in `obs.zone`: it was placed there, or moved there from elsewhere."""
    return obs.kind in ("placed", "moved")


def state_key(state: State) -> tuple[int, str, int, int]:
    """A key for one state object at one point of its history: a session applies moves to
    its own state object, so two tables whose games have gone the same way do not share
    cards, and a move applied (or a rebuilt state, after an undo) starts afresh."""
    return id(state), state.game.name, len(state.history), hash(tuple(state.history))


class CardBuffer:
    """What the camera has shown of a move still in the making, per state: card codes, or
    any small notes an adapter keeps (a small LRU of states, so several sessions of one
    game in one process do not mix their cards)."""

    def __init__(self, states: int = 16) -> None:
        self._states = states
        self._cards: OrderedDict[tuple[int, str, int, int], list[Hashable]] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, state: State, code: Hashable) -> list[Hashable]:
        """Note `code` for `state` (once); return what is noted for it so far, in order."""
        key = state_key(state)
        with self._lock:
            cards = self._cards.pop(key, [])
            if code not in cards:
                cards.append(code)
            self._cards[key] = cards
            while len(self._cards) > self._states:
                self._cards.popitem(last=False)
            return list(cards)

    def discard(self, state: State, code: Hashable) -> None:
        """Forget `code` for `state` (the card left the table before the move was complete)."""
        with self._lock:
            cards = self._cards.get(state_key(state))
            if cards and code in cards:
                cards.remove(code)

    def seen(self, state: State) -> list[Hashable]:
        """The cards noted for `state` so far."""
        with self._lock:
            return list(self._cards.get(state_key(state), ()))

    def clear(self, state: State) -> None:
        """Forget every card noted for `state` (its move is complete)."""
        with self._lock:
            self._cards.pop(state_key(state), None)
