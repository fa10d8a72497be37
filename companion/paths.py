"""Where the companion keeps its files: one data directory per user (or per Pi service).

`$COMPANION_DATA_DIR` overrides it (the systemd unit points it at /var/lib); the
database path has its own override, `$COMPANION_DB` (companion.storage).
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "COMPANION_DATA_DIR"
APP_NAME = "table-companion"


def data_dir() -> Path:
    """`$COMPANION_DATA_DIR` if set, else the user's data directory for the companion."""
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def learned_decks_dir() -> Path:
    """Where `companion deck learn` keeps the decks it was taught (vision.learn)."""
    return data_dir() / "decks"
