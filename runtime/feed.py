"""The camera feed in a thread: a background thread reads frames from a vision source,
runs card recognition when it is installed, and hands the results to the UI thread.
(`runtime.vision_process.ProcessFeed` does the same work in a process of its own; the
table uses it by default, and this thread feed where a test injects a source or a
recognizer that cannot cross a process.)

The UI never blocks on the camera. The thread keeps only the latest frame (a slow screen
skips frames, memory never grows) and queues the observations (those must not be lost:
each one may be a move); it then calls `notify()`, which the kiosk wires to a Kivy Clock
trigger, and the UI thread takes both with `latest()` and `take_observations()`.
`stop()` ends the thread cleanly and closes the source.

Recognition and the referee teach each other (issue 17): `link(session)` gives the
recognizer the session's prior (the cards not yet seen, set after every change of the
log, not per frame), hands it the players' answers (`Recognizer.resolve`), and the
questions recognition asks about cards it cannot name are queued like observations for
the UI thread to put to the session (`take_questions()` -> `Session.ask`).

The vision package is being built alongside the kiosk, so everything it provides is
optional here: without `vision.sources` the feed reports "no camera" with the reason,
without `vision.pipeline` it shows the frames with no cards outlined. Neither stops the
kiosk: every play can also be entered by touch.

No Kivy here (tests run it headless). numpy and cv2 are imported by the thread only.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from companion.errors import CompanionError
from companion.observation import Observation, Question
from runtime.memory import release_memory

log = logging.getLogger(__name__)

Opener = Callable[[str], Any]  # uri -> a context manager that iterates frames
RecognizerFactory = Callable[["FeedConfig"], Any]

STARTING, OK, NO_CAMERA, MAT_LOST, OFF = "starting", "ok", "no camera", "mat lost", "off"
#: Observations are kept for the UI up to this many (a UI that stopped taking them must
#: not make the camera thread grow without bound); the oldest are dropped and logged.
MAX_PENDING_OBSERVATIONS = 256


class CameraUnavailable(RuntimeError):
    """The source cannot be opened (no vision.sources, no such camera, a bad URI)."""


@dataclass(frozen=True)
class FeedConfig:
    """What the feed needs to know: the source URI; the game, its players and the deck
    it is played with (for the recognizer and the game's mat); the table corners tapped
    on the settings screen (fractions of the image; () to find the game's mat instead);
    `loop`: open the source again when it ends (the synthetic table is a short script)."""

    source: str
    game: str | None = None
    players: int | None = None
    deck: str | None = None
    corners: tuple[tuple[float, float], ...] = ()
    loop: bool = False
    max_width: int = 640
    max_fps: float = 15.0
    warp_width: int = 1280  # the top-down view made from tapped corners is this wide at most


@dataclass(frozen=True)
class Annotation:
    """One card outlined on the camera image: its corners in display pixels (x right,
    y down), the label to write ("MT", or "?" when unidentified) and its state:
    "stable" (counted by the tracker), "tentative" (seen, not yet stable), "unknown"."""

    points: tuple[tuple[float, float], ...]
    label: str
    state: str = "stable"


@dataclass(frozen=True, eq=False)  # a frame is itself: never compare pixel arrays
class Shot:
    """The latest frame for the screen: an RGB image already scaled for display (and
    turned from the sources' BGR on the camera thread, since GL ES has no BGR textures),
    its annotations, where it came from, and the full-size BGR frame when asked for."""

    image: Any  # numpy (H, W, 3) uint8, RGB, contiguous
    index: int
    t: float
    annotations: tuple[Annotation, ...] = ()
    full: Any = None  # the source's BGR frame, kept only while `CameraFeed.keep_full` is on
    captured: float = 0.0  # time.monotonic() when the source gave the frame (the latency benchmark)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self.image.shape[1]), int(self.image.shape[0])


def vision_opener() -> Opener:
    """`vision.sources.open_source`, or CameraUnavailable saying it is not installed."""
    try:
        sources = importlib.import_module("vision.sources")
    except ImportError as exc:
        raise CameraUnavailable(f"camera sources are not installed (vision.sources: {exc})") from None
    opener = getattr(sources, "open_source", None)
    if not callable(opener):
        raise CameraUnavailable("vision.sources has no open_source(uri)")
    return opener


class Recognition:
    """Card recognition for the feed: `vision.pipeline.Recognizer` for the deck in play.

    With the game's printed mat (`vision.mats`), the recognizer finds its markers and
    reports when the mat is lost. Without a mat, when the table's corners were tapped,
    every frame is first turned into a top-down view of the table (the tapped quad
    mapped to a rectangle), so cards are found square and only on the table; the
    outlines are mapped back onto the camera picture for the screen.
    `process(frame)` returns (annotations in frame pixels, observations, mat status),
    the mat status being "ok", "mat lost", or None without a mat.
    """

    def __init__(self, recognizer: Any, corners: tuple[tuple[float, float], ...] = (),
                 warp_width: int = 1280) -> None:
        self._recognizer = recognizer
        self.questions: list[Question] = []  # what recognition asked about the last frame
        self.withdrawn: list[str] = []  # ... and the keys of the questions it takes back
        self._corners = corners
        self._warp_width = warp_width
        self._warp: tuple[Any, Any, tuple[int, int]] | None = None  # H, H inverse, size
        self._warp_for: tuple[int, int] | None = None

    @classmethod
    def load(cls, config: FeedConfig) -> tuple[Recognition | None, str]:
        """The recognition for `config`, or None and the reason there is none."""
        if not config.deck:
            return None, "this game has no cards for the camera to read"
        try:
            pipeline = importlib.import_module("vision.pipeline")
        except ImportError as exc:
            return None, f"card recognition is not installed (vision.pipeline: {exc})"
        mat = None
        if not config.corners and config.game:
            try:
                mats = importlib.import_module("vision.mats")
                if config.game in mats.mat_games():
                    mat = mats.get_mat(config.game, config.players)
            except (ImportError, CompanionError) as exc:
                log.info("no mat for %s: %s", config.game, exc)
        try:
            recognizer = pipeline.Recognizer(config.deck, mat)
        except Exception as exc:  # no templates for the deck, a broken learned deck, ...
            log.exception("card recognition could not start")
            return None, f"card recognition could not start: {exc}"
        return cls(recognizer, config.corners if mat is None else (), config.warp_width), ""

    def _rectify(self, image: Any) -> Any:
        """The top-down view of the tapped table (the image itself without corners)."""
        if len(self._corners) != 4:
            return image
        import cv2
        import numpy as np

        h, w = image.shape[:2]
        if self._warp_for != (w, h):
            src = np.float32([(x * w, y * h) for x, y in self._corners])
            width = max(np.linalg.norm(src[1] - src[0]), np.linalg.norm(src[2] - src[3]))
            height = max(np.linalg.norm(src[3] - src[0]), np.linalg.norm(src[2] - src[1]))
            scale = min(1.0, self._warp_width / max(width, height, 1.0))
            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            dst = np.float32([(0, 0), (size[0] - 1, 0), (size[0] - 1, size[1] - 1), (0, size[1] - 1)])
            H = cv2.getPerspectiveTransform(src, dst)
            self._warp = (H, np.linalg.inv(H), size)
            self._warp_for = (w, h)
        assert self._warp is not None
        return cv2.warpPerspective(image, self._warp[0], self._warp[2], flags=cv2.INTER_LINEAR)

    def _to_frame(self, points: Any) -> list[tuple[float, float]]:
        """Points of the (possibly top-down) recognised image in frame pixels."""
        import numpy as np

        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if self._warp is not None and len(self._corners) == 4:
            import cv2

            pts = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self._warp[1]).reshape(-1, 2)
        return [(float(x), float(y)) for x, y in pts]

    def process(self, frame: Any) -> tuple[list[Annotation], list[Observation], str | None]:
        image = self._rectify(getattr(frame, "image", frame))
        result = self._recognizer.process(image, float(getattr(frame, "t", 0.0)),
                                          getattr(frame, "index", None))
        stable = {c.code for c in result.stable if c.visible}
        annotations = []
        for card in result.cards:
            state = "unknown" if card.code is None else ("stable" if card.code in stable else "tentative")
            annotations.append(Annotation(tuple(self._to_frame(card.corners_px)), card.code or "?",
                                          state))
        mat = None if result.mat is None else (OK if result.mat.ok else MAT_LOST)
        self.questions = list(getattr(result, "questions", None) or ())
        self.withdrawn = list(getattr(result, "withdrawn", None) or ())
        return annotations, list(result.observations), mat

    def link(self, session: Any) -> Callable[[], None]:
        """The recognizer's prior follows `session.possible()`; answers reach
        `recognizer.resolve(key, code)` when the pipeline has it. Returns the unlink."""
        recognizer = self._recognizer
        prior = importlib.import_module("vision.identify").Prior

        def expect(likely: frozenset[str], placed: dict[str, str]) -> None:
            recognizer.prior = prior(likely, placed)

        def learn(key: str, code: str) -> None:
            resolve = getattr(recognizer, "resolve", None)
            if callable(resolve):
                resolve(key, code)

        unlinks = [session.watch_possible(expect), session.on_answer(learn)]

        def unlink() -> None:
            for undo in unlinks:
                undo()
        return unlink


class CameraFeed:
    """One source, read on one thread. `notify` is called (from the thread) after every
    new frame and status change; `opener` and `recognition` are injectable for tests."""

    def __init__(self, config: FeedConfig, notify: Callable[[], None] = lambda: None, *,
                 opener: Opener | None = None,
                 recognition: Callable[[FeedConfig], tuple[Recognition | None, str]] | None = None
                 ) -> None:
        self.config = config
        self._notify = notify
        self._opener = opener
        self._recognition = recognition or Recognition.load
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._latest: Shot | None = None
        self._observations: deque[Observation] = deque()
        self._questions: deque[Question] = deque(maxlen=MAX_PENDING_OBSERVATIONS)
        self._session: Any = None  # the session the recognizer learns from (link)
        self._unlink: Callable[[], None] | None = None
        self._loaded: Recognition | None = None  # the recognition the thread runs
        self._linking = threading.Lock()
        self._status = STARTING
        self._detail = f"opening {config.source}"
        self.frames = 0  # frames read, for the settings screen and tests
        self.keep_full = False  # keep each full-size frame too (teaching a deck needs it)
        self.camera = ""  # the opened camera's calibration name, once open
        self.dropped_observations = 0
        self._last_failure = ""

    # -- for the UI thread ------------------------------------------------------------
    @property
    def status(self) -> str:
        """"starting", "ok", "no camera" or "mat lost"."""
        return self._status

    @property
    def detail(self) -> str:
        """The status in words, with the reason when the camera is not ok."""
        return self._detail

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def latest(self) -> Shot | None:
        """The newest frame (the same one again until a newer arrives)."""
        return self._latest

    def take_observations(self) -> list[Observation]:
        """The observations since the last call, oldest first."""
        with self._lock:
            out = list(self._observations)
            self._observations.clear()
        return out

    def take_questions(self) -> list[Question]:
        """The questions recognition asked since the last call, oldest first (UI thread:
        put them to the session with `Session.ask`)."""
        with self._lock:
            out = list(self._questions)
            self._questions.clear()
        return out

    def link(self, session: Any) -> None:
        """Let `session` teach the recognizer (its prior, the players' answers), now or as
        soon as recognition has started on the thread."""
        with self._lock:
            self._session = session
            recognition = self._loaded
        if recognition is not None:
            self._link(recognition)

    def _link(self, recognition: Recognition | None) -> None:
        with self._linking:
            with self._lock:
                session = self._session
            if recognition is None or session is None or not hasattr(session, "watch_possible"):
                return
            unlink, self._unlink = self._unlink, None
            if unlink is not None:
                unlink()
            try:
                self._unlink = recognition.link(session)
            except Exception:  # the prior helps; without it recognition still reads the cards
                log.exception("the recognizer cannot learn from the session")

    def start(self) -> None:
        """Start reading on a daemon thread (once)."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"camera {self.config.source}",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 3.0) -> bool:
        """Ask the thread to stop and wait up to `timeout` seconds; True once it ended."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        ended = thread is None or not thread.is_alive()
        if ended:
            self._thread = None
        return ended

    # -- the thread ----------------------------------------------------------------------
    def _set_status(self, status: str, detail: str) -> None:
        if (status, detail) != (self._status, self._detail):
            self._status, self._detail = status, detail
            self._notify()

    def _run(self) -> None:
        try:
            opener = self._opener or vision_opener()
            recognition, why = self._recognition(self.config)
            with self._lock:
                self._loaded = recognition
            self._link(recognition)
            # Building the templates drew every card of the deck at 6 px/mm and threw
            # the drawings away: 30 to 250 MB freed inside malloc but still resident.
            release_memory()
            while not self._stop.is_set():
                ended = self._read(opener, recognition, why)
                if not ended or self._stop.is_set():
                    break
                if not self.config.loop:
                    self._set_status(NO_CAMERA, f"{self.config.source} has no more frames")
                    break
        except CameraUnavailable as exc:
            self._set_status(NO_CAMERA, str(exc))
        except Exception as exc:  # a camera that fails must not take the kiosk with it
            log.exception("camera %s failed", self.config.source)
            self._set_status(NO_CAMERA, f"{self.config.source}: {exc}")
        finally:
            with self._linking:
                unlink, self._unlink = self._unlink, None
                self._loaded = None
            if unlink is not None:
                unlink()  # the session stops feeding a recognizer that no longer reads

    def _read(self, opener: Opener, recognition: Recognition | None, why: str) -> bool:
        """Read the source until it ends (True) or the feed is stopped (False)."""
        period = 1.0 / self.config.max_fps if self.config.max_fps > 0 else 0.0
        try:
            source = opener(self.config.source)
        except Exception as exc:
            raise CameraUnavailable(f"cannot open {self.config.source}: {exc}") from None
        # the name the camera's lens calibration is kept under (vision.sources.calibrated)
        self.camera = str(getattr(source, "camera_id", None) or getattr(source, "name", None)
                          or self.config.source)
        release_memory()  # what opening took and gave back (the synthetic table's set-up)
        with _as_context(source) as frames:
            reading = iter(frames)
            next_due = time.monotonic()
            while not self._stop.is_set():
                # A source faster than `max_fps` (the synthetic table renders as fast as it
                # can) is paced, so the feed never takes more than its share of the CPU. The
                # wait comes before the read: a frame is worked on as soon as it is taken.
                wait = next_due - time.monotonic()
                if wait > 0 and self._stop.wait(wait):
                    return False
                frame = next(reading, None)
                if frame is None:
                    return True
                captured = time.monotonic()
                next_due = max(next_due + period, captured)
                self._frame(frame, recognition, why, captured)
            return False

    def _frame(self, frame: Any, recognition: Recognition | None, why: str, captured: float = 0.0) -> None:
        image = getattr(frame, "image", frame)
        annotations: list[Annotation] = []
        observations: list[Observation] = []
        mat = None
        if recognition is not None:
            try:
                annotations, observations, mat = recognition.process(frame)
            except Exception as exc:
                why = f"card recognition failed: {exc}"
                if why != self._last_failure:  # once per kind of failure, not every frame
                    log.exception("card recognition failed on frame %s", getattr(frame, "index", "?"))
                self._last_failure = why
        display, scale = _for_display(image, self.config.max_width)
        shot = Shot(display, int(getattr(frame, "index", self.frames)), float(getattr(frame, "t", 0.0)),
                    tuple(Annotation(tuple((x * scale, y * scale) for x, y in a.points), a.label, a.state)
                          for a in annotations),
                    image if self.keep_full else None, captured)
        with self._lock:
            self._latest = shot
            self.frames += 1
            for o in observations:
                if len(self._observations) >= MAX_PENDING_OBSERVATIONS:
                    self._observations.popleft()
                    self.dropped_observations += 1
                    log.warning("camera: the screen is not taking observations; dropped one")
                self._observations.append(o)
        questions = list(getattr(recognition, "questions", None) or ()) if recognition is not None else []
        withdrawn = list(getattr(recognition, "withdrawn", None) or ()) if recognition is not None else []
        with self._lock:
            self._questions.extend(questions)
            if withdrawn:  # not yet taken by the UI: never asked at all
                kept = [q for q in self._questions if q.key not in withdrawn]
                self._questions.clear()
                self._questions.extend(kept)
            session = self._session if self._unlink is not None else None
        for key in withdrawn:  # the card left, or recognition named it after all
            if session is not None and callable(getattr(session, "withdraw", None)):
                session.withdraw(key)
        if mat == MAT_LOST:
            self._set_status(MAT_LOST, "the mat's markers are not in view")
        else:
            self._set_status(OK, why or "reading cards")
        self._notify()


@contextlib.contextmanager
def _as_context(source: Any) -> Iterator[Iterable[Any]]:
    """A source as a context manager: its own, or a plain iterable closed afterwards."""
    if hasattr(source, "__enter__"):
        with source as frames:
            yield frames
        return
    try:
        yield source
    finally:
        close = getattr(source, "close", None)
        if callable(close):
            close()


def _for_display(image: Any, max_width: int) -> tuple[Any, float]:
    """A BGR (or grey) frame as an RGB image at most `max_width` pixels wide, and the
    scale used."""
    import numpy as np

    img = np.asarray(image)
    if img.ndim == 2:
        img = np.repeat(img[:, :, None], 3, axis=2)
    if img.dtype != np.uint8:
        img = np.clip(img, 0, 255).astype(np.uint8)
    img = img[:, :, :3]
    scale = 1.0
    if img.shape[1] > max_width:
        import cv2

        scale = max_width / img.shape[1]
        img = cv2.resize(img, (max_width, max(1, round(img.shape[0] * scale))),
                         interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(img[:, :, ::-1]), scale
