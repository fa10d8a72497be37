"""The demo with a display: the kiosk opens on the play screen and the game plays on it.

Kivy allows one window per process and the kiosk tests own this one, so the demo runs
in a child process under the same display (Xvfb in `make test`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HAS_DISPLAY = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))

SCRIPT = """
import json, sys
from runtime.demo.director import Pace
from runtime.demo.kiosk import ScreenFeed, run_kiosk

shown = []
original = ScreenFeed._show
def _show(self, *args):  # Kivy's trigger calls the method by this name
    original(self, *args)
    if self.app.shot is not None:
        shown.append((self.app.shot.size, len(self.app.shot.annotations), self.app.root.current))
ScreenFeed._show = _show
status = run_kiosk("yokir", 0, options={"target": 1}, pace=Pace(wait=0.0), close_when_done=True)
print(json.dumps({"status": status, "shown": len(shown), "first": shown[0] if shown else None,
                  "cards": max((n for _, n, _ in shown), default=0)}))
"""


@pytest.mark.kiosk
@pytest.mark.skipif(not HAS_DISPLAY, reason="no display: run under xvfb-run (make test does)")
def test_the_demo_plays_on_the_kiosk_play_screen(tmp_path) -> None:
    env = dict(os.environ, KIVY_HOME=str(tmp_path / "kivy"), KIVY_NO_CONSOLELOG="1", KIVY_NO_ARGS="1")
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert lines[-2].startswith("Scores match the full-information game: seat 1 (Ada) 1")
    import json

    report = json.loads(lines[-1])
    assert report["status"] == 0
    assert report["shown"] > 10  # the camera view followed the game
    (width, _height), _, screen = report["first"]
    assert width == 640 and screen == "play"
    assert report["cards"] >= 3  # a whole trick outlined at once
