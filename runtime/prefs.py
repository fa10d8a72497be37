"""The table's own settings (the kiosk's file): the camera source, the table corners tapped for calibration
without a mat, and the panel's pin map. One small JSON file, written atomically.

Where: `$COMPANION_DATA_DIR/kiosk.json` (the systemd unit sets it to
/var/lib/table-companion), else next to the database, else in the user data directory.
A missing or unreadable file gives the defaults (and a broken one is kept aside as
kiosk.json.bad-TIME, never replacing an earlier one), so a bad edit can never stop the
kiosk from starting.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
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
        corners = obj.get("corners") or []
        if not isinstance(corners, list) or not all(
                isinstance(p, list) and len(p) == 2
                and all(isinstance(v, int | float) and not isinstance(v, bool) for v in p)
                for p in corners):
            raise ValueError(f"corners must be four [x, y] pairs of numbers, got {corners!r}"[:200])
        return prefs.with_corners([(p[0], p[1]) for p in corners])


def default_dir(db_path: str | None = None) -> Path:
    """Where kiosk.json lives (see the module's docstring)."""
    if os.environ.get(DATA_DIR_ENV, "").strip():
        return data_dir()
    if db_path and db_path != ":memory:":
        return Path(db_path).expanduser().resolve().parent
    return data_dir()


def load(path: Path, now: Callable[[], datetime] | None = None) -> Prefs:
    """The settings in `path`, or the defaults when it is missing or broken. A broken file
    is kept beside it as kiosk.json.bad-TIME (`now` gives the time; UTC by default)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Prefs()
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("The kiosk could not read its settings file %s (%s), so it starts with "
                    "the default settings.", path, getattr(exc, "strerror", None) or exc)
        return Prefs()
    try:
        return Prefs.from_json(json.loads(text))
    except (ValueError, TypeError, RecursionError) as exc:
        kept = _set_aside(path, (now or _utc_now)())
        where = f"it was kept as {kept.name} beside it" if kept else "it could not be moved aside"
        log.warning("The kiosk settings file %s could not be used (%s), so the kiosk starts with "
                    "the default settings; %s.", path, _why(exc), where)
        return Prefs()


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _why(exc: BaseException) -> str:
    """What is wrong with a settings file, in words for a person."""
    if isinstance(exc, json.JSONDecodeError):
        return f"it is not valid JSON: {exc.msg.lower()} on line {exc.lineno}, column {exc.colno}"
    if isinstance(exc, RecursionError):
        return "it is not valid JSON: it nests too deep"
    return f"a setting is wrong: {exc}"


def _set_aside(path: Path, when: datetime) -> Path | None:
    """Rename a broken file to NAME.bad-TIME (TIME in UTC, to the second), next to it;
    an earlier backup is never replaced. None if it cannot be moved."""
    stamp = when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    for n in range(1, 100):
        target = path.with_name(f"{path.name}.bad-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            os.link(path, target)  # fails if the name is taken: nothing is ever replaced
        except FileExistsError:
            continue
        except OSError:
            break
        with contextlib.suppress(OSError):
            path.unlink()
        return target
    return None


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
