"""The kiosk's own settings: the camera source, the table corners tapped for calibration
without a mat, and the panel's pin map. One small JSON file, written atomically.

Where: `$COMPANION_DATA_DIR/kiosk.json` (the systemd unit sets it to
/var/lib/table-companion), else next to the database, else in the user data directory.
A missing or unreadable file gives the defaults (and a broken one is kept aside as
kiosk.json.bad), so a bad edit can never stop the kiosk from starting.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from companion.paths import ENV_VAR as DATA_DIR_ENV
from companion.paths import data_dir

log = logging.getLogger(__name__)

FILE_NAME = "kiosk.json"
#: The camera source that means "the synthetic table of the game being played".
SYNTHETIC = "synthetic"
#: The source that means "no camera at all": every play is entered by touch.
NO_CAMERA = "none"

Point = tuple[float, float]


@dataclass(frozen=True)
class Prefs:
    """camera: a vision source URI ("synthetic", "picamera2", "cv:0", "file:game.mp4"), or "none".
    corners: the table's corners tapped on the camera image, as fractions of the image
    (x right, y down), clockwise from top-left; () when the mat's markers are used.
    pins: a TOML pin map for a real panel (None: a keyboard panel only)."""

    camera: str = SYNTHETIC
    corners: tuple[Point, ...] = ()
    pins: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def with_corners(self, corners: list[Point] | tuple[Point, ...]) -> Prefs:
        points = tuple((float(x), float(y)) for x, y in corners)
        if points and len(points) != 4:
            raise ValueError(f"a table has four corners, got {len(points)}")
        if any(not (0.0 <= v <= 1.0) for p in points for v in p):
            raise ValueError(f"corners are fractions of the image (0 to 1), got {points}")
        return replace(self, corners=points)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["corners"] = [list(p) for p in self.corners]
        extra = out.pop("extra")
        return {**extra, **out}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Prefs:
        if not isinstance(obj, dict):
            raise ValueError(f"settings must be a JSON object, got {type(obj).__name__}")
        known = {"camera", "corners", "pins"}
        camera = obj.get("camera", SYNTHETIC)
        pins = obj.get("pins")
        if not isinstance(camera, str) or not camera.strip():
            raise ValueError(f"camera must be a source name, got {camera!r}")
        if pins is not None and not isinstance(pins, str):
            raise ValueError(f"pins must be a file name, got {pins!r}")
        prefs = cls(camera=camera.strip(), pins=pins,
                    extra={k: v for k, v in obj.items() if k not in known})
        return prefs.with_corners([tuple(p) for p in obj.get("corners") or ()])


def default_dir(db_path: str | None = None) -> Path:
    """Where kiosk.json lives (see the module's docstring)."""
    if os.environ.get(DATA_DIR_ENV, "").strip():
        return data_dir()
    if db_path and db_path != ":memory:":
        return Path(db_path).expanduser().resolve().parent
    return data_dir()


def load(path: Path) -> Prefs:
    """The settings in `path`, or the defaults when it is missing or broken."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Prefs()
    except OSError as exc:
        log.warning("cannot read %s (%s): using the default settings", path, exc)
        return Prefs()
    try:
        return Prefs.from_json(json.loads(text))
    except (ValueError, TypeError) as exc:
        log.warning("%s is not valid (%s): kept as %s.bad, using the default settings", path, exc,
                    path.name)
        with contextlib.suppress(OSError):
            os.replace(path, path.with_name(path.name + ".bad"))
        return Prefs()


def save(prefs: Prefs, path: Path) -> None:
    """Write `prefs` to `path` atomically (a power cut leaves the old file or the new)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(prefs.to_json(), out, indent=2)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
