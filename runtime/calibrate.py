"""The camera's lens calibration at the table (issue 16): views of the printed ChArUco
board are collected from the camera's raw frames while the user moves it about, with
the progress the CLI prints (views, coverage, reprojection error), and the result is
refused or kept exactly as `companion camera calibrate` does (`vision.calibration`).

`LensCalibration` takes full-size frames with `offer(image)` from the table's thread
and looks for the board on a worker thread of its own (finding the board costs tens of
milliseconds a frame: not the UI's time); only the newest frame waits, older ones are
dropped. `background=False` looks at once, for tests.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Progress words before any frame was looked at.
WAITING = "waiting for the camera's first picture"


@dataclass(frozen=True)
class Outcome:
    """How a calibration ended: saved (`path`) or refused (`text` says why, with the numbers)."""

    ok: bool
    text: str
    path: str = ""


class LensCalibration:
    """Calibrates the camera `camera` (the name its calibration is kept under) from the
    frames offered. `target_views`, `min_views` and `max_error_px` are the CLI's options."""

    def __init__(self, camera: str, *, target_views: int | None = None, min_views: int | None = None,
                 max_error_px: float | None = None, wake: Callable[[], None] = lambda: None,
                 background: bool = True) -> None:
        from vision import calibration as cal

        self._cal = cal
        self.camera = camera
        self.calibrator = cal.Calibrator(
            camera=camera, target_views=target_views or cal.TARGET_VIEWS,
            min_views=min_views or cal.MIN_VIEWS,
            max_error_px=max_error_px if max_error_px is not None else cal.MAX_ERROR_PX)
        self.wake = wake
        self.background = background
        self.outcome: Outcome | None = None
        self._progress: Any = None
        self._reason = WAITING
        self._lock = threading.Lock()
        self._offered = threading.Condition(self._lock)
        self._frame: Any = None
        self._closed = False
        self._thread: threading.Thread | None = None
        if background:
            self._thread = threading.Thread(target=self._work, name="lens calibration", daemon=True)
            self._thread.start()

    # -- frames in ----------------------------------------------------------------------
    def offer(self, image: Any) -> None:
        """A new full-size BGR frame from the camera (the newest replaces one not yet seen)."""
        if self.outcome is not None or self._closed:
            return
        if not self.background:
            self._look(image)
            return
        with self._offered:
            self._frame = image
            self._offered.notify()

    def _work(self) -> None:
        while True:
            with self._offered:
                while self._frame is None and not self._closed:
                    self._offered.wait()
                if self._closed:
                    return
                image, self._frame = self._frame, None
            self._look(image)

    def _look(self, image: Any) -> None:
        try:
            progress = self.calibrator.add_frame(image)
        except self._cal.CalibrationError as exc:  # a frame of another size: say so, go on
            with self._lock:
                self._reason = str(exc)
        else:
            with self._lock:
                self._progress = progress
                self._reason = progress.reason
        self.wake()

    # -- what the screen shows ------------------------------------------------------------
    def progress(self) -> dict[str, Any]:
        """views, target, minimum, coverage (0..1), error (px, None until enough views),
        limit, the last frame's verdict and a hint, done (the target is reached), and the
        outcome once finished ("saved" or "refused", with its words)."""
        with self._lock:
            p, reason = self._progress, self._reason
        c = self.calibrator
        return {"camera": self.camera, "views": len(c.views), "target": c.target_views,
                "minimum": c.min_views, "coverage": c.coverage,
                "error": None if p is None else p.error_px, "limit": c.max_error_px,
                "reason": reason, "hint": "" if p is None else p.hint,
                "done": len(c.views) >= c.target_views,
                "state": "" if self.outcome is None else ("saved" if self.outcome.ok else "refused"),
                "text": "" if self.outcome is None else self.outcome.text}

    def line(self) -> str:
        """The progress in one line, as the CLI prints it."""
        p = self.progress()
        error = "-" if p["error"] is None else f"{p['error']:.2f} px"
        return (f"views {p['views']}/{p['target']}, frame covered {p['coverage']:.0%}, "
                f"reprojection error {error}: {p['reason']}" + (f"; {p['hint']}" if p["hint"] else ""))

    # -- the end -----------------------------------------------------------------------------
    def finish(self) -> Outcome:
        """Calibrate from the views taken and keep the result for this camera and
        resolution; or refuse it (too few views, an error above the limit) with the numbers,
        keeping whatever calibration was stored before."""
        self.close()
        try:
            result = self.calibrator.result()
            path = result.save()
        except (self._cal.CalibrationError, OSError) as exc:
            self.outcome = Outcome(False, f"Not calibrated: {exc}")
            return self.outcome
        w, h = result.size
        self.outcome = Outcome(True, f"Calibrated {self.camera} at {w}x{h}: {result.views} views, frame "
                                     f"covered {result.coverage:.0%}, reprojection error "
                                     f"{result.error_px:.2f} px (limit {self.calibrator.max_error_px:g})",
                               str(path))
        return self.outcome

    def close(self) -> None:
        """Stop looking at frames (the worker ends)."""
        with self._offered:
            self._closed = True
            self._offered.notify()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(5.0)
