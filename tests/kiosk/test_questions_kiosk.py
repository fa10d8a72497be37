"""The camera asks on the play screen: a card it cannot name reaches the screen at once,
with its crop and the likely cards as big buttons; one touch or a seat button answers,
the referee judges the answer, undo takes it back. The recognizer learns from the
session: the cards still unseen (its prior) and the players' answers."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest

from companion.observation import Question
from companion.words import card_name
from tests.kiosk.clock import pump_until

pytestmark = pytest.mark.kiosk




@dataclass
class Frame:
    image: np.ndarray
    t: float
    index: int


@dataclass
class Recognizer:
    """A recognizer for the test: it asks the questions the test puts on it (one frame
    each) and remembers what the session taught it."""

    pending: list[Question] = field(default_factory=list)
    taken_back: list[str] = field(default_factory=list)
    prior: Any = None
    resolved: list[tuple[str, str]] = field(default_factory=list)

    def process(self, image, t, index):
        questions = [self.pending.pop(0)] if self.pending else []
        withdrawn = [self.taken_back.pop(0)] if self.taken_back and not questions else []
        return SimpleNamespace(cards=[], stable=[], mat=None, observations=[], questions=questions,
                               withdrawn=withdrawn)

    def resolve(self, key: str, code: str) -> None:
        self.resolved.append((key, code))


def frames(uri: str):
    def run():
        i = 0
        while True:
            i += 1
            yield Frame(np.full((240, 320, 3), 60, np.uint8), i / 15, i)
    return run()


@contextmanager
def camera(app, recognizer: Recognizer):
    from kiosk.camera import CameraFeed, Recognition

    app._make_feed = lambda config: CameraFeed(config, app._camera_trigger, opener=frames,
                                               recognition=lambda c: (Recognition(recognizer), ""))
    try:
        yield
    finally:
        app.stop_camera()
        del app._make_feed


def crop_png() -> bytes:
    image = np.zeros((84, 60, 3), np.uint8)
    image[:] = (240, 240, 240)
    ok, data = cv2.imencode(".png", image)
    assert ok
    return data.tobytes()


def upcard_question(key: str = "card-1") -> Question:
    # the upcard turned in front of seat 1, read as the Initiate of Art or the Master of Thought
    return Question(key, "seat 1 play", "play", (("IA", 0.58), ("MT", 0.57)), seat=1, t=1.0,
                    frame=15, crop_png=crop_png())


def start(app, pump, recognizer):
    app.camera_source = "cv:0"
    app.game_name = "yokir"
    assert app.start_game(["Ann", "Bea", "Cleo"], {})
    assert pump_until(pump, lambda: app.shot is not None and app.camera_status == "ok")


def shown_answers(app, find):
    from kiosk.play import AnswerButton

    return find(app.screen("play").ids.question, AnswerButton)


def test_a_question_reaches_the_screen_at_once_and_a_touch_answers(kiosk_app, pump, touch, find):
    from kivy.uix.image import Image

    from vision.identify import Prior

    recognizer = Recognizer()
    with camera(kiosk_app, recognizer):
        start(kiosk_app, pump, recognizer)
        # the recognizer expects every card of the deck: none is seen yet
        assert isinstance(recognizer.prior, Prior) and {"IA", "MT"} <= recognizer.prior.likely
        recognizer.pending.append(upcard_question())
        assert pump_until(pump, lambda: kiosk_app.session.questions())
        # the session published it when asked (on the UI thread, one frame after the camera
        # thread had it): the screen has it two frames later
        pump(2)
        assert kiosk_app.screen("play").asking
        buttons = shown_answers(kiosk_app, find)
        assert [(b.code, b.name) for b in buttons] == [("IA", card_name("IA", "yokir")),
                                                       ("MT", card_name("MT", "yokir"))]
        assert buttons[1].name == "Master of Thought"
        crops = find(kiosk_app.screen("play").ids.question, Image)
        assert len(crops) == 1 and crops[0].texture is not None and crops[0].texture.size == (60, 84)
        assert kiosk_app.view.events == 0  # nothing is logged until someone answers
        touch(buttons[1])  # a real finger on the Master of Thought
        assert kiosk_app.view.events == 1 and kiosk_app.view.question is None
        deal = kiosk_app.session.events()[-1]
        assert deal.source == "touch" and deal.data["upcard"] == "MT" and deal.data["dealer"] == 1
        assert deal.observation["asked"] == {"candidates": ["IA", "MT"], "scores": [0.58, 0.57],
                                             "answer": "MT", "source": "touch"}
        assert recognizer.resolved == [("card-1", "MT")]
        assert "MT" not in recognizer.prior.likely and "IA" in recognizer.prior.likely
        assert not shown_answers(kiosk_app, find) and not kiosk_app.screen("play").asking
        assert kiosk_app.screen("play").buttons()  # the usual choices are back: the bids


def test_a_seat_button_answers_and_undo_takes_it_back(kiosk_app, pump, find):
    from kivy.core.window import Keyboard, Window

    from hardware.keyboard import SEAT_KEYS

    def press(key):
        code = Keyboard.keycodes[key]
        Window.dispatch("on_key_down", code, 0, None, [])
        Window.dispatch("on_key_up", code, 0)

    recognizer = Recognizer()
    with camera(kiosk_app, recognizer):
        start(kiosk_app, pump, recognizer)
        recognizer.pending.append(upcard_question())
        assert pump_until(pump, lambda: shown_answers(kiosk_app, find))
        press(SEAT_KEYS[2][1])  # any seat's second button: the second candidate
        assert pump_until(pump, lambda: kiosk_app.view.events == 1)
        deal = kiosk_app.session.events()[-1]
        assert deal.source == "panel" and deal.data["upcard"] == "MT"
        assert deal.observation["asked"]["source"] == "panel"
        assert not shown_answers(kiosk_app, find)
        press("backspace")  # undo
        assert pump_until(pump, lambda: kiosk_app.view.events == 0)
        assert kiosk_app.view.can_redo and "MT" in recognizer.prior.likely


def test_a_question_recognition_takes_back_leaves_the_screen(kiosk_app, pump, find):
    recognizer = Recognizer()
    with camera(kiosk_app, recognizer):
        start(kiosk_app, pump, recognizer)
        recognizer.pending.append(upcard_question())
        assert pump_until(pump, lambda: shown_answers(kiosk_app, find))
        recognizer.taken_back.append("card-1")  # the card was taken away, or named after all
        assert pump_until(pump, lambda: not kiosk_app.session.questions())
        pump(2)
        assert not shown_answers(kiosk_app, find) and not kiosk_app.screen("play").asking
        assert kiosk_app.view.events == 0
