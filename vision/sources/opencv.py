"""Sources read through OpenCV: a USB camera (`cv:N`), a video or an image file
(`file:PATH`) and a folder of images (`dir:PATH`)."""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from companion.errors import BadOption
from vision import imageio
from vision.sources.base import CameraUnavailable, FrameSource, SourceError, SourceNotFound

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm")


class CameraSource(FrameSource):
    """A camera through cv2.VideoCapture; times are seconds since it opened."""

    def __init__(self, index: int, width: int | None = None, height: int | None = None,
                 fps: float | None = None) -> None:
        super().__init__()
        self.name = f"cv:{index}"
        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            self._cap.release()
            raise CameraUnavailable(f"could not open camera {index} ({self.name}): is it plugged in "
                                    "and not used by another program?")
        for prop, value in ((cv2.CAP_PROP_FRAME_WIDTH, width), (cv2.CAP_PROP_FRAME_HEIGHT, height),
                            (cv2.CAP_PROP_FPS, fps)):
            if value:
                self._cap.set(prop, value)
        self._start = time.monotonic()

    def _read(self) -> tuple[np.ndarray, float, None] | None:
        ok, image = self._cap.read()
        if not ok:
            return None
        return image, time.monotonic() - self._start, None

    def _release(self) -> None:
        self._cap.release()


class VideoFileSource(FrameSource):
    """A video file; times come from the video's own clock."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.name = f"file:{path}"
        self._cap = cv2.VideoCapture(str(path))
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(f"cannot read {path} as a video or an image")
        self._fps = self._cap.get(cv2.CAP_PROP_FPS) or 30.0

    def _read(self) -> tuple[np.ndarray, float, None] | None:
        ok, image = self._cap.read()
        if not ok:
            return None
        ms = self._cap.get(cv2.CAP_PROP_POS_MSEC)
        t = ms / 1000.0 if ms > 0 or self._index == 0 else self._index / self._fps
        return image, t, None

    def _release(self) -> None:
        self._cap.release()


def read_image(path: Path) -> np.ndarray:
    """An image file as BGR uint8 through `vision.imageio` (size checked from the header,
    a truncated file refused); a one-line SourceError naming the file if it is bad."""
    try:
        return imageio.read_image(path)
    except imageio.BadImageFile as exc:
        why = str(exc).removeprefix(f"{path}: ")
        raise SourceError(f"cannot read {path} as an image: {why}") from None


class ImageFileSource(FrameSource):
    """One image, given `frames` times (default once), `fps` apart."""

    def __init__(self, path: Path, frames: int = 1, fps: float = 30.0) -> None:
        super().__init__()
        self.name = f"file:{path}"
        if frames < 1 or fps <= 0:
            raise BadOption(f"{self.name}: frames must be 1 or more and fps above 0, got frames={frames}, "
                            f"fps={fps}")
        self._image = read_image(path)
        self._frames = frames
        self._fps = fps

    def _read(self) -> tuple[np.ndarray, float, None] | None:
        if self._index >= self._frames:
            return None
        return self._image.copy(), self._index / self._fps, None


class DirectorySource(FrameSource):
    """The images of a folder in name order, `fps` apart (default 30 per second)."""

    def __init__(self, path: Path, fps: float = 30.0) -> None:
        super().__init__()
        self.name = f"dir:{path}"
        if fps <= 0:
            raise BadOption(f"{self.name}: fps must be above 0, got {fps}")
        self._files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
        if not self._files:
            raise SourceNotFound(f"no images ({', '.join(IMAGE_SUFFIXES)}) in the folder {path}")
        self._fps = fps

    @property
    def files(self) -> list[Path]:
        return list(self._files)

    def _read(self) -> tuple[np.ndarray, float, None] | None:
        if self._index >= len(self._files):
            return None
        return read_image(self._files[self._index]), self._index / self._fps, None


def open_file(path: Path, frames: int = 1, fps: float = 30.0) -> FrameSource:
    """A video or an image file, told apart by the name's suffix."""
    if not path.exists():
        raise SourceNotFound(f"no such file: {path}")
    if path.is_dir():
        raise SourceError(f"{path} is a folder: use dir:{path}")
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFileSource(path, frames, fps)
    return VideoFileSource(path)
