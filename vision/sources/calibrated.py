"""A frame source whose frames are straightened by a camera calibration
(`vision.calibration`): the lens's distortion undone, so that the mat's homography, which
assumes a pinhole camera, holds to the edge of a wide lens's view.

The calibration is either given (a file: it must match the frames' resolution, or reading
fails with CalibrationMismatch) or looked up by the camera's name and the frames' size in
the data directory; a camera without one gives its frames unchanged. The remap maps are
computed once, at the first frame; each frame then costs one `cv2.remap` (about 10 ms
for 1280x720 on one core here: benchmarks/bench_calibration.py). A frame's `truth`, when
the inner source has one, is passed on as it is, in the raw frame's pixels.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from vision.sources.base import FrameSource, LazyFrame

log = logging.getLogger(__name__)


def camera_id(source: FrameSource) -> str:
    """The name a source's calibrations are kept under: `camera_id` when the source has
    one (the Pi camera adds its sensor model), else its name (`cv:0`)."""
    return str(getattr(source, "camera_id", None) or source.name)


class CalibratedSource(FrameSource):
    """Wraps `inner`: each frame straightened by `calibration` if given, else by the stored
    calibration of `camera` (default: the inner source's camera id) at the frames' size, if
    there is one. Attributes the wrapper does not have are the inner source's."""

    def __init__(self, inner: FrameSource, calibration: Any = None, camera: str | None = None,
                 alpha: float = 0.0) -> None:
        super().__init__()
        self._inner = inner
        self.name = inner.name
        self.calibration_camera = camera or camera_id(inner)
        self._given = calibration
        self._alpha = alpha
        self._undistorter: Any = None
        self._size: tuple[int, int] | None = None
        self.note = ""  # why frames are not straightened, when a calibration was expected

    @property
    def calibration(self) -> Any:
        """The calibration in use (None before the first frame, or without one)."""
        return self._undistorter.calibration if self._undistorter is not None else None

    def _prepare(self, size: tuple[int, int]) -> None:
        from vision.calibration import Undistorter, find_calibration, stored_sizes

        self._size = size
        self._undistorter = None
        if self._given is not None:
            self._given.check_size(size)
            self._undistorter = Undistorter(self._given, self._alpha)
            return
        found = find_calibration(self.calibration_camera, size)
        if found is not None:
            self._undistorter = Undistorter(found, self._alpha)
            return
        others = stored_sizes(self.calibration_camera)
        if others:
            listed = ", ".join(f"{w}x{h}" for w, h in others)
            self.note = (f"{self.calibration_camera} is calibrated at {listed} only, not at "
                         f"{size[0]}x{size[1]}: frames are not straightened (run companion camera calibrate "
                         "at this resolution)")
            log.warning(self.note)

    def _read(self) -> tuple[np.ndarray, float, Any] | None:
        frame = self._inner.read()
        if frame is None:
            return None
        image = frame.image
        size = (int(image.shape[1]), int(image.shape[0]))
        if size != self._size:
            self._prepare(size)
        if self._undistorter is not None:
            image = self._undistorter.apply(image)
        return image, frame.t, frame.truth

    def read_lazy(self) -> LazyFrame:
        """The inner source's lazy frame (`Picamera2Source.read_lazy`). Without a
        calibration in use it is passed on as it is; with one, its main picture is
        straightened when fetched and the lores copy is left out (it is not straightened:
        the mat is then found in the straightened frame)."""
        inner = self._inner.read_lazy()
        size = tuple(getattr(self._inner, "size", ()) or inner.main().shape[1::-1])
        if size != self._size:
            self._prepare((int(size[0]), int(size[1])))
        self._index += 1
        if self._undistorter is None:
            return inner
        undistort = self._undistorter.apply
        done: list[np.ndarray] = []

        def main() -> np.ndarray:
            if not done:
                done.append(undistort(inner.main()))
            return done[0]

        return LazyFrame(None, inner.t, inner.index, main, inner.truth)

    def _release(self) -> None:
        self._inner.close()

    def __getattr__(self, name: str) -> Any:
        inner = self.__dict__.get("_inner")
        if inner is None or name.startswith("__"):
            raise AttributeError(name)
        return getattr(inner, name)


__all__ = ["CalibratedSource", "camera_id"]
