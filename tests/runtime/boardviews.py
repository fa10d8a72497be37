"""Rendered views of the ChArUco board through a known wide lens (as tests/vision renders
them), and a camera feed whose frames a test hands over: for the lens calibration at the
table and on the kiosk's settings screen."""

from __future__ import annotations

import cv2
import numpy as np

from runtime.feed import OK, Shot
from vision import calibration as cal

SIZE = (800, 450)
K_TRUE = np.array([[430.0, 0, 404.0], [0, 431.0, 222.0], [0, 0, 1]])
D_TRUE = np.array([-0.30, 0.10, 0.0008, -0.0006, 0.0])  # a wide lens's barrel distortion
BOARD_PX_PER_MM = 4.0
POSES = [
    (0, 0, 0, (0.0, 0.0), 330), (30, 0, 5, (-0.55, -0.3), 360), (-30, 0, -5, (0.55, 0.3), 360),
    (0, 30, 10, (0.55, -0.3), 360), (0, -30, -10, (-0.55, 0.3), 360), (20, 20, 0, (-0.2, 0.3), 300),
    (-20, -20, 15, (0.2, -0.3), 300), (35, -15, 0, (-0.8, 0.05), 420), (-35, 15, 0, (0.8, -0.05), 420),
    (10, 35, -5, (0.0, -0.35), 380), (-15, -35, 5, (0.0, 0.35), 380), (0, 0, 30, (0.6, 0.0), 450),
]


def render_views() -> list[np.ndarray]:
    """The board seen through the known lens in every pose of POSES (BGR frames)."""
    w, h = SIZE
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    rays = cal.undistort_pixels(np.stack([xs, ys], axis=-1).reshape(-1, 2), K_TRUE, D_TRUE, None, 60)
    rays = rays.reshape(h, w, 2)
    plane = cal.board_image(BOARD_PX_PER_MM)
    bw, bh = cal.board_size_mm()
    frames = []
    for rx, ry, rz, centre, distance in POSES:
        R, _ = cv2.Rodrigues(np.radians([rx, ry, rz]))
        t = distance * np.array([centre[0], centre[1], 1.0]) - R @ np.array([bw / 2, bh / 2, 0.0])
        inv = np.linalg.inv(np.column_stack([R[:, 0], R[:, 1], t]))
        homog = np.concatenate([rays, np.ones((h, w, 1))], axis=-1) @ inv.T
        mm = (homog[..., :2] / homog[..., 2:3] * BOARD_PX_PER_MM - 0.5).astype(np.float32)
        image = cv2.remap(plane, mm[..., 0], mm[..., 1], cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=200)
        frames.append(cv2.cvtColor(cv2.GaussianBlur(image, (3, 3), 0.6), cv2.COLOR_GRAY2BGR))
    return frames


class HandFeed:
    """A camera feed whose frames the test hands over with `show(image)`."""

    def __init__(self, config, notify=lambda: None) -> None:
        self.config = config
        self.notify = notify
        self.status, self.detail = OK, "reading cards"
        self.frames = 0
        self.keep_full = False
        self.camera = "test-cam"
        self.started = self.stopped = 0
        self._shot = None

    def show(self, image: np.ndarray) -> None:
        self.frames += 1
        self._shot = Shot(np.ascontiguousarray(image[::4, ::4, ::-1]), self.frames, self.frames / 15,
                          (), image if self.keep_full else None)
        self.notify()

    def latest(self):
        return self._shot

    def take_observations(self):
        return []

    def take_questions(self):
        return []

    def start(self) -> None:
        self.started += 1

    def stop(self, timeout: float = 3.0) -> bool:
        self.stopped += 1
        return True
