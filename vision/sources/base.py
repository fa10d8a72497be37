"""What every frame source is: an iterator of timestamped frames that holds a device
open until it is closed (or its `with` block ends), and the errors sources raise."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np

from companion.errors import BadOption, CompanionError

if TYPE_CHECKING:
    from vision.synthetic import SceneTruth


class SourceError(CompanionError, OSError):
    """A frame source that cannot be opened or read."""


class UnknownSource(CompanionError, ValueError):
    """A source name with a scheme we do not know, or a malformed one."""


class SourceNotFound(SourceError, FileNotFoundError):
    """A file or folder source whose path does not exist."""


class CameraUnavailable(SourceError):
    """A camera that is missing, busy, or whose library is not installed."""


@dataclass(frozen=True, eq=False)
class Frame:
    """One picture: BGR uint8, its time in seconds since the source opened (or in the
    video), its index from 0, and the ground truth when the source knows it (synthetic).
    Frames compare by identity (their images are arrays)."""

    image: np.ndarray
    t: float
    index: int
    truth: SceneTruth | None = None


@dataclass(frozen=True, eq=False)
class LazyFrame:
    """A frame whose full picture (BGR) is fetched only if `main()` is called, before the
    next frame is read; `lores`, when the source has one, is the same frame smaller and
    grey, at hand (the Pi camera's lores stream, its Y plane). Made for
    `Recognizer.process(frame.main, frame.t, frame.index, lores=frame.lores)`: the mat
    and the cards are then found in the lores copy, and the main stream is copied only
    when a card needs identifying (`vision.sources.lazy_frames` gives these for any source)."""

    lores: np.ndarray | None
    t: float
    index: int
    main: Callable[[], np.ndarray]
    truth: SceneTruth | None = None


class FrameSource:
    """Base of the sources: subclasses implement `_read` (the next image and its time, or
    None at the end) and `_release`."""

    name = "source"

    def __init__(self) -> None:
        self._index = 0
        self._closed = False

    def _read(self) -> tuple[np.ndarray, float, SceneTruth | None] | None:
        raise NotImplementedError

    def _release(self) -> None:
        """Free the device or file; called once."""

    def read(self) -> Frame | None:
        """The next frame, or None when the source has no more."""
        if self._closed:
            raise SourceError(f"{self.name} is closed")
        got = self._read()
        if got is None:
            return None
        image, t, truth = got
        frame = Frame(image, t, self._index, truth)
        self._index += 1
        return frame

    def close(self) -> None:
        """Release the camera or file. Closing twice is harmless."""
        if not self._closed:
            self._closed = True
            self._release()

    @property
    def closed(self) -> bool:
        return self._closed

    def __iter__(self) -> Iterator[Frame]:
        return self

    def __next__(self) -> Frame:
        frame = self.read()
        if frame is None:
            raise StopIteration
        return frame

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # never raise from a finaliser
            self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}{' closed' if self._closed else ''}>"


def options(name: str, given: dict[str, Any], known: dict[str, type]) -> dict[str, Any]:
    """Check and convert a source's options (from the URI's query or keywords): unknown
    names and values of the wrong type are one-line errors naming them."""
    result: dict[str, Any] = {}
    for key, value in given.items():
        if key not in known:
            allowed = ", ".join(known) if known else "none"
            raise BadOption(f"{name} has no option {key!r}; its options: {allowed}")
        kind = known[key]
        if kind is object or (isinstance(value, kind) and not (kind is int and isinstance(value, bool))):
            result[key] = value
            continue
        try:
            if kind is bool:
                if str(value).lower() not in ("1", "0", "true", "false", "yes", "no"):
                    raise ValueError
                result[key] = str(value).lower() in ("1", "true", "yes")
            else:
                result[key] = kind(value)
        except (TypeError, ValueError):
            raise BadOption(f"{name} option {key} must be {_kind_name(kind)}, got {value!r}") from None
    return result


def _kind_name(kind: type) -> str:
    names = {int: "a whole number", float: "a number", bool: "true or false", str: "text"}
    return names.get(kind, kind.__name__)
