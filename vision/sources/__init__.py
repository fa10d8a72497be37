"""Frame sources, chosen by a URI-like name.

    picamera2[:N]     the Raspberry Pi camera N (default 0), through picamera2
    cv:N              camera N through OpenCV's VideoCapture (USB cameras)
    file:PATH         a video, or an image (repeated `frames` times)
    dir:PATH          the images of a folder, in name order
    synthetic:GAME    the synthetic table playing a scripted scene of GAME (the default)

Options come as keywords or, for cameras and the synthetic table, after a `?`:
`synthetic:piktas?seed=3&frames=100&degrade=hard`, `cv:0?width=1280&height=720`.
Every source is an iterator of `Frame`s and a context manager; `close()` releases the
device.

Cameras (`picamera2`, `cv:N`) are straightened by their stored calibration when there is
one for the resolution in use (`companion camera calibrate`, `vision.calibration`); the
option `calibration=` overrides that for any source: `none` (raw frames), `auto` (the
stored one, the default for cameras) or the path of a calibration file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from vision.sources.base import (
    CameraUnavailable,
    Frame,
    FrameSource,
    LazyFrame,
    SourceError,
    SourceNotFound,
    UnknownSource,
    options,
)

DEFAULT_SOURCE = "synthetic:yokir"
SCHEMES = ("picamera2", "cv", "file", "dir", "synthetic")


def _query(rest: str) -> tuple[str, dict[str, str]]:
    body, _, query = rest.partition("?")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise UnknownSource(f"cannot read the options {query!r}: write them as name=value&name=value"
                            ) from None
    return body, dict(pairs)


def _camera_index(uri: str, text: str, default: int | None = None) -> int:
    if not text and default is not None:
        return default
    try:
        index = int(text)
    except ValueError:
        raise UnknownSource(f"camera index must be a whole number, got {text!r} in {uri!r}") from None
    if index < 0:
        raise UnknownSource(f"camera index must be 0 or more, got {index} in {uri!r}")
    return index


def open_source(uri: str, **kw: Any) -> FrameSource:
    """Open the frame source `uri` names (see the module's help for the names), its
    frames straightened by a camera calibration as the `calibration` option says."""
    uri, mode = _calibration_option(uri, kw)
    source = _open(uri, **kw)
    camera = source.name.partition(":")[0].lower() in ("picamera2", "cv")
    if mode == "none" or (mode == "auto" and not camera):
        return source
    from vision.sources.calibrated import CalibratedSource

    if mode == "auto":
        return CalibratedSource(source)
    from vision.calibration import load_calibration

    try:
        return CalibratedSource(source, load_calibration(Path(mode).expanduser()))
    except BaseException:
        source.close()
        raise


def _calibration_option(uri: Any, kw: dict[str, Any]) -> tuple[Any, str]:
    """Take `calibration=` out of the keywords or the name's query: "none", "auto" or a path."""
    mode = kw.pop("calibration", None)
    if isinstance(uri, str) and uri.partition(":")[0].strip().lower() in ("picamera2", "cv", "synthetic"):
        head, sep, query = uri.partition("?")
        if sep:
            pairs = [p for p in query.split("&") if p]
            keep = [p for p in pairs if p.partition("=")[0] != "calibration"]
            for p in pairs:
                if p.partition("=")[0] == "calibration" and mode is None:
                    mode = p.partition("=")[2]
            uri = head + ("?" + "&".join(keep) if keep else "")
    mode = "auto" if mode is None else str(mode).strip()
    if mode.lower() in ("none", "off", "no", "auto"):
        mode = "none" if mode.lower() != "auto" else "auto"
    elif not mode:
        raise UnknownSource("calibration= needs none, auto or the path of a calibration file")
    return uri, mode


def _open(uri: str, **kw: Any) -> FrameSource:
    if not isinstance(uri, str) or not uri.strip():
        raise UnknownSource(f"a frame source needs a name, got {uri!r}: use {', '.join(_forms())}")
    uri = uri.strip()
    scheme, sep, rest = uri.partition(":")
    scheme = scheme.lower()
    if scheme == "picamera2":
        from vision.sources.picamera import Picamera2Source

        body, query = _query(rest)
        camera = _camera_index(uri, body, default=0)
        opts = options(uri, {**query, **kw}, {"width": int, "height": int, "fps": float})
        return Picamera2Source(camera, **opts)
    if not sep:
        raise UnknownSource(f"unknown frame source {uri!r}: use {', '.join(_forms())}")
    if scheme == "cv":
        from vision.sources.opencv import CameraSource

        body, query = _query(rest)
        opts = options(uri, {**query, **kw}, {"width": int, "height": int, "fps": float})
        return CameraSource(_camera_index(uri, body), **opts)
    if scheme == "file":
        from vision.sources.opencv import open_file

        if not rest:
            raise UnknownSource(f"file: needs a path, as in file:game.mp4 (got {uri!r})")
        opts = options(uri, kw, {"frames": int, "fps": float})
        return open_file(Path(rest).expanduser(), **opts)
    if scheme == "dir":
        from vision.sources.opencv import DirectorySource

        if not rest:
            raise UnknownSource(f"dir: needs a folder, as in dir:frames/ (got {uri!r})")
        path = Path(rest).expanduser()
        if not path.is_dir():
            raise SourceNotFound(f"no such folder: {path}")
        return DirectorySource(path, **options(uri, kw, {"fps": float}))
    if scheme == "synthetic":
        from vision.sources.synthetic import SyntheticSource
        from vision.synthetic import Degradations

        body, query = _query(rest)
        if not body:
            raise UnknownSource(f"synthetic: needs a game, as in synthetic:yokir (got {uri!r})")
        known: dict[str, type] = {"seed": int, "frames": int, "fps": float, "degrade": object,
                                  "players": int, "width": int, "height": int}
        known.update(dict.fromkeys(Degradations.KNOBS, float))
        opts = options(uri, {**query, **kw}, known)
        if opts.get("seed", 0) < 0:  # seeds are 0 or more everywhere (a negative one fails late)
            raise UnknownSource(f"{uri} option seed must be 0 or more, got {opts['seed']}")
        return SyntheticSource(body, **opts)
    raise UnknownSource(f"unknown frame source {uri!r}: use {', '.join(_forms())}")


def lazy_frames(source: FrameSource) -> Iterator[LazyFrame]:
    """The source's frames as `LazyFrame`s, for `Recognizer.process(frame.main, frame.t,
    frame.index, lores=frame.lores)`: from a Pi camera with its lores stream, the lores
    copy at hand and the main stream copied only when asked for (`read_lazy`); from any
    other source, its frames as they are (no lores copy). Ends with the source."""
    lazy = getattr(source, "read_lazy", None)
    if lazy is not None and getattr(source, "lores_size", None) is not None:
        while not source.closed:
            yield lazy()
        return
    for frame in source:
        yield LazyFrame(None, frame.t, frame.index, lambda image=frame.image: image, frame.truth)


def _forms() -> list[str]:
    return ["picamera2", "cv:N", "file:PATH", "dir:PATH", "synthetic:GAME"]


__all__ = ["DEFAULT_SOURCE", "SCHEMES", "CameraUnavailable", "Frame", "FrameSource", "LazyFrame",
           "SourceError",
           "SourceNotFound", "UnknownSource", "lazy_frames", "open_source"]
