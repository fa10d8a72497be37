"""From what the camera saw to what the rules hear: one table adapter per game.

Vision reports stable changes on the mat (`companion.observation.Observation`: a card
placed in seat 2's play area, a card moved to the trick pile). Only the game knows what
such a change means, so each game registers an adapter, `fn(state, observation)`, that
returns the `Action` it stands for, or None when the change is no move at all (the
trick being gathered up). An adapter reads the state and never changes it; it raises
`IllegalAction` (or another `CompanionError`) when the observation cannot be a move, and
the session logs that as a rejected event with the reason.

A game with no adapter is not an error of the camera: `observation_to_action` raises
`NoAdapter` ("no table adapter for GAME") and the session logs the observation as
rejected with that reason, so nothing the camera saw is dropped.
"""

from __future__ import annotations

from collections.abc import Callable

from companion.errors import CompanionError
from companion.games import Action, State, get_game
from companion.observation import Observation

Adapter = Callable[[State, Observation], Action | None]

_ADAPTERS: dict[str, Adapter] = {}


class NoAdapter(CompanionError, LookupError):
    """No table adapter is registered for the game."""


def register_adapter(game_name: str, fn: Adapter, *, replace: bool = False) -> None:
    """Make `fn` the adapter of the registered game `game_name` (UnknownGame otherwise).
    A second adapter for the same game is refused unless `replace` is true."""
    name = get_game(game_name).name
    if not callable(fn):
        raise TypeError(f"a table adapter must be callable, got {fn!r}")
    if name in _ADAPTERS and not replace and _ADAPTERS[name] is not fn:
        raise ValueError(f"{name} already has a table adapter ({_ADAPTERS[name]!r}); "
                         f"pass replace=True to swap it")
    _ADAPTERS[name] = fn


def unregister_adapter(game_name: str) -> None:
    """Forget the adapter of `game_name`, if any."""
    _ADAPTERS.pop(get_game(game_name).name, None)


def adapter_for(game_name: str) -> Adapter | None:
    """The adapter registered for `game_name`, None if there is none."""
    return _ADAPTERS.get(get_game(game_name).name)


def adapters() -> dict[str, Adapter]:
    """Every registered adapter by game name."""
    return dict(sorted(_ADAPTERS.items()))


def observation_to_action(state: State, observation: Observation) -> Action | None:
    """The action `observation` stands for in `state`, None when it is no move.
    NoAdapter when the game has no adapter; the adapter's own errors pass through."""
    name = state.game.name
    fn = _ADAPTERS.get(name)
    if fn is None:
        raise NoAdapter(f"no table adapter for {name}")
    action = fn(state, observation)
    if action is not None and not isinstance(action, Action):
        raise TypeError(f"the {name} table adapter returned {action!r}, not an Action or None")
    return action
