"""The kiosk's camera through the table, for real: recognition in its own process, the
frames through shared memory onto the screen, and nothing left behind when it stops."""

from __future__ import annotations

import multiprocessing as mp
import os
import time

import cv2
import numpy as np
import pytest

pytestmark = pytest.mark.kiosk


def test_the_camera_runs_in_its_own_process_and_stops_clean(kiosk_app, pump, tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    for i in range(3):
        image = np.zeros((240, 320, 3), np.uint8)
        image[:, :, 2] = 200  # red, in BGR
        cv2.imwrite(str(folder / f"{i}.png"), image)
    kiosk_app.camera_source = f"dir:{folder}"
    try:
        kiosk_app.open_settings()
        kiosk_app.screen("settings").show_tab("camera")
        pump()
        feed = kiosk_app.feed
        assert feed is not None and type(feed).__name__ == "ProcessFeed"
        end = time.monotonic() + 60  # a bound, not a measure: the child starts Python and numpy
        while kiosk_app.shot is None and time.monotonic() < end:
            pump(1)
        shot = kiosk_app.shot
        assert shot is not None, (kiosk_app.camera_status, kiosk_app.camera_detail, feed.frames)
        assert shot.size == (320, 240)
        assert tuple(int(v) for v in shot.image[0, 0]) == (200, 0, 0)  # RGB on screen
        assert feed.pid != os.getpid() and os.path.exists(f"/proc/{feed.pid}")
        pid, segments = feed.pid, feed.segment_names
    finally:
        kiosk_app.go_home()
    assert kiosk_app.feed is None and kiosk_app.camera_status == "off"
    assert not os.path.exists(f"/proc/{pid}")
    assert not any(os.path.exists(os.path.join("/dev/shm", n.lstrip("/"))) for n in segments)
    assert mp.active_children() == []
