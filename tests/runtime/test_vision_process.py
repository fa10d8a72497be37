"""Recognition in its own process: frames through shared memory, observations, questions
and the prior over queues, and a clean end (no segment, no child left behind).

The child is a real spawned process; its source and recognizer are the module-level
fakes below (they cross into the child by name). The tests wait on the feed's own
notifications, never on a clock.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
from dataclasses import dataclass

import numpy as np
import pytest

from companion.observation import Observation, Question
from runtime.feed import NO_CAMERA, OK, Annotation, FeedConfig
from runtime.vision_process import ProcessFeed

WAIT_S = 30.0  # the most a test waits for the child (it starts Python and numpy)


@dataclass(frozen=True)
class Frame:
    image: np.ndarray
    t: float
    index: int


def coloured_frames(uri: str):
    """An endless source: frame i is 320x240, its blue channel i % 256 (BGR)."""
    def frames():
        i = 0
        while True:
            image = np.zeros((240, 320, 3), np.uint8)
            image[:, :, 0] = i % 256
            yield Frame(image, i / 30, i)
            i += 1
    return frames()


def stuck_source(uri: str):
    """A camera that never gives a frame (a driver stuck in a read)."""
    threading.Event().wait()
    return iter(())


def broken_source(uri: str):
    raise OSError("no such device")


class Recognising:
    """Each frame: one outline, one observation; frame 3 asks a question, and the prior
    and the answers it is given show up in the next observations' notes."""

    def __init__(self) -> None:
        self.questions: list[Question] = []
        self.withdrawn: list[str] = []
        self.note = ""
        self.prior = None

    def process(self, frame):
        self.questions = ([Question("k3", "trick", "trick", (("MT", 0.6), ("ST", 0.5)), frame=frame.index)]
                          if frame.index == 3 else [])
        self.withdrawn = ["k3"] if frame.index == 6 else []
        obs = Observation("placed", "MT", "trick", "trick", frame=frame.index, note=self.note)
        outline = Annotation(((10.0, 10.0), (50.0, 10.0), (50.0, 80.0), (10.0, 80.0)), "MT")
        return [outline], [obs], OK

    def link(self, session):
        def expect(likely, placed):
            self.note = "prior " + ",".join(sorted(likely))

        def learn(key, code):
            self.note = f"answer {key}={code}"
        unlinks = [session.watch_possible(expect), session.on_answer(learn)]
        return lambda: [undo() for undo in unlinks]


def recognising(config):
    return Recognising(), ""


def no_recognition(config):
    return None, "no cards here"


class FakeSession:
    """The parts of a session the feed links to."""

    def __init__(self) -> None:
        self.expect = self.learn = None
        self.withdrawn: list[str] = []

    def watch_possible(self, callback):
        self.expect = callback
        callback(frozenset({"MT", "ST"}), {})
        return lambda: None

    def on_answer(self, callback):
        self.learn = callback
        return lambda: None

    def withdraw(self, key):
        self.withdrawn.append(key)
        return True


def wait_for(feed_event: threading.Event, condition) -> bool:
    """Wait for `condition()`, re-checking each time the feed notifies."""
    deadline = threading.Event()
    timer = threading.Timer(WAIT_S, deadline.set)
    timer.start()
    try:
        while not condition():
            if deadline.is_set():
                return False
            feed_event.wait(0.5)
            feed_event.clear()
        return True
    finally:
        timer.cancel()


def shm_exists(name: str) -> bool:
    return os.path.exists(os.path.join("/dev/shm", name.lstrip("/")))


@pytest.fixture
def notified():
    return threading.Event()


def test_frames_and_observations_cross_from_the_child_and_it_ends_clean(notified):
    feed = ProcessFeed(FeedConfig("fake", max_fps=200, loop=True), notified.set,
                       opener=coloured_frames, recognition=recognising, stop_grace=5.0)
    feed.start()
    names = feed.segment_names
    try:
        assert names and all(shm_exists(n) for n in names)
        assert wait_for(notified, lambda: feed.frames >= 8 and feed.latest() is not None)
        shot = feed.latest()
        # the picture came through shared memory, turned to RGB: blue is the last channel
        assert shot.size == (320, 240) and shot.image.flags["C_CONTIGUOUS"]
        assert int(shot.image[0, 0, 2]) == shot.index % 256 and not shot.image[:, :, :2].any()
        assert shot.annotations[0].label == "MT" and len(shot.annotations[0].points) == 4
        observations = feed.take_observations()
        assert observations and all(o.code == "MT" for o in observations)
        frames = [o.frame for o in observations]
        assert frames == sorted(frames)
        assert feed.status == OK
        assert feed.pid != os.getpid()
    finally:
        assert feed.stop()
    assert not any(shm_exists(n) for n in names)
    assert mp.active_children() == []


def test_the_session_teaches_the_recognizer_in_the_child(notified):
    session = FakeSession()
    feed = ProcessFeed(FeedConfig("fake", max_fps=200, loop=True), notified.set,
                       opener=coloured_frames, recognition=recognising)
    feed.link(session)  # before the start: the prior waits in the queue
    feed.start()
    try:
        assert wait_for(notified, lambda: any(o.note == "prior MT,ST" for o in feed.take_observations()))
        session.learn("k3", "ST")
        assert wait_for(notified, lambda: any(o.note == "answer k3=ST" for o in feed.take_observations()))
        assert wait_for(notified, lambda: "k3" in session.withdrawn)
    finally:
        feed.stop()
    assert mp.active_children() == []


def test_a_question_comes_back_to_the_parent(notified):
    feed = ProcessFeed(FeedConfig("fake", max_fps=200, loop=False), notified.set,
                       opener=coloured_frames, recognition=recognising)
    feed.start()
    asked: list[Question] = []
    try:
        assert wait_for(notified, lambda: asked.extend(feed.take_questions()) or bool(asked))
        assert asked[0].key == "k3" and asked[0].candidates[0] == ("MT", 0.6)
    finally:
        feed.stop()


def test_a_full_frame_crosses_only_while_kept(notified):
    feed = ProcessFeed(FeedConfig("fake", max_fps=200, loop=True), notified.set,
                       opener=coloured_frames, recognition=no_recognition, full_frames=(640, 480))
    feed.start()
    try:
        assert wait_for(notified, lambda: feed.latest() is not None)
        assert feed.latest().full is None
        feed.keep_full = True
        assert wait_for(notified, lambda: feed.latest() is not None and feed.latest().full is not None)
        shot = feed.latest()  # one shot: the feed runs on, and the next may be a newer frame
        assert shot.full.shape == (240, 320, 3) and int(shot.full[0, 0, 0]) == shot.index % 256
        assert feed.detail == "no cards here"
    finally:
        feed.stop()


def test_a_camera_that_cannot_open_is_reported(notified):
    feed = ProcessFeed(FeedConfig("cv:7"), notified.set, opener=broken_source, recognition=no_recognition)
    feed.start()
    try:
        assert wait_for(notified, lambda: feed.status == NO_CAMERA)
        assert "no such device" in feed.detail
    finally:
        assert feed.stop()
    assert mp.active_children() == []


def test_a_stuck_child_is_terminated_and_its_memory_freed(notified):
    feed = ProcessFeed(FeedConfig("stuck"), notified.set, opener=stuck_source, recognition=no_recognition,
                       stop_grace=0.2)
    feed.start()
    names = feed.segment_names
    pid = feed.pid
    assert feed.stop(timeout=1.0)
    assert not os.path.exists(f"/proc/{pid}")  # ended and reaped: no zombie
    assert not any(shm_exists(n) for n in names)
    assert mp.active_children() == []


def test_the_full_frame_segment_is_written_again_only_once_read():
    """The child writes a full frame into its one segment only with the segment's token:
    a second frame before the reader has copied the first keeps the first's picture
    there (without the token the reader copied frame 3's full picture under frame 2's
    shot, under load)."""
    import queue
    from multiprocessing import shared_memory
    from types import SimpleNamespace

    from runtime.feed import Shot
    from runtime.vision_process import _frame_message

    frames = shared_memory.SharedMemory(create=True, size=4 * 8 * 3 * 2)
    full = shared_memory.SharedMemory(create=True, size=6 * 10 * 3)
    try:
        free, full_free = queue.Queue(), queue.Queue()
        for i in range(2):
            free.put(i)
        full_free.put(0)
        feed = SimpleNamespace(status=OK, detail="", frames=1, camera="fake")

        def shot(index: int) -> Shot:
            image = np.full((4, 8, 3), index, np.uint8)
            return Shot(image, index, 0.0, (), np.full((6, 10, 3), index, np.uint8), 0.0)

        def message(index: int) -> tuple:
            return _frame_message(shot(index), [], [], feed, frames, 4 * 8 * 3, full, full.size, free, np,
                                  full_free)

        first, second = message(2), message(3)
        assert first[8] == (6, 10, 3) and second[8] is None  # the second's full picture is not sent
        assert np.ndarray((6, 10, 3), np.uint8, full.buf)[0, 0, 0] == 2
        full_free.put(0)  # the reader copied it
        third = message(4)
        assert third[8] == (6, 10, 3) and np.ndarray((6, 10, 3), np.uint8, full.buf)[0, 0, 0] == 4
    finally:
        for segment in (frames, full):
            segment.close()
            segment.unlink()
