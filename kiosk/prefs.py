"""The kiosk's settings file: kept by the runtime (`runtime.prefs`), read here by the
screens."""

from __future__ import annotations

from runtime.prefs import (  # noqa: F401
    FILE_NAME,
    NO_CAMERA,
    SYNTHETIC,
    Point,
    Prefs,
    default_dir,
    load,
    save,
)
