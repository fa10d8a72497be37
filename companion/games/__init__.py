"""The game engines, one package per game, as the catalog lists them.

`companion.catalog` names each game's engine package (`companion.games.yokir`, with the
modules rules, state, words and bot); the `Game` subclass it exports with the game's
`name` is registered, and `get_game("yokir")` returns it. Pure: standard library
only (and companion.cards, companion.errors, companion.catalog, companion.words).
"""

from __future__ import annotations

import importlib
from typing import Any

from companion.catalog import GAMES, game_info
from companion.games.base import (
    CHANCE,
    TERMINAL,
    Action,
    Game,
    Option,
    State,
    describe_event,
    event_words,
    play_out,
)

__all__ = ["CHANCE", "TERMINAL", "Action", "Game", "Option", "State", "describe_event",
           "event_words", "games", "get_game", "make_game", "play_out"]

_REGISTRY: dict[str, type[Game]] = {}


def _discover() -> dict[str, type[Game]]:
    if not _REGISTRY:
        for info in GAMES:
            module = importlib.import_module(info.engine)
            found = [obj for obj in vars(module).values()
                     if isinstance(obj, type) and issubclass(obj, Game)
                     and (obj.__module__ + ".").startswith(module.__name__ + ".")
                     and vars(obj).get("name") == info.name]
            if len(found) != 1:
                raise ImportError(f"{info.engine} should define one Game subclass named "
                                  f"{info.name!r} (companion/catalog.py), found {len(found)}")
            _REGISTRY[info.name] = found[0]
    return _REGISTRY


def games() -> dict[str, type[Game]]:
    """Every registered game class by name, in name order."""
    return dict(sorted(_discover().items()))


def get_game(name: str) -> type[Game]:
    """The game class called `name`; UnknownGame names the games there are."""
    return _discover()[game_info(name).name]


def make_game(name: str, players: int | None = None, **options: Any) -> Game:
    """A game object for `name` with the given players and options (checked)."""
    return get_game(name)(players, **options)
