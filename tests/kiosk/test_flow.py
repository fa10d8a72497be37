"""Whole games driven through the session with simulated touches, the panel's keys, and
the camera's observations arriving from a background thread."""

from __future__ import annotations

import random
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pytest

from companion.games import games
from companion.observation import Observation
from tests.kiosk.clock import pump_until

pytestmark = pytest.mark.kiosk




def _next_touch(app, play, find, rng):
    """The button a player would press now: the deal, a bid, a card, a pick, a move."""
    from kiosk.play import ChoiceButton, CountRow, PickButton
    from kiosk.widgets import CardButton, Tap

    buttons = play.buttons()
    deal = [b for b in buttons if b.text.endswith("on screen")]
    if deal:
        return deal[0]
    picks = find(play.ids.choices, PickButton)
    if picks:
        waiting = sorted({p.seat for p in picks} - set(app.view.table.get("picked") or ()))
        seat = rng.choice(waiting)
        return rng.choice([p for p in picks if p.seat == seat])
    cards = find(play.ids.choices, CardButton)
    if cards:
        return rng.choice(cards)
    choices = find(play.ids.choices, ChoiceButton)
    if choices:
        return rng.choice(choices)
    counts = find(play.ids.choices, CountRow)
    if counts:
        label = counts[0].count.label.capitalize()
        return next(b for b in find(counts[0], Tap) if b.text.startswith(label))
    raise AssertionError(f"nothing to touch: {app.view}")



@contextmanager
def fake_camera(app, opener, recognizer=None):
    """The kiosk's camera feed reads frames from `opener` (and recognises them with
    `recognizer`) instead of a real source, for the length of the block."""
    from kiosk.camera import CameraFeed

    app._make_feed = lambda config: CameraFeed(config, app._camera_trigger, opener=opener,
                                               recognition=lambda c: (recognizer, ""))
    try:
        yield
    finally:
        del app._make_feed

def test_a_whole_yokir_game_by_touch(kiosk_app, pump, tap, touch, find):
    from kiosk.home import GameTile
    from kiosk.setup import IntControl
    from kiosk.widgets import SeatChip

    for name in ("Ann", "Bea", "Cleo"):
        kiosk_app.store.player(name)
    kiosk_app.refresh_players()
    touch(next(t for t in find(kiosk_app.screen("home"), GameTile) if t.game == "yokir"))
    setup = kiosk_app.screen("setup")
    minus = find(setup, IntControl)[0].children[-1]
    for _ in range(6):
        touch(minus)
    assert setup.values == {"target": 1}
    touch(setup.ids.start)
    assert kiosk_app.root.current == "play"
    play = kiosk_app.screen("play")
    rng = random.Random(5)
    touches = 0
    while not kiosk_app.view.over:
        events = kiosk_app.view.events
        tap(_next_touch(kiosk_app, play, find, rng), frames=1)
        assert kiosk_app.view.events == events + 1, kiosk_app.view.verdict
        assert kiosk_app.view.verdict.ok
        touches += 1
        assert touches < 400
    view = kiosk_app.view
    session = kiosk_app.session
    assert view == session.view() and view.winners
    chips = find(play.ids.scores, SeatChip)
    assert [c.winner for c in chips] == [s in view.winners for s in range(3)]
    assert [c.score for c in chips] == [str(s) for s in view.scores]
    assert play.turn_mark.word == "Winner" and play.turn_text.endswith(("wins", "win"))
    record = kiosk_app.store.game(session.game_id)
    assert record.status == "finished" and list(record.scores) == list(view.scores)
    assert {r.name for r in kiosk_app.store.ratings("yokir")} == {"Ann", "Bea", "Cleo"}
    home = next(b for b in play.buttons() if b.text == "Home")
    tap(home)
    assert kiosk_app.root.current == "home" and kiosk_app.session is None


def test_a_whole_ahyoheek_match_by_pick_buttons(kiosk_app, pump, tap, find):
    kiosk_app.game_name = "ahyoheek"
    assert kiosk_app.start_game(["Ann", "Bea", "Cleo", "Dev"], {})
    pump()
    play = kiosk_app.screen("play")
    rng = random.Random(8)
    for _ in range(300):
        if kiosk_app.view.over:
            break
        tap(_next_touch(kiosk_app, play, find, rng), frames=1)
    assert kiosk_app.view.over and len(kiosk_app.view.winners) == 1
    assert kiosk_app.store.game(kiosk_app.session.game_id).status == "finished"


@pytest.mark.parametrize("game", ["yonac", "medieval-mastery"])
def test_other_games_take_their_moves_by_touch(kiosk_app, pump, tap, find, game):
    """The number stepper (Yonac), the engine-worded moves (Medieval Mastery's tableaux)
    and the draws work from the touchscreen too: 40 touches, every one accepted."""
    kiosk_app.game_name = game
    n = games()[game].default_players
    assert kiosk_app.start_game([f"P{i}" for i in range(n)], {})
    pump()
    play = kiosk_app.screen("play")
    rng = random.Random(2)
    kinds = set()
    for _ in range(40):
        if kiosk_app.view.over:
            break
        button = _next_touch(kiosk_app, play, find, rng)
        kinds.add(type(button).__name__)
        before = kiosk_app.view.events
        tap(button, frames=1)
        assert kiosk_app.view.events == before + 1 and kiosk_app.view.verdict.ok
    expected = {"yonac": {"Tap"}, "medieval-mastery": {"Tap", "CardButton"}}[game]
    assert expected <= kinds


def test_the_keyboard_plays_the_panel(kiosk_app, pump, tap):
    from kivy.core.window import Keyboard, Window

    from hardware.keyboard import SEAT_KEYS

    kiosk_app.game_name = "yokir"
    assert kiosk_app.start_game(["Ann", "Bea", "Cleo"], {})
    pump()
    tap(kiosk_app.screen("play").buttons()[0])  # deal on screen
    seat = kiosk_app.view.turn

    def press(key):
        code = Keyboard.keycodes[key]
        Window.dispatch("on_key_down", code, 0, None, [])
        Window.dispatch("on_key_up", code, 0)

    press(SEAT_KEYS[seat][0])  # the first choice on the seat's buttons: accept
    assert pump_until(pump, lambda: kiosk_app.view.events == 2)
    assert kiosk_app.view.phase == "discard"
    events = kiosk_app.session.events()
    assert events[-1].source == "panel" and events[-1].data["bid"] == "accept"
    press("backspace")  # undo
    assert pump_until(pump, lambda: kiosk_app.view.events == 1)
    assert kiosk_app.view.phase.startswith("bidding") and kiosk_app.view.turn == seat


@dataclass
class Frame:
    image: np.ndarray
    t: float
    index: int


class TableCamera:
    """A camera over the table for the test: frames on its own thread, and the
    observations the test puts on it, one per frame (as the tracker would report)."""

    def __init__(self) -> None:
        self.pending: list[Observation] = []
        self.index = 0

    def open(self, uri: str):
        camera = self

        def frames():
            while True:
                image = np.full((480, 640, 3), 60, np.uint8)
                camera.index += 1
                yield Frame(image, camera.index / 15, camera.index)
        return frames()

    def process(self, frame):
        obs = [self.pending.pop(0)] if self.pending else []
        return [], obs, "ok"


def test_camera_frames_and_observations_reach_the_session(kiosk_app, pump, find):
    from companion import table

    if table.adapter_for("yokir") is None:
        pytest.skip("no Yokir table adapter registered")  # companion.adapters is part of the tree
    camera = TableCamera()
    with fake_camera(kiosk_app, camera.open, recognizer=camera):
        try:
            kiosk_app.camera_source = "cv:0"
            kiosk_app.game_name = "yokir"
            assert kiosk_app.start_game(["Ann", "Bea", "Cleo"], {})
            assert pump_until(pump, lambda: kiosk_app.shot is not None and kiosk_app.camera_status == "ok")
            play = kiosk_app.screen("play")
            assert play.ids.camera.shot is kiosk_app.shot and play.ids.camera.frame_rect[2] > 0
            assert kiosk_app.view.camera == "ok"
            # the upcard turned in front of seat 1: the deal, dealer 1, hands unseen
            camera.pending.append(Observation("placed", "MT", "seat 1 play", "play", seat=1))
            assert pump_until(pump, lambda: kiosk_app.view.events == 1)
            deal = kiosk_app.session.events()[-1]
            assert deal.source == "vision" and deal.data["dealer"] == 1 and deal.data["upcard"] == "MT"
            assert kiosk_app.view.table["upcard"] == "MT"
            # a card put in a seat's area out of turn: the referee refuses it, the screen waits
            camera.pending.append(Observation("placed", "IA", "seat 0 play", "play", seat=0))
            refused = lambda: kiosk_app.view.verdict is not None and not kiosk_app.view.verdict.ok  # noqa: E731
            assert pump_until(pump, refused)
            assert play.awaiting and kiosk_app.view.events == 1
            kiosk_app.confirm()
            pump()
            assert not play.awaiting
        finally:
            kiosk_app.stop_camera()
    assert kiosk_app.feed is None and kiosk_app.camera_status == "off"


def test_a_lost_camera_shows_the_banner(kiosk_app, pump):

    def broken(uri):
        raise OSError("camera unplugged")

    with fake_camera(kiosk_app, broken):
        try:
            kiosk_app.camera_source = "cv:0"
            kiosk_app.game_name = "yokir"
            assert kiosk_app.start_game(["Ann", "Bea", "Cleo"], {})
            play = kiosk_app.screen("play")
            assert pump_until(pump, lambda: play.banner_text.startswith("Camera lost"))
            assert "camera unplugged" in play.banner_text and kiosk_app.view.camera == "no camera"
        finally:
            kiosk_app.stop_camera()


def test_calibration_by_tapping_four_corners(kiosk_app, pump, touch):
    from kiosk.prefs import load

    camera = TableCamera()
    with fake_camera(kiosk_app, camera.open):
        try:
            kiosk_app.camera_source = "cv:0"
            kiosk_app.open_settings()
            settings = kiosk_app.screen("settings")
            settings.show_tab("calibrate")
            assert pump_until(pump, lambda: kiosk_app.shot is not None)
            pump(3)
            view = settings.ids.calibrate_view
            x0, y0, w, h = view.frame_rect
            assert w > 0 and h > 0
            from kivy.tests.common import UnitTestTouch

            for fx, fy in ((0.1, 0.1), (0.9, 0.12), (0.92, 0.9), (0.08, 0.88)):
                wx, wy = view.to_window(x0 + fx * w, y0 + (1 - fy) * h)
                t = UnitTestTouch(wx, wy)
                t.touch_down()
                t.touch_up()
                pump(2)
            assert len(kiosk_app.corners) == 4
            assert kiosk_app.corners[1] == pytest.approx([0.9, 0.12], abs=0.01)
            assert kiosk_app.save_corners()
            saved = [v for corner in load(kiosk_app.prefs_path).corners for v in corner]
            assert saved == pytest.approx([v for corner in kiosk_app.corners for v in corner], abs=1e-6)
            assert kiosk_app.feed is not None and len(kiosk_app.feed.config.corners) == 4
            kiosk_app.clear_corners()
            assert kiosk_app.save_corners() and load(kiosk_app.prefs_path).corners == ()
        finally:
            kiosk_app.go_home()


def test_teaching_a_deck_card_by_card(kiosk_app, pump, tap, monkeypatch):
    """Photograph three Yokir cards (drawn by the project's own art, laid on a table in
    front of the fake camera); vision.learn makes a deck of them, and the kiosk reads
    the game's cards with it from then on."""
    learn = pytest.importorskip("vision.learn")
    from vision import art

    showing = {"code": None}
    tables: dict = {}

    def table_with(code):
        if code not in tables:
            image = np.full((720, 1280, 3), (40, 90, 40), np.uint8)
            if code is not None:
                face = art.render_card("yokir", code, 3.0)
                h, w = face.shape[:2]
                image[120:120 + h, 400:400 + w] = face[:, :, :3]
            tables[code] = image
        return tables[code]

    class Camera(TableCamera):
        def open(self, uri):
            camera = self

            def frames():
                while True:
                    camera.index += 1
                    yield Frame(table_with(showing["code"]), camera.index / 15, camera.index)
            return frames()

    camera = Camera()
    with fake_camera(kiosk_app, camera.open):
        try:
            kiosk_app.camera_source = "cv:0"
            kiosk_app.open_settings()
            settings = kiosk_app.screen("settings")
            settings.show_tab("teach")
            kiosk_app.teach_start("yokir")
            codes = kiosk_app.teach["codes"]
            for code in codes[:3]:
                showing["code"] = code
                seen = kiosk_app.feed.frames
                assert pump_until(pump, lambda s=seen: kiosk_app.feed.frames > s + 1
                                   and kiosk_app.feed.latest().full is not None)
                assert code in settings.ids.teach_prompt.text
                assert kiosk_app.teach_capture()
            kiosk_app.teach_stop()
            assert pump_until(pump, lambda: not kiosk_app.teach, seconds=30)
            assert kiosk_app.message.startswith("Learned 3 cards as my-yokir"), kiosk_app.message
            assert learn.read_manifest("my-yokir").faces.keys() == set(codes[:3])
            assert kiosk_app.prefs.extra["decks"] == {"yokir": "my-yokir"}
            # The contact sheet of what was learned is on the teaching screen.
            import cv2

            sheet = cv2.imread(kiosk_app.teach_sheet)
            assert sheet is not None and sheet.shape[0] > 100
            kiosk_app.game_name = "yokir"
            assert kiosk_app.deck_in_play() == "my-yokir"
        finally:
            kiosk_app.go_home()
            kiosk_app.prefs = type(kiosk_app.prefs)()
