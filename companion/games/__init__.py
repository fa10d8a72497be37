"""The game engines, one module per game, found by discovery.

Every module in this package that defines a `Game` subclass with a `name` is
registered; `get_game("yokir")` returns its class. Pure: standard library only.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from typing import Any

from companion.errors import UnknownGame
from companion.games.base import CHANCE, TERMINAL, Action, Game, Option, State, play_out

__all__ = ["CHANCE", "TERMINAL", "Action", "Game", "Option", "State", "games", "get_game",
           "make_game", "play_out"]

_REGISTRY: dict[str, type[Game]] = {}


def _discover() -> dict[str, type[Game]]:
    if not _REGISTRY:
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            if info.name.startswith("_") or info.name == "base":
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            for obj in vars(module).values():
                if (isinstance(obj, type) and issubclass(obj, Game) and obj is not Game
                        and obj.__module__ == module.__name__ and "name" in vars(obj)):
                    _REGISTRY[obj.name] = obj
    return _REGISTRY


def games() -> dict[str, type[Game]]:
    """Every registered game class by name, in name order."""
    return dict(sorted(_discover().items()))


def get_game(name: str) -> type[Game]:
    """The game class called `name`; UnknownGame names the games there are."""
    registry = _discover()
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    if key not in registry:
        near = difflib.get_close_matches(key, list(registry), n=1)
        hint = f"; did you mean {near[0]}?" if near else ""
        raise UnknownGame(f"unknown game {name!r}: the games are "
                          f"{', '.join(sorted(registry))}{hint}")
    return registry[key]


def make_game(name: str, players: int | None = None, **options: Any) -> Game:
    """A game object for `name` with the given players and options (checked)."""
    return get_game(name)(players, **options)
