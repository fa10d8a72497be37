"""The table adapters of the card games, one module per game (docs/demo.md).

Each module registers its adapter with `companion.table.register_adapter` when it is
imported; importing this package (or calling `register_all`) registers every adapter
whose engine is installed. An adapter turns a camera observation plus the current state
into the engine's public action, or None when the change is no move (a trick gathered).

What the camera cannot see is not the adapters' business: bids, a face-down discard, a
Yonac count, a pass or a Piktas swap come from the touchscreen or the panel.
"""

from __future__ import annotations

import importlib
import logging

from companion.catalog import GAMES
from companion.errors import UnknownGame

log = logging.getLogger(__name__)

# Adapter modules by game name, as the catalog names them.
MODULES: dict[str, str] = {g.name: g.adapter for g in GAMES if g.adapter}


def register_all() -> list[str]:
    """Import every adapter module (each registers itself); return the games now covered.
    A game whose engine is not installed is skipped, not an error."""
    covered = []
    for game, module in MODULES.items():
        try:
            importlib.import_module(module).register()
        except UnknownGame:
            log.info("no %s engine: its table adapter is not registered", game)
            continue
        except ModuleNotFoundError as exc:
            if not (exc.name or "").startswith(("companion.games", module)):
                raise
            log.info("no %s engine: its table adapter is not registered", game)
            continue
        covered.append(game)
    return covered


register_all()
