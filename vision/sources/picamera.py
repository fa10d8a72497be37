"""The Raspberry Pi camera through picamera2, imported only when asked for: it exists on
Raspberry Pi OS as a system package and nowhere else."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from vision.sources.base import CameraUnavailable, FrameSource, LazyFrame, SourceError

NOT_INSTALLED = ("picamera2 is not installed: on Raspberry Pi OS install it with "
                 "`sudo apt install python3-picamera2` and create the venv with --system-site-packages")


def _import_picamera2() -> Any:
    try:
        return importlib.import_module("picamera2")
    except ImportError:
        raise CameraUnavailable(NOT_INSTALLED) from None


def lores_size(width: int, height: int) -> tuple[int, int]:
    """The lores stream's size: half the main stream's, even (YUV420 halves the colour
    planes again), at least 64 x 48."""
    return max(64, (width // 2) & ~1), max(48, (height // 2) & ~1)


class Picamera2Source(FrameSource):
    """Frames from a Pi camera, BGR (picamera2's "RGB888" is B, G, R in memory, as OpenCV
    wants), timed by the sensor's own clock from the first frame.

    With `lores` (the default) the camera also gives a half-size YUV420 stream (the only
    lores format a Pi 4 has), read by `read_lazy`: its Y plane is the frame's grey copy
    for the still check, and the main stream is copied only when asked for."""

    def __init__(self, camera: int = 0, width: int = 1280, height: int = 720, fps: float = 30.0,
                 lores: bool = True) -> None:
        super().__init__()
        self.name = f"picamera2:{camera}"
        module = _import_picamera2()
        try:
            self._cam = module.Picamera2(camera_num=camera)
        except (IndexError, RuntimeError) as exc:
            raise CameraUnavailable(f"could not open Pi camera {camera}: {exc}") from None
        # calibrations are kept per sensor and lens (imx708 and imx708_wide differ)
        model = (getattr(self._cam, "camera_properties", None) or {}).get("Model")
        self.camera_id = f"picamera2-{camera}-{model}" if model else f"picamera2-{camera}"
        self.size = (width, height)  # the main stream's
        self.lores_size = lores_size(width, height) if lores else None
        streams: dict[str, Any] = {"main": {"size": (width, height), "format": "RGB888"}}
        if self.lores_size is not None:
            streams["lores"] = {"size": self.lores_size, "format": "YUV420"}
        try:
            config = self._cam.create_video_configuration(**streams, controls={"FrameRate": float(fps)})
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:
            self._cam.close()
            raise CameraUnavailable(f"could not start Pi camera {camera}: {exc}") from None
        self._t0: int | None = None
        self._held: Any = None  # the request of the last lazy frame, until the next read

    def _time(self, request: Any) -> float:
        stamp = request.get_metadata().get("SensorTimestamp")
        if stamp is None:
            return float(self._index) / 30.0
        if self._t0 is None:
            self._t0 = stamp
        return (stamp - self._t0) / 1e9

    @staticmethod
    def _main(request: Any) -> np.ndarray:
        image = request.make_array("main")
        if image.ndim == 3 and image.shape[2] == 4:  # XBGR8888 layouts carry a padding byte
            image = image[:, :, :3]
        return np.ascontiguousarray(image)

    def _let_go(self) -> None:
        if self._held is not None:
            held, self._held = self._held, None
            held.release()

    def _read(self) -> tuple[np.ndarray, float, None] | None:
        self._let_go()
        request = self._cam.capture_request()
        try:
            image = self._main(request)
            t = self._time(request)
        finally:
            request.release()
        return image, t, None

    def read_lazy(self) -> LazyFrame:
        """The next frame with its lores copy at hand and its main stream on demand (only
        until the next read). Needs the lores stream (lores=True)."""
        if self._closed:
            raise SourceError(f"{self.name} is closed")
        if self.lores_size is None:
            raise SourceError(f"{self.name} was opened without its lores stream")
        self._let_go()
        request = self._cam.capture_request()
        try:
            w, h = self.lores_size
            yuv = request.make_array("lores")  # YUV420: the Y plane is the first h rows
            lores = np.ascontiguousarray(yuv[:h, :w])
            t = self._time(request)
        except BaseException:
            request.release()
            raise
        self._held = request
        index = self._index
        self._index += 1
        fetched: list[np.ndarray] = []

        def main() -> np.ndarray:
            if not fetched:
                if self._held is not request:
                    raise SourceError(f"{self.name}: frame {index}'s main stream was asked for after "
                                      "the next frame was read")
                fetched.append(self._main(request))
            return fetched[0]

        return LazyFrame(lores, t, index, main)

    def _release(self) -> None:
        try:
            self._let_go()
            self._cam.stop()
        finally:
            self._cam.close()


__all__ = ["LazyFrame", "Picamera2Source", "lores_size"]
