"""The Raspberry Pi camera through picamera2, imported only when asked for: it exists on
Raspberry Pi OS as a system package and nowhere else."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from vision.sources.base import CameraUnavailable, FrameSource

NOT_INSTALLED = ("picamera2 is not installed: on Raspberry Pi OS install it with "
                 "`sudo apt install python3-picamera2` and create the venv with --system-site-packages")


def _import_picamera2() -> Any:
    try:
        return importlib.import_module("picamera2")
    except ImportError:
        raise CameraUnavailable(NOT_INSTALLED) from None


class Picamera2Source(FrameSource):
    """Frames from a Pi camera, BGR (picamera2's "RGB888" is B, G, R in memory, as OpenCV
    wants), timed by the sensor's own clock from the first frame."""

    def __init__(self, camera: int = 0, width: int = 1280, height: int = 720, fps: float = 30.0) -> None:
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
        try:
            config = self._cam.create_video_configuration(main={"size": (width, height), "format": "RGB888"},
                                                          controls={"FrameRate": float(fps)})
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:
            self._cam.close()
            raise CameraUnavailable(f"could not start Pi camera {camera}: {exc}") from None
        self._t0: int | None = None

    def _read(self) -> tuple[np.ndarray, float, None] | None:
        request = self._cam.capture_request()
        try:
            image = request.make_array("main")
            stamp = request.get_metadata().get("SensorTimestamp")
        finally:
            request.release()
        if image.ndim == 3 and image.shape[2] == 4:  # XBGR8888 layouts carry a padding byte
            image = image[:, :, :3]
        if stamp is None:
            t = float(self._index) / 30.0
        else:
            if self._t0 is None:
                self._t0 = stamp
            t = (stamp - self._t0) / 1e9
        return np.ascontiguousarray(image), t, None

    def _release(self) -> None:
        try:
            self._cam.stop()
        finally:
            self._cam.close()
