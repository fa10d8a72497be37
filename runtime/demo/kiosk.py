"""`companion demo` with a display: the kiosk's play screen, live, while the demo plays.

The kiosk app (`kiosk.app.CompanionApp`) runs on the main thread as it always does; the
director plays the game on a worker thread at a watchable pace, into a session the app
attaches to (`CompanionApp.attach`), so the screen shows exactly what it shows at a real
table: the camera picture with the recognised cards outlined, the trick, the verdicts and
the scores. The frames reach the screen the way the kiosk's own camera feed hands them
over: the latest one, scaled for display, on the UI thread.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np

from companion.session import Session
from companion.storage import MEMORY, Store
from runtime.demo.console import scores_words
from runtime.demo.director import DemoResult, Pace
from runtime.demo.errors import DemoMismatch, DemoStopped
from runtime.demo.run import demo_game, run_demo
from vision.pipeline import FrameResult
from vision.synthetic import SceneTruth

log = logging.getLogger(__name__)

WATCHABLE = Pace(wait=0.5)  # half a second between moves: a game a person can follow
DISPLAY_WIDTH = 640


def kiosk_available() -> bool:
    """Can the kiosk open here (a display to draw on, and Kivy installed)? The display is
    checked first: importing Kivy prints its log, which a headless run must not show."""
    from companion.commands.kiosk import has_display

    if not has_display():
        return False
    try:
        import kivy  # noqa: F401
    except ImportError:
        return False
    return True


class ScreenFeed:
    """A frame sink for the camera: hands each frame, scaled and outlined, to the kiosk's
    camera view (the app's `shot`), on the UI thread."""

    def __init__(self, app: Any) -> None:
        from kivy.clock import Clock

        self.app = app
        self._clock = Clock
        self._latest: Any = None
        self._lock = threading.Lock()
        self._trigger = Clock.create_trigger(self._show, 0)

    def frame(self, image: np.ndarray, result: FrameResult, truth: SceneTruth, notes: list[str]) -> None:
        import cv2

        from kiosk.camera import Annotation, Shot

        scale = min(1.0, DISPLAY_WIDTH / image.shape[1])
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        rgb = np.ascontiguousarray(cv2.cvtColor(small, cv2.COLOR_BGR2RGB))
        stable = {card.code for card in result.stable}
        notes_ = tuple(
            Annotation(tuple((float(x) * scale, float(y) * scale) for x, y in card.corners_px),
                       card.code or "?",
                       "unknown" if card.code is None else "stable" if card.code in stable else "tentative")
            for card in result.cards)
        with self._lock:
            self._latest = Shot(rgb, result.index, result.t, notes_)
        self._trigger()

    def _show(self, *_: Any) -> None:
        with self._lock:
            shot, self._latest = self._latest, None
        if shot is not None:
            self.app.shot = shot
            self.app.camera_status = "ok"
            self.app.camera_detail = "the demo's synthetic table"


def run_kiosk(game: str, seed: int | None, *, record: Path | None = None, pace: Pace = WATCHABLE,
              options: dict[str, Any] | None = None, players: int | None = None,
              close_when_done: bool = False, preset: str | None = None) -> int:
    """Open the kiosk on the play screen and play the demo on it; 0 when the scores match,
    1 when recognition and truth parted (the screen says where, and so does stderr)."""
    import sys

    from kiosk.boot import configure

    spec = demo_game(game)
    seed = spec.seed if seed is None else seed
    configure()
    from kivy.clock import Clock

    from kiosk.app import CompanionApp

    store = Store(MEMORY)
    app = CompanionApp(store, source="none", panel="none")
    feed: ScreenFeed | None = None
    outcome: dict[str, Any] = {}
    stopping = threading.Event()  # the window closed: the director stops between moves
    worker: list[threading.Thread] = []

    def show(session: Session) -> None:
        outcome["names"] = list(session.players)

        def attach(*_: Any) -> None:
            app.attach(session)
            app.go("play")
            session.set_camera("ok")
        Clock.schedule_once(attach, 0)

    def finished(*_: Any) -> None:
        from kivy.core.window import Window

        result: DemoResult | None = outcome.get("result")
        if result is not None:
            Window.set_title(f"Table Companion demo: the scores match the full-information game "
                             f"({scores_words(outcome['names'], result.scores)})")
        else:
            app.message = f"DEMO FAILED: {outcome.get('error')}"
        if close_when_done:
            app.stop()

    def play() -> None:
        try:
            outcome["result"] = run_demo(spec.name, seed, options=options, players=players,
                                         store=store, pace=pace, on_session=show,
                                         record=record, frames=feed, stop=stopping.is_set,
                                         preset=preset)
        except DemoMismatch as exc:
            outcome["error"] = exc
        except DemoStopped:
            return
        except Exception as exc:  # the window must say so too, not just the log
            log.exception("the demo failed")
            outcome["error"] = exc
        Clock.schedule_once(finished, 0)

    def started(*_: Any) -> None:
        nonlocal feed
        feed = ScreenFeed(app)
        worker.append(threading.Thread(target=play, name="demo-director", daemon=True))
        worker[0].start()

    app.bind(on_start=started)
    try:
        app.run()
    finally:
        stopping.set()
        if worker:
            worker[0].join(timeout=10)
        store.close()
    if "result" in outcome:
        result = outcome["result"]
        print(f"Scores match the full-information game: {scores_words(outcome['names'], result.scores)}.")
        return 0
    if "error" in outcome:
        print(f"DEMO FAILED: {outcome['error']}", file=sys.stderr)
        return 1
    print("companion demo: the window was closed before the game ended", file=sys.stderr)
    return 1
