"""The recognition process loads what recognition needs and nothing of the kiosk: no
Kivy, no screens, no game engines (each would be memory held twice, docs/kiosk.md)."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

from runtime.feed import OK, FeedConfig, Recognition
from runtime.vision_process import ProcessFeed

WAIT_S = 60.0  # the child starts Python and numpy, and builds the Yokir templates
#: Packages the recognition process has no use for.
NOT_WANTED = ("kivy", "kiosk", "companion.games", "companion.session", "hardware", "club")


def grey_frames(uri: str):
    """An endless source of plain grey 320x240 frames."""
    def frames():
        while True:
            yield np.full((240, 320, 3), 128, np.uint8)
    return frames()


def loaded_with_recognition(config: FeedConfig):
    """The real recognition for the config is loaded; what the process then has loaded
    is told in the feed's status (no recognizer runs)."""
    recognition, why = Recognition.load(config)
    unwanted = sorted(m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in NOT_WANTED))
    return None, f"recognizer {recognition is not None}{why}; unwanted: {','.join(unwanted) or '-'}"


def test_the_recognition_process_loads_no_kiosk_kivy_or_engines():
    notified = threading.Event()
    feed = ProcessFeed(FeedConfig("grey", game="yokir", players=3, deck="yokir", max_fps=30), notified.set,
                       opener=grey_frames, recognition=loaded_with_recognition)
    feed.start()
    try:
        deadline = threading.Timer(WAIT_S, notified.set)
        deadline.start()
        while feed.status != OK and deadline.is_alive():
            notified.wait(0.5)
            notified.clear()
        deadline.cancel()
    finally:
        assert feed.stop()
    assert feed.status == OK, feed.detail
    assert feed.detail == "recognizer True; unwanted: -"


#: Shows camera frames from the recognition process as the kiosk does, and says whether
#: that loaded numpy in the showing process.
SHOW_FRAMES = """
import sys, threading
from runtime.feed import FeedConfig
from runtime.vision_process import ProcessFeed
from tests.runtime.plainframes import numbered_frames

ready = threading.Event()
feed = ProcessFeed(FeedConfig("numbered", max_width=64, max_fps=30), ready.set, opener=numbered_frames)
loaded_before = "numpy" in sys.modules
feed.start()
shot = None
for _ in range(600):
    ready.wait(0.1)
    ready.clear()
    shot = feed.latest()
    if shot is not None:
        break
stopped = feed.stop()
print(loaded_before, "numpy" in sys.modules, stopped, shot is not None and shot.size,
      shot is not None and bytes(shot.image.data[:3]) == bytes([shot.index % 256, 0, 0]))
"""


def test_showing_the_recognition_process_frames_loads_no_numpy_in_the_kiosk():
    """The kiosk's process gets each frame as bytes (runtime.vision_process.Pixels): the
    camera never makes it load numpy (8.5 MB held for good, docs/kiosk.md)."""
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", SHOW_FRAMES], cwd=root, capture_output=True, text=True,
                          timeout=WAIT_S * 2, env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "True", "(64,", "48)", "True"], done.stdout


def test_a_frame_from_the_recognition_process_is_an_array_for_whoever_asks():
    from runtime.vision_process import Pixels

    image = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    pixels = Pixels(bytearray(image.tobytes()), image.shape)
    assert pixels.shape == (2, 3, 3) and pixels.nbytes == 18 and pixels.tobytes() == image.tobytes()
    assert np.array_equal(np.asarray(pixels), image) and np.shares_memory(np.asarray(pixels), pixels.data)
    assert int(pixels[1, 2, 0]) == 15 and pixels.flags["C_CONTIGUOUS"] and pixels.dtype == np.uint8
    with pytest.raises(ValueError):
        Pixels(bytearray(17), (2, 3, 3))
