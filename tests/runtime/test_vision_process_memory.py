"""The recognition process loads what recognition needs and nothing of the kiosk: no
Kivy, no screens, no game engines (each would be memory held twice, docs/kiosk.md)."""

from __future__ import annotations

import sys
import threading

import numpy as np

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
