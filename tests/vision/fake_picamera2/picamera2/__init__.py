"""A stand-in for picamera2, which only runs on a Raspberry Pi: the calls our adapter
makes, with the same names and shapes, recording what was done to it."""

from __future__ import annotations

import numpy as np

instances: list[Picamera2] = []
#: The `scene` every new camera starts with (see Picamera2.scene).
scene = None


class _Request:
    def __init__(self, camera: Picamera2) -> None:
        self._camera = camera
        self.released = False

    def make_array(self, stream: str) -> np.ndarray:
        assert not self.released, "a released request has no buffers"
        self._camera.arrays.append(stream)
        scene = self._camera.scene
        if stream == "lores":
            assert self._camera.config["lores"]["format"] == "YUV420"
            w, h = self._camera.config["lores"]["size"]
            if scene is not None:  # the picture's YUV420 at the lores size, as the ISP makes it
                import cv2

                small = cv2.resize(scene(self._camera.captured), (w, h), interpolation=cv2.INTER_AREA)
                return cv2.cvtColor(small, cv2.COLOR_BGR2YUV_I420)
            yuv = np.full((h * 3 // 2, w), 128, np.uint8)
            yuv[:h] = self._camera.captured % 256  # Y: which capture this is
            return yuv
        assert stream == "main"
        w, h = self._camera.config["main"]["size"]
        if scene is not None:
            return scene(self._camera.captured).copy()
        frame = np.zeros((h, w, 3), np.uint8)
        frame[:, :, 0] = self._camera.captured % 256  # blue: which capture this is
        return frame

    def get_metadata(self) -> dict:
        # a sensor clock that does not start at zero, 1/30 s a frame, in nanoseconds
        return {"SensorTimestamp": 5_000_000_000 + self._camera.captured * 33_333_333}

    def release(self) -> None:
        self.released = True
        self._camera.captured += 1


class Picamera2:
    def __init__(self, camera_num: int = 0) -> None:
        if camera_num > 0:
            raise IndexError("list index out of range")  # what picamera2 does for a missing camera
        self.camera_num = camera_num
        self.config: dict = {}
        self.started = False
        self.stopped = False
        self.closed = False
        self.captured = 0
        self.arrays: list[str] = []  # the streams copied out, in order
        #: What the camera sees: capture number -> BGR picture of the main size (tests set
        #: it); None: flat pictures numbered by their capture.
        self.scene = scene
        instances.append(self)

    def create_video_configuration(self, main: dict, lores: dict | None = None,
                                   controls: dict | None = None) -> dict:
        config = {"main": dict(main), "controls": dict(controls or {})}
        if lores is not None:
            config["lores"] = dict(lores)
        return config

    def configure(self, config: dict) -> None:
        self.config = config

    def start(self) -> None:
        self.started = True

    def capture_request(self) -> _Request:
        assert self.started and not self.stopped
        return _Request(self)

    def stop(self) -> None:
        self.stopped = True

    def close(self) -> None:
        self.closed = True
