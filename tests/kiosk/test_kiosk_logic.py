"""The kiosk's plain-Python parts, without a display: words for the screen, the touch
menu built from the engines' legal actions, the settings file, the camera feed's thread,
the theme's marks, and the `companion kiosk` command's refusal without a display."""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass, field

import numpy as np
import pytest

from companion.games import Action, games, make_game
from companion.menus import Count, menu_for
from companion.observation import Observation
from companion.session import Session
from companion.storage import Store
from kiosk import theme
from kiosk.camera import (
    MAX_PENDING_OBSERVATIONS,
    NO_CAMERA,
    OK,
    CameraFeed,
    FeedConfig,
    Recognition,
)
from kiosk.prefs import Prefs, load, save
from kiosk.text import docs_dir, name_seats, rule_blocks, rules_page, shorten, words_text

# -- words ---------------------------------------------------------------------------------

def test_prompts_as_data_name_the_seats_by_their_players():
    from companion.words import CardRef, Seat, Words

    players = ("Ann", "Bea", "Cleo")
    said = Words.of("{Seat} leads; {other} holds {card}", seat=Seat(2), other=Seat(0),
                    card=CardRef("QS", "the queen of spades"))
    assert words_text(said, players) == "Cleo leads; Ann holds the queen of spades"
    # a view made without words as data (an older log's, a test's): its text, reworded
    assert words_text(Words(""), players, "Seat 2 to play") == "Bea to play"


def test_seat_numbers_become_names():
    players = ("Ann", "Bea", "Cleo")
    # engine words count seats from 1, as people do (companion.words.seat_words)
    assert name_seats("Seat 3 wins, trump was led.", players) == "Cleo wins, trump was led."
    assert name_seats("seat 1 cannot play: it is seat 2's turn", players) == \
        "Ann cannot play: it is Bea's turn"
    assert name_seats("sudden death between seats 1 and 3", players) == \
        "sudden death between Ann and Cleo"
    assert name_seats("Trick 3 of 5; seat 7 is no seat here, nor seat 0", players) == \
        "Trick 3 of 5; seat 7 is no seat here, nor seat 0"
    assert name_seats("", players) == ""


def test_verdict_words_name_the_seats():
    from companion.viewmodel import Verdict
    from companion.words import CardRef, Seat, Words
    from kiosk.text import verdict_words

    players = ("Ann", "Bea", "Cleo")
    said = Words.of("{Seat} plays {card}.", seat=Seat(2), card=CardRef("MT", "the Master of Thought"))
    verdict = Verdict(ok=True, text="Seat 3 plays the Master of Thought.", seat=2, words=(said,))
    assert verdict_words(verdict, players) == "Cleo plays the Master of Thought."
    assert verdict_words(Verdict(ok=False, text="seat 2 cannot play MT"), players) == "Bea cannot play MT"


def test_shorten_cuts_at_a_word():
    assert shorten("one two three", 40) == "one two three"
    assert shorten("one two three four", 12) == "one two\u2026"


def test_rules_pages_become_blocks():
    text = ("# Game\n\nIntro with **bold** and `MT` [link](x.md).\n\n## A round\n1. First\n"
            "   still first\n2. Second\n- bullet\n\n| Card | What |\n|---|---|\n| `AS` | loses |\n\n"
            "## Events\nLog lines\n\n| type | fields |\n|---|---|\n| pick | seat |\n\n## After\nEnd.\n")
    blocks = rule_blocks(text)
    kinds = [b.kind for b in blocks]
    assert kinds == ["h1", "p", "h2", "li", "li", "li", "row", "h2", "p"]
    assert "[b]bold[/b]" in blocks[1].markup and "link" in blocks[1].markup and "x.md" not in blocks[1].markup
    assert blocks[3].number == "1." and "still first" in blocks[3].markup
    assert "[b]Card:[/b]" in blocks[6].markup and "loses" in blocks[6].markup
    assert not any("pick" in b.markup for b in blocks), "the developers' Events section is left out"


@pytest.mark.parametrize("game", sorted(games()))
def test_every_rules_page_reads_cleanly(game):
    text = rules_page(game)
    if text is None:
        assert not (docs_dir() / f"{game}.md").exists()
        return
    blocks = rule_blocks(text)
    assert blocks and blocks[0].kind == "h1"
    for b in blocks:
        assert "|" not in b.markup.replace("&bl;", "").replace("&br;", "") or b.kind == "code", b
        assert "**" not in b.markup, b


# -- the touch menu -------------------------------------------------------------------------

def _session(game: str, players: int | None = None, **options) -> Session:
    store = Store(":memory:")
    n = players or games()[game].default_players
    return Session.start(store, game, [f"P{i}" for i in range(n)], **options)


def _step_until(session: Session, rng: random.Random, done) -> None:
    for _ in range(500):
        if done(session):
            return
        session.step_bot(rng)
    raise AssertionError("the state was never reached")


def test_yokir_menu_deal_then_bids_then_cards():
    s = _session("yokir")
    menu = menu_for(s.view(), s.state())
    assert menu.chance == "Deal" and not menu.choices
    s.step_bot(random.Random(1))
    menu = menu_for(s.view(), s.state())
    assert [c.label for c in menu.choices] == list(s.view().legal) == ["accept", "pass"]
    assert [c.detail for c in menu.choices] == ["Accepts the upcard", "Passes"]
    assert all(c.action in s.state().legal_actions() for c in menu.choices)
    _step_until(s, random.Random(2), lambda x: x.view().phase.startswith("trick"))
    menu = menu_for(s.view(), s.state())
    assert [c.label for c in menu.choices] == list(s.view().legal)
    assert all(c.kind == "card" and c.detail for c in menu.choices)


def test_ahyoheek_menu_has_every_seat_in_play_and_keeps_picks_secret():
    s = _session("ahyoheek", 3)
    menu = menu_for(s.view(), s.state())
    assert menu.seats == (0, 1, 2)
    assert [c.label for c in menu.for_seat(1)] == ["pen", "page", "beetle"]
    s.act(Action.make("pick", 1, pick="page"))
    s.act(Action.make("pick", 0, pick="pen"))
    menu = menu_for(s.view(), s.state())
    # the engine does not offer a seat its own pick again; the buttons must not tell
    for seat in (0, 1, 2):
        assert [c.label for c in menu.for_seat(seat)] == ["pen", "page", "beetle"]
    assert [c.action is None for c in menu.for_seat(1)] == [False, True, False]
    assert [c.action is None for c in menu.for_seat(0)] == [True, False, False]
    assert all(c.action in s.state().legal_actions() for c in menu.choices if c.action)


def test_yonac_collect_is_one_number_choice():
    s = _session("yonac", 3)
    menu = menu_for(s.view(), s.state())
    assert len(menu.counts) == 1
    count: Count = menu.counts[0]
    assert count.kind == "collect" and count.values[0] == 1 and count.values[-1] == 52
    assert count.action(3) == Action.make("collect", count.seat, count=3)
    with pytest.raises(ValueError, match="not one of the legal numbers"):
        count.action(99)


def test_a_finished_game_offers_nothing():
    s = _session("ahyoheek", 2)
    _step_until(s, random.Random(3), lambda x: x.view().over)
    assert menu_for(s.view(), s.state()) == type(menu_for(None, None))()


def test_dealer_choice_only_where_the_engine_allows_it():
    from companion.menus import dealer_choices

    assert dealer_choices("yokir", 3, {}) == [0, 1, 2]
    assert dealer_choices("ahyoheek", 3, {}) == []  # no deal at all
    assert dealer_choices("yonac", 4, {"threshold": 99}) == []  # a bad option: no choice


# -- settings file -------------------------------------------------------------------------

def test_prefs_round_trip_and_checks(tmp_path):
    path = tmp_path / "kiosk.json"
    assert load(path) == Prefs()
    p = Prefs(camera="cv:0").with_corners([(0.1, 0.2), (0.9, 0.1), (0.95, 0.9), (0.05, 0.95)])
    save(p, path)
    assert load(path) == p
    with pytest.raises(ValueError, match="four corners"):
        Prefs().with_corners([(0.1, 0.1)])
    with pytest.raises(ValueError, match="fractions"):
        Prefs().with_corners([(0, 0), (2, 0), (1, 1), (0, 1)])


def test_a_broken_settings_file_is_kept_aside(tmp_path):
    path = tmp_path / "kiosk.json"
    path.write_text(json.dumps({"camera": 3}))
    assert load(path) == Prefs()
    assert len(list(tmp_path.glob("kiosk.json.bad-*"))) == 1 and not path.exists()


# -- the camera feed -----------------------------------------------------------------------

@dataclass
class FakeFrame:
    image: np.ndarray
    t: float
    index: int


class FakeSource:
    """A source of `count` frames (None: endless), each a BGR image whose blue channel is
    its index; counts how often it was opened and closed."""

    def __init__(self, count: int | None = None, width: int = 1280, height: int = 720) -> None:
        self.count, self.width, self.height = count, width, height
        self.opened = self.closed = 0

    def __call__(self, uri: str):
        self.opened += 1
        source = self

        class _Ctx:
            def __enter__(self):
                return source._frames()

            def __exit__(self, *exc):
                source.closed += 1
        return _Ctx()

    def _frames(self):
        i = 0
        while self.count is None or i < self.count:
            image = np.zeros((self.height, self.width, 3), np.uint8)
            image[:, :, 0] = i % 256  # blue, in BGR
            yield FakeFrame(image, i / 30, i)
            i += 1


def _wait(condition, seconds=5.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def test_feed_delivers_the_latest_frame_scaled_and_in_rgb():
    source = FakeSource()
    notified = threading.Event()
    feed = CameraFeed(FeedConfig("fake", max_fps=200), notified.set, opener=source,
                      recognition=lambda c: (None, "no recognition here"))
    feed.start()
    try:
        assert _wait(lambda: feed.frames >= 5)
        assert notified.is_set() and feed.status == OK and feed.detail == "no recognition here"
        shot = feed.latest()
        assert shot.size == (640, 360)  # scaled down for the screen
        assert shot.image[0, 0, 2] == shot.index % 256 and shot.image[0, 0, 0] == 0  # BGR -> RGB
        assert shot.full is None
    finally:
        assert feed.stop(timeout=2.0)
    assert source.closed == source.opened == 1
    assert not feed.running


class FakeClock:
    """The feed's time, moved only by its waits: `until` seconds in, the feed is stopped."""

    def __init__(self, until: float) -> None:
        self.now, self.until = 0.0, until
        self.stopped = threading.Event()

    def monotonic(self) -> float:
        return self.now

    # the feed's stop event: waiting moves the clock instead of sleeping
    def wait(self, seconds: float) -> bool:
        self.now += seconds
        if self.now >= self.until - 1e-9:
            self.stopped.set()
        return self.stopped.is_set()

    def set(self) -> None:
        self.stopped.set()

    def clear(self) -> None:
        self.stopped.clear()

    def is_set(self) -> bool:
        return self.stopped.is_set()


def test_feed_paces_a_fast_source(monkeypatch):
    """A source that gives frames as fast as it can is read at max_fps: in half a second
    of the feed's (injected) clock, 10 frames at 20 frames a second, never hundreds."""
    import runtime.feed as feed_module

    clock = FakeClock(until=0.5)
    monkeypatch.setattr(feed_module, "time", clock)
    source = FakeSource()
    feed = CameraFeed(FeedConfig("fake", max_fps=20), opener=source,
                      recognition=lambda c: (None, ""))
    feed._stop = clock
    feed.start()
    assert clock.stopped.wait(10.0)  # real time only bounds a broken feed
    assert feed.stop(timeout=5.0)
    assert feed.frames == 10 and clock.now == pytest.approx(0.5)


def test_feed_reports_no_camera_when_the_source_cannot_open():
    def broken(uri):
        raise OSError("no such device")

    feed = CameraFeed(FeedConfig("cv:7"), opener=broken, recognition=lambda c: (None, ""))
    feed.start()
    assert _wait(lambda: feed.status == NO_CAMERA)
    assert "no such device" in feed.detail and "cv:7" in feed.detail
    assert feed.stop()


def test_feed_without_vision_sources_says_why(monkeypatch):
    import runtime.feed as camera

    def missing():
        raise camera.CameraUnavailable("camera sources are not installed (vision.sources: gone)")

    monkeypatch.setattr(camera, "vision_opener", missing)
    feed = CameraFeed(FeedConfig("synthetic:yokir"), recognition=lambda c: (None, ""))
    feed.start()
    assert _wait(lambda: feed.status == NO_CAMERA)
    assert "not installed" in feed.detail
    feed.stop()


def test_a_source_that_ends_is_reopened_when_looping_and_reported_otherwise():
    source = FakeSource(count=3)
    feed = CameraFeed(FeedConfig("fake", max_fps=500, loop=True), opener=source,
                      recognition=lambda c: (None, ""))
    feed.start()
    assert _wait(lambda: source.opened >= 3)
    feed.stop()
    once = FakeSource(count=3)
    feed = CameraFeed(FeedConfig("fake", max_fps=500), opener=once, recognition=lambda c: (None, ""))
    feed.start()
    assert _wait(lambda: feed.status == NO_CAMERA)
    assert "no more frames" in feed.detail and once.opened == 1
    feed.stop()


class FakeRecognition:
    """Stands for Recognition: one observation per frame, or an error on odd frames."""

    def __init__(self, fail_odd: bool = False) -> None:
        self.fail_odd = fail_odd

    def process(self, frame):
        if self.fail_odd and frame.index % 2:
            raise RuntimeError("templates missing")
        obs = Observation("placed", "MT", "seat 0 play", "play", seat=0, frame=frame.index)
        return [], [obs], OK


def test_observations_are_queued_in_order_and_bounded():
    source = FakeSource()
    feed = CameraFeed(FeedConfig("fake", max_fps=1000), opener=source,
                      recognition=lambda c: (FakeRecognition(), ""))
    feed.start()
    assert _wait(lambda: feed.frames >= MAX_PENDING_OBSERVATIONS + 20)
    feed.stop()
    taken = feed.take_observations()
    assert len(taken) == MAX_PENDING_OBSERVATIONS and feed.dropped_observations >= 20
    frames = [o.frame for o in taken]
    assert frames == sorted(frames)
    assert feed.take_observations() == []


def test_a_failing_recognizer_does_not_stop_the_pictures():
    feed = CameraFeed(FeedConfig("fake", max_fps=500), opener=FakeSource(),
                      recognition=lambda c: (FakeRecognition(fail_odd=True), ""))
    feed.start()
    assert _wait(lambda: feed.frames >= 10)
    feed.stop()
    assert feed.take_observations()  # the even frames still report


@dataclass
class _Card:
    corners_px: np.ndarray
    code: str | None


@dataclass
class _Stable:
    code: str
    visible: bool = True


@dataclass
class _Mat:
    ok: bool


@dataclass
class _Result:
    cards: list
    stable: list
    mat: _Mat | None
    observations: list = field(default_factory=list)


class PipelineLike:
    """The shape of vision.pipeline.Recognizer: process(image, t, index) -> FrameResult."""

    def __init__(self) -> None:
        self.images: list[np.ndarray] = []

    def process(self, image, t, index=None):
        self.images.append(image)
        h, w = image.shape[:2]
        quad = np.float32([(w / 4, h / 4), (w / 2, h / 4), (w / 2, h / 2), (w / 4, h / 2)])
        return _Result([_Card(quad, "MT"), _Card(quad + 10, None)], [_Stable("MT")], _Mat(ok=index != 3))


def test_recognition_maps_outlines_and_the_mat_status():
    pipeline = PipelineLike()
    rec = Recognition(pipeline)
    frame = FakeFrame(np.zeros((480, 640, 3), np.uint8), 0.0, 1)
    annotations, _, mat = rec.process(frame)
    assert [(a.label, a.state) for a in annotations] == [("MT", "stable"), ("?", "unknown")]
    assert annotations[0].points[0] == pytest.approx((160.0, 120.0))
    assert mat == OK
    assert rec.process(FakeFrame(frame.image, 0.1, 3))[2] == "mat lost"


def test_tapped_corners_rectify_the_table_and_map_outlines_back():
    pipeline = PipelineLike()
    corners = ((0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9))
    rec = Recognition(pipeline, corners)
    annotations, _, _ = rec.process(FakeFrame(np.zeros((500, 1000, 3), np.uint8), 0.0, 0))
    seen = pipeline.images[-1]
    assert seen.shape[:2] == (400, 800)  # only the table, top-down
    # the quad at a quarter of the rectified view lies a quarter into the table on screen
    x, y = annotations[0].points[0]
    assert x == pytest.approx(100 + 0.25 * 800, abs=1.5) and y == pytest.approx(50 + 0.25 * 400, abs=1.5)


def test_recognition_needs_a_deck():
    rec, why = Recognition.load(FeedConfig("synthetic:ahyoheek", game="ahyoheek", deck=None))
    assert rec is None and "no cards" in why


# -- theme -----------------------------------------------------------------------------------

def test_colour_is_never_alone():
    marks = [theme.ACCEPTED, theme.ILLEGAL, theme.NOTED, theme.INFO, theme.WARNING, theme.WINNER,
             *theme.CAMERA_MARKS.values()]
    for m in marks:
        assert m.glyph and m.word, m
    assert theme.verdict_mark(True, False).glyph != theme.verdict_mark(False, True).glyph
    assert theme.camera_mark("ok").glyph != theme.camera_mark("mat lost").glyph
    assert len(set(theme.SEAT_COLOURS)) == len(theme.SEAT_COLOURS)
    assert theme.BODY >= 20 and theme.TARGET >= 48


def test_symbol_font_ships_with_kivy():
    from pathlib import Path

    assert Path(theme.kivy_data_font(theme.SYMBOL_FONT)).is_file()


# -- the command -----------------------------------------------------------------------------

def test_no_display_is_one_line(monkeypatch, capsys):
    from companion import cli
    from companion.commands.kiosk import has_display

    assert has_display({"DISPLAY": ":0"}) and has_display({"SDL_VIDEODRIVER": "kmsdrm"})
    assert not has_display({}) and not has_display({"SDL_VIDEODRIVER": "x11"})
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(var, raising=False)
    assert cli.main(["kiosk"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no display" in err


def test_process_tuning_sets_what_is_missing_and_keeps_what_is_set():
    """`companion kiosk` makes BLAS single-threaded and malloc give memory back, unless
    the environment (the systemd unit, a person) already chose."""
    import platform

    from kiosk.boot import release_memory, tune_process

    chosen = {"OPENBLAS_NUM_THREADS": "4", "MALLOC_ARENA_MAX": "8", "MALLOC_MMAP_THRESHOLD_": "65536",
              "MALLOC_TRIM_THRESHOLD_": "131072"}
    env = dict(chosen)
    assert tune_process(env) == {"OMP_NUM_THREADS": "1"}
    assert env == {**chosen, "OMP_NUM_THREADS": "1"}

    env = {}
    done = tune_process(env)
    assert env == {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert ("MALLOC_ARENA_MAX" in done and "MALLOC_MMAP_THRESHOLD_" in done
            and "MALLOC_TRIM_THRESHOLD_" in done) == glibc
    assert release_memory() == glibc


def test_bad_window_size_is_a_usage_error(capsys):
    from companion import cli

    assert cli.main(["kiosk", "--size", "huge"]) == 2
    assert "WIDTHxHEIGHT" in capsys.readouterr().err


def test_games_are_makeable_with_their_defaults():
    for name in games():
        assert make_game(name).players == games()[name].default_players


def test_piktas_touch_menu_offers_every_move(tmp_path):
    """Piktas's view lists the hand's cards, but its moves are a pass and swaps of a hand
    card for a field card: the menu offers each of them, the pass among them."""
    store = Store(tmp_path / "c.db")
    session = Session.start(store, "piktas", ["Ann", "Bea", "Cleo"])
    rng = random.Random(1)
    while session.state().is_chance():
        session.step_bot(rng)
    state = session.state()
    menu = menu_for(session.view(), state)
    assert sorted(map(str, (c.action for c in menu.choices))) == sorted(map(str, state.legal_actions()))
    assert "pass" in {c.action.kind for c in menu.choices}
    store.close()
