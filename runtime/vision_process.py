"""Recognition in a process of its own, so vision's Python work never holds the UI's
interpreter lock.

`ProcessFeed` has the face of `runtime.feed.CameraFeed` (`latest`, `take_observations`,
`take_questions`, `link`, `start`, `stop`, `status`, `detail`, `frames`, `keep_full`),
so the table uses either. Inside the child process a `CameraFeed` reads the source and
runs the recognizer exactly as the thread feed does; the child's main thread then
writes each display-sized RGB frame into one slot of a shared-memory ring
(`multiprocessing.shared_memory`) and sends the small rest (annotations, observations,
questions, status) over a queue. A slot is handed back to the child once the parent's
reader has copied it out, so a slot is never written while it is read; when no slot is
free the child sends the frame's observations without its picture (the screen skips a
frame; no move is lost). The full-size BGR frame (deck teaching, camera calibration)
goes through a second segment, only while `keep_full` is on.

The session stays in the parent: the recognizer's prior and the players' answers cross
over as commands, the keys of withdrawn questions come back as messages.

The parent creates and unlinks every segment; `stop()` ends the child (asked, then
terminated, then killed) and joins it, so no segment and no zombie outlives the feed.
"""

from __future__ import annotations

import contextlib
import logging
import math
import multiprocessing as mp
import queue
import threading
import weakref
from collections import deque
from collections.abc import Callable
from multiprocessing import shared_memory
from typing import Any

from companion.observation import Observation, Question
from runtime.feed import MAX_PENDING_OBSERVATIONS, NO_CAMERA, STARTING, FeedConfig, Shot

log = logging.getLogger(__name__)

#: Display frames in flight between the child and the UI (one written, one read, one spare).
SLOTS = 3
#: The largest full-size frame the teaching segment holds (Camera Module 3's full sensor).
MAX_FULL = (4608, 2592)
#: How long the parent waits for the child to stop by itself before it terminates it.
STOP_GRACE_S = 2.0


def _slot_bytes(config: FeedConfig) -> int:
    """A display frame is at most max_width wide; its height is allowed up to the same
    (a portrait camera), three bytes a pixel."""
    return config.max_width * config.max_width * 3


class ProcessFeed:
    """Capture and recognition of one source in a child process; `notify` is called
    (from the parent's reader thread) after every frame and status change."""

    def __init__(self, config: FeedConfig, notify: Callable[[], None] = lambda: None, *,
                 start_method: str = "spawn", full_frames: tuple[int, int] = MAX_FULL,
                 opener: Any = None, recognition: Any = None, stop_grace: float = STOP_GRACE_S) -> None:
        """`opener` and `recognition` are CameraFeed's (None: vision's own); they cross
        into the child, so they must be picklable (module-level functions)."""
        self.config = config
        self._opener = opener
        self._recognition = recognition
        self._stop_grace = stop_grace
        self._notify = notify
        self._ctx = mp.get_context(start_method)
        self._full_size = full_frames
        self._lock = threading.Lock()
        self._latest: Shot | None = None
        self._observations: deque[Observation] = deque()
        self._questions: deque[Question] = deque(maxlen=MAX_PENDING_OBSERVATIONS)
        self._status = STARTING
        self._detail = f"opening {config.source}"
        self._keep_full = False
        self._process: Any = None
        self._reader: threading.Thread | None = None
        self._stopping = threading.Event()
        self._segments: list[shared_memory.SharedMemory] = []
        self._commands: Any = None
        self._results: Any = None
        self._free: Any = None
        self._full_free: Any = None  # one token: the full-frame segment may be written
        self._session: Any = None
        self._unlinks: list[Callable[[], None]] = []
        self._finalizer: Any = None
        self._early: list[tuple[Any, ...]] = []
        self.frames = 0
        self.camera = ""  # the opened camera's calibration name, once known
        self.dropped_observations = 0
        self.pid: int | None = None  # the child's, for the memory benchmark

    # -- the face of CameraFeed ---------------------------------------------------------
    @property
    def status(self) -> str:
        return self._status

    @property
    def detail(self) -> str:
        return self._detail

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.is_alive()

    @property
    def keep_full(self) -> bool:
        return self._keep_full

    @keep_full.setter
    def keep_full(self, on: bool) -> None:
        self._keep_full = bool(on)
        self._send(("keep_full", self._keep_full))

    @property
    def segment_names(self) -> list[str]:
        """The shared-memory segments this feed made (for tests: none may outlive it)."""
        return [s.name for s in self._segments]

    def latest(self) -> Shot | None:
        return self._latest

    def take_observations(self) -> list[Observation]:
        with self._lock:
            out = list(self._observations)
            self._observations.clear()
        return out

    def take_questions(self) -> list[Question]:
        with self._lock:
            out = list(self._questions)
            self._questions.clear()
        return out

    def link(self, session: Any) -> None:
        """The recognizer (in the child) learns from `session`: its prior after every
        change of the log, and the players' answers."""
        self._drop_links()
        self._session = session
        if session is None or not hasattr(session, "watch_possible"):
            return

        def expect(likely: frozenset[str], placed: dict[str, str]) -> None:
            self._send(("prior", frozenset(likely), dict(placed)))

        def learn(key: str, code: str) -> None:
            self._send(("resolve", key, code))

        self._unlinks = [session.watch_possible(expect), session.on_answer(learn)]

    def _drop_links(self) -> None:
        unlinks, self._unlinks = self._unlinks, []
        for undo in unlinks:
            with contextlib.suppress(Exception):
                undo()

    def start(self) -> None:
        """Make the shared memory, start the child and the reader (once)."""
        if self._process is not None:
            return
        slot = _slot_bytes(self.config)
        frames = shared_memory.SharedMemory(create=True, size=slot * SLOTS)
        full_w, full_h = self._full_size
        full = shared_memory.SharedMemory(create=True, size=full_w * full_h * 3)
        self._segments = [frames, full]
        self._finalizer = weakref.finalize(self, _release, list(self._segments))
        self._commands = self._ctx.Queue()
        self._results = self._ctx.Queue()
        self._free = self._ctx.Queue()
        for i in range(SLOTS):
            self._free.put(i)
        self._full_free = self._ctx.Queue()
        self._full_free.put(0)
        for message in self._early:
            self._commands.put(message)
        self._early.clear()
        self._process = self._ctx.Process(
            target=serve, name=f"vision {self.config.source}", daemon=True,
            args=(self.config, frames.name, slot, full.name, full.size, self._commands, self._results,
                  self._free, self._opener, self._recognition, self._full_free))
        self._process.start()
        self.pid = self._process.pid
        self._stopping.clear()
        self._reader = threading.Thread(target=self._read, name="vision results", daemon=True)
        self._reader.start()

    def stop(self, timeout: float = 3.0) -> bool:
        """Stop the child and the reader and free the shared memory; True once all ended."""
        self._drop_links()
        self._stopping.set()
        process = self._process
        if process is not None:
            self._send(("stop",))
            process.join(min(timeout, self._stop_grace))
            if process.is_alive():
                process.terminate()
                process.join(1.0)
            if process.is_alive():
                process.kill()
                process.join(1.0)
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout)
        for q in (self._commands, self._results, self._free, self._full_free):
            if q is not None:
                q.close()
                q.cancel_join_thread()
        ended = process is None or not process.is_alive()
        if self._finalizer is not None:
            self._finalizer()  # close and unlink the segments
        if process is not None and ended:
            process.close()
        self._process = None
        return ended

    # -- the parent's reader --------------------------------------------------------------
    def _send(self, message: tuple[Any, ...]) -> None:
        if self._commands is None:  # not started: the child gets it first thing
            self._early.append(message)
            return
        if not self._stopping.is_set():
            with contextlib.suppress(ValueError, OSError):  # a queue already closed
                self._commands.put(message)

    def _read(self) -> None:
        frames = self._segments[0]
        full = self._segments[1]
        slot_size = _slot_bytes(self.config)
        while not self._stopping.is_set():
            try:
                message = self._results.get(timeout=0.1)
            except queue.Empty:
                if self._process is not None and not self._process.is_alive() and not self._stopping.is_set():
                    self._set_status(NO_CAMERA, f"the vision process ended ({self._process.exitcode})")
                    return
                continue
            except (EOFError, OSError, ValueError):
                return
            kind = message[0]
            if kind == "status":
                self._set_status(message[1], message[2])
            elif kind == "withdraw":
                session = self._session
                if session is not None and callable(getattr(session, "withdraw", None)):
                    session.withdraw(message[1])
            elif kind == "frame":
                (_, slot, shape, index, t, annotations, observations, questions, full_shape,
                 status, detail, count, self.camera, captured) = message
                image = None
                if slot is not None:
                    n = math.prod(shape)
                    start = slot * slot_size
                    image = Pixels(bytearray(frames.buf[start:start + n]), shape) if n else None
                    self._free.put(slot)  # copied: the child may write it again
                big = None
                if full_shape is not None:
                    if self._keep_full:
                        import numpy as np  # only while a deck is taught or the lens calibrated

                        view = np.ndarray(full_shape, np.uint8, full.buf)
                        big = view.copy()
                        del view
                    self._full_free.put(0)  # read: the child may write the next one
                with self._lock:
                    if image is not None:
                        self._latest = Shot(image, index, t, annotations, big, captured)
                    self.frames = count
                    for o in observations:
                        if len(self._observations) >= MAX_PENDING_OBSERVATIONS:
                            self._observations.popleft()
                            self.dropped_observations += 1
                        self._observations.append(o)
                    self._questions.extend(questions)
                self._status, self._detail = status, detail
                self._notify()

    def _set_status(self, status: str, detail: str) -> None:
        if (status, detail) != (self._status, self._detail):
            self._status, self._detail = status, detail
            self._notify()


class Pixels:
    """A display frame as the parent's reader copied it out of shared memory: its RGB
    bytes and its (height, width, 3) shape, without numpy. The UI uploads the bytes as
    they are (`kiosk.widgets`), so the kiosk's process never loads numpy for the camera:
    8.5 MB of anonymous memory it would hold for good (docs/kiosk.md, "memory").

    Whoever wants an array gets one: `numpy.asarray(pixels)` is a view of the same bytes,
    and an array's attributes and indexing (`pixels.flags`, `pixels[0, 0]`) are that
    view's; numpy loads then, in the process that asked."""

    __slots__ = ("data", "shape")

    def __init__(self, data: bytearray, shape: tuple[int, ...]) -> None:
        if len(data) != math.prod(shape):
            raise ValueError(f"{len(data)} bytes are not an image of shape {shape}")
        self.data = data
        self.shape = tuple(int(v) for v in shape)

    @property
    def nbytes(self) -> int:
        return len(self.data)

    def tobytes(self) -> bytes:
        return bytes(self.data)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy as np

        array = np.frombuffer(self.data, np.uint8).reshape(self.shape)
        return array if dtype is None else array.astype(dtype, copy=False)

    def __getitem__(self, key: Any) -> Any:
        import numpy as np

        return np.asarray(self)[key]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        import numpy as np

        return getattr(np.asarray(self), name)


def _release(segments: list[shared_memory.SharedMemory]) -> None:
    """Close and unlink the segments (once; also when a feed is dropped without stop)."""
    for segment in segments:
        with contextlib.suppress(Exception):
            segment.close()
        with contextlib.suppress(FileNotFoundError):
            segment.unlink()


# -- the child ------------------------------------------------------------------------------
class _SessionProxy:
    """What the child's CameraFeed links to in place of the session: the prior and the
    answers arrive as commands; withdrawn questions go back to the parent."""

    def __init__(self, results: Any) -> None:
        self._results = results
        self.expect: Callable[[frozenset[str], dict[str, str]], None] | None = None
        self.learn: Callable[[str, str], None] | None = None

    def watch_possible(self, callback: Callable[[frozenset[str], dict[str, str]], None]
                       ) -> Callable[[], None]:
        self.expect = callback
        return lambda: None

    def on_answer(self, callback: Callable[[str, str], None]) -> Callable[[], None]:
        self.learn = callback
        return lambda: None

    def withdraw(self, key: str) -> bool:
        self._results.put(("withdraw", key))
        return True


def serve(config: FeedConfig, frames_name: str, slot_size: int, full_name: str, full_size: int,
          commands: Any, results: Any, free: Any, opener: Any = None, recognition: Any = None,
          full_free: Any = None) -> None:
    """The child process: read and recognise with a CameraFeed, ship its frames."""
    from runtime.memory import release_memory, tune_process

    tune_process()
    import numpy as np

    from runtime.feed import CameraFeed

    frames = _attach(frames_name)
    full = _attach(full_name)
    woken = threading.Event()
    feed = CameraFeed(config, woken.set, opener=opener, recognition=recognition)
    proxy = _SessionProxy(results)
    feed.link(proxy)
    feed.start()
    release_memory()
    last: Shot | None = None
    said = ("", "")
    running = True
    try:
        while running:
            woken.wait(0.05)
            woken.clear()
            while True:  # the parent's commands, all of them
                try:
                    command = commands.get_nowait()
                except queue.Empty:
                    break
                except (EOFError, OSError):
                    running = False
                    break
                if command[0] == "stop":
                    running = False
                elif command[0] == "keep_full":
                    feed.keep_full = bool(command[1])
                elif command[0] == "prior" and proxy.expect is not None:
                    proxy.expect(command[1], command[2])
                elif command[0] == "resolve" and proxy.learn is not None:
                    proxy.learn(command[1], command[2])
            if not running:
                break
            shot = feed.latest()
            observations = feed.take_observations()
            questions = feed.take_questions()
            if shot is not None and shot is not last:
                last = shot
                results.put(_frame_message(shot, observations, questions, feed, frames, slot_size,
                                           full, full_size, free, np, full_free))
            elif observations or questions:
                results.put(("frame", None, (0,), 0, 0.0, (), observations, questions, None,
                             feed.status, feed.detail, feed.frames, feed.camera, 0.0))
            elif (feed.status, feed.detail) != said:
                results.put(("status", feed.status, feed.detail))
            said = (feed.status, feed.detail)
            if not feed.running and feed.status == NO_CAMERA:
                results.put(("status", feed.status, feed.detail))
                said = (feed.status, feed.detail)
                woken.wait(0.5)  # the source ended or failed: wait for the stop
    finally:
        feed.stop(timeout=2.0)
        for segment in (frames, full):
            segment.close()
        with contextlib.suppress(Exception):
            results.close()
            results.join_thread()


def _take(tokens: Any) -> bool:
    """Take a token from the queue if one is there (no queue: always)."""
    if tokens is None:
        return True
    try:
        tokens.get_nowait()
    except queue.Empty:
        return False
    return True


def _frame_message(shot: Shot, observations: list[Any], questions: list[Any], feed: Any,
                   frames: shared_memory.SharedMemory, slot_size: int,
                   full: shared_memory.SharedMemory, full_size: int, free: Any, np: Any,
                   full_free: Any = None) -> tuple[Any, ...]:
    """Write the shot into a free slot (and the full frame, when kept) and describe it.
    The full frame's one segment is written only once the last one written was read
    (`full_free` holds its token): else the reader copied the next frame's full picture
    under this frame's shot."""
    image = shot.image
    slot = None
    if image.nbytes <= slot_size:
        try:
            slot = free.get_nowait()
        except queue.Empty:
            slot = None  # the UI is behind: this picture is skipped, its moves are not
    if slot is not None:
        np.ndarray(image.shape, np.uint8, frames.buf, offset=slot * slot_size)[...] = image
    full_shape = None
    if shot.full is not None and shot.full.nbytes <= full_size and _take(full_free):
        big = np.ascontiguousarray(shot.full, dtype=np.uint8)
        np.ndarray(big.shape, np.uint8, full.buf)[...] = big
        full_shape = big.shape
    return ("frame", slot, image.shape, shot.index, shot.t, shot.annotations, observations, questions,
            full_shape, feed.status, feed.detail, feed.frames, feed.camera, shot.captured)


def _attach(name: str) -> shared_memory.SharedMemory:
    """Open the parent's segment. (A spawned child shares the parent's resource tracker,
    where the name is registered already; the parent unlinks it.)"""
    return shared_memory.SharedMemory(name=name)
