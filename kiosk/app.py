"""The kiosk app: the screens, the session in play, the camera and the panel.

`CompanionApp` is the only object the screens talk to: kv rules bind to its properties
(`view`, the session's latest `ViewModel`; `menu`, what a touch may do now; the camera's
`shot` and status) and call its verbs (`choose_game`, `start_game`, `play_card`, `bid`,
`pick`, `deal`, `undo`, `confirm`, `open_history`, ...). The verbs hand everything to the
session and its engine; no screen decides what is legal, who won or what anyone scores.

Threads: the session calls its subscribers on whichever thread made the change, the
camera reads on its own thread and gpiozero calls buttons back on its threads. All of
them only hand over (the latest view model, the latest frame, queued observations and
presses) and fire a Kivy Clock trigger; the UI thread does the rest. Nothing on the UI
thread waits for the camera.

Kivy must be configured before this module is imported (see `kiosk.configure`).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Keyboard, Window
from kivy.lang import Builder
from kivy.properties import (
    BooleanProperty,
    DictProperty,
    ListProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.behaviors import FocusBehavior
from kivy.uix.screenmanager import NoTransition, ScreenManager

from companion import table
from companion.catalog import CATALOG, game_info, game_names
from companion.errors import CompanionError
from companion.menus import Menu, dealer_choices, menu_for, with_dealer
from companion.session import Session
from companion.storage import GameRecord, PlayerRating, Store
from companion.viewmodel import Verdict, ViewModel
from kiosk import prefs as prefs_mod
from kiosk import theme
from kiosk.camera import NO_CAMERA, OFF, STARTING, CameraFeed, FeedConfig

if TYPE_CHECKING:
    from companion.games import Action

log = logging.getLogger(__name__)

KIOSK_DIR = Path(__file__).resolve().parent
SCREENS = ("home", "setup", "play", "history", "rules", "settings")
#: Seconds without a new frame after which a running camera counts as lost.
FRAME_TIMEOUT_S = 3.0
PANEL_POLL_HZ = 30
_KEY_NAMES = {code: name for name, code in Keyboard.keycodes.items()}


def load_kv() -> None:
    """Load the shared widgets' rules and one .kv file per screen (once per process)."""
    from kiosk import history, home, play, rules, settings, setup  # noqa: F401  (registers classes)

    for name in ("widgets", *SCREENS):
        path = str(KIOSK_DIR / f"{name}.kv")
        if path not in Builder.files:
            Builder.load_file(path)


class CompanionApp(App):
    """The touchscreen. `store` holds the games; `source` is the camera source (None:
    the one in the kiosk settings, "synthetic" by default; "none": no camera).
    `panel`: "auto" (a gpiozero panel when a pin map is configured, else the keyboard
    panel), "keyboard", "none", or a `hardware.panel.Panel` to use."""

    title = "Table Companion"

    view: ViewModel | None = ObjectProperty(None, allownone=True, rebind=True)
    menu: Menu = ObjectProperty(Menu(), rebind=True)
    game_name = StringProperty("")  # the game being set up or played
    message = StringProperty("")  # a refusal or a problem, shown on the current screen
    teach_sheet = StringProperty("")  # the contact sheet of the deck just taught (a PNG path)
    shot = ObjectProperty(None, allownone=True, rebind=True)  # the latest camera frame (kiosk.camera.Shot)
    camera_status = StringProperty(OFF)
    camera_detail = StringProperty("")
    camera_source = StringProperty("")
    corners = ListProperty()  # table corners tapped on the settings screen (image fractions)
    finished = ListProperty()  # GameRecords for the history screen
    unfinished = ListProperty()
    ratings = ListProperty()  # PlayerRatings
    stored_players = ListProperty()  # names, for the setup screen
    pin_test = BooleanProperty(False)
    pin_presses = DictProperty()  # part name -> presses seen in the pin test
    lit_part = StringProperty("")  # the output lit by light_outputs now
    # while teaching a deck: {"deck", "name", "codes", "index", "folder", "saved", "learning"}
    teach = DictProperty()
    has_game = BooleanProperty(False)

    def __init__(self, store: Store, *, source: str | None = None, prefs_path: Path | None = None,
                 panel: Any = "auto", pins: str | None = None, seed: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.store = store
        self.prefs_path = prefs_path or prefs_mod.default_dir(store.path) / prefs_mod.FILE_NAME
        self.prefs = prefs_mod.load(self.prefs_path)
        if pins:
            self.prefs = prefs_mod.Prefs(self.prefs.camera, self.prefs.corners, pins, self.prefs.extra)
        self.camera_source = source or self.prefs.camera
        self.corners = [list(p) for p in self.prefs.corners]
        self.session: Session | None = None
        self.rng = random.Random(seed)
        self.first_dealer: int | None = None
        self.feed: CameraFeed | None = None
        self.panel: Any = None
        self.controller: Any = None
        self._panel_choice = panel
        self._pending_view: ViewModel | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._last_frame_at = 0.0
        self._last_frame_count = 0
        self._view_trigger = Clock.create_trigger(self._apply_view, 0)
        self._camera_trigger = Clock.create_trigger(self._apply_camera, 0)
        self._led_event: Any = None
        self._previous = ""
        self._current = "home"

    # -- building --------------------------------------------------------------------
    def build(self) -> ScreenManager:
        load_kv()
        from kiosk.history import HistoryScreen
        from kiosk.home import HomeScreen
        from kiosk.play import PlayScreen
        from kiosk.rules import RulesScreen
        from kiosk.settings import SettingsScreen
        from kiosk.setup import SetupScreen

        Window.clearcolor = theme.BACKGROUND
        _register_adapters()
        manager = ScreenManager(transition=NoTransition())
        for cls, name in ((HomeScreen, "home"), (SetupScreen, "setup"), (PlayScreen, "play"),
                          (HistoryScreen, "history"), (RulesScreen, "rules"),
                          (SettingsScreen, "settings")):
            manager.add_widget(cls(name=name))
        manager.bind(current=self._screen_changed)
        self._open_panel()
        Window.bind(on_key_down=self._key_down, on_key_up=self._key_up)
        Clock.schedule_interval(self._poll_panel, 1 / PANEL_POLL_HZ)
        Clock.schedule_interval(self._watch_camera, 1.0)
        self.refresh_players()
        return manager

    def on_stop(self) -> None:
        self._stop_camera()
        self.detach()
        if self.panel is not None:
            try:
                self.panel.close()
            except Exception:
                log.exception("closing the panel failed")

    def screen(self, name: str) -> Any:
        """The screen called `name` (for tests and the screenshot tool)."""
        return self.root.get_screen(name)

    # -- navigation ------------------------------------------------------------------
    def go(self, name: str) -> None:
        """Show the screen `name`."""
        if name not in SCREENS:
            raise ValueError(f"no screen {name!r}; the screens are {', '.join(SCREENS)}")
        self.message = ""
        self.root.current = name

    def go_home(self) -> None:
        """The home screen; a game in play stays open and can be taken up again."""
        self.go("home")

    def go_back(self) -> None:
        """The screen shown before this one (home when there was none)."""
        previous = self._previous if self._previous in SCREENS else "home"
        if previous == "play" and self.session is None:
            previous = "home"
        self.go(previous)

    def back_to_game(self) -> None:
        if self.session is not None:
            self.go("play")

    def open_history(self) -> None:
        self.load_history()
        self.go("history")

    def open_rules(self, game: str = "") -> None:
        """The rules screen, at `game` (default: the game in play or being set up)."""
        self.screen("rules").game = game or self.game_name or next(iter(game_names()), "")
        self.go("rules")

    def open_settings(self) -> None:
        self.go("settings")

    def _screen_changed(self, _manager: Any, name: str) -> None:
        self._previous, self._current = self._current, name
        wants_camera = name == "play" or (name == "settings" and self.screen("settings").needs_camera)
        if wants_camera:
            self.start_camera()
        else:
            self._stop_camera()
        if name != "settings" and self.pin_test:
            self.stop_pin_test()

    # -- choosing and starting a game ------------------------------------------------
    def game_titles(self) -> list[tuple[str, str, str]]:
        """(name, title, players) of every registered game, for the home screen."""
        from kiosk.text import players_span

        return [(name, CATALOG[name].title, players_span(CATALOG[name].min_players,
                                                          CATALOG[name].max_players))
                for name in game_names()]

    def choose_game(self, name: str) -> None:
        """The setup screen for the game `name`."""
        name = game_info(name).name
        self.game_name = name
        self.refresh_players()
        self.screen("setup").prepare(name)
        self.go("setup")

    def refresh_players(self) -> None:
        try:
            self.stored_players = [p.name for p in self.store.players()]
        except CompanionError as exc:
            log.warning("cannot read the players: %s", exc)
            self.stored_players = []

    def dealer_seats(self, game: str, players: int, options: dict[str, Any]) -> list[int]:
        """The seats the table may name as first dealer ([] when the game decides)."""
        return dealer_choices(game, players, options)

    def start_game(self, names: Sequence[str], options: dict[str, Any] | None = None,
                   dealer: int | None = None) -> bool:
        """Start a game of the chosen game between `names` (by seat) and show it; a
        refusal (a bad option, a name used twice) goes to `message` and returns False."""
        try:
            session = Session.start(self.store, self.game_name, list(names), **(options or {}))
        except CompanionError as exc:
            self.message = str(exc)
            return False
        self.first_dealer = dealer if dealer is not None and dealer >= 0 else None
        self.attach(session)
        self.go("play")
        return True

    def resume_game(self, game_id: int) -> bool:
        """Take up the stored game `game_id` where its log stops."""
        try:
            session = Session.resume(self.store, game_id)
        except CompanionError as exc:
            self.message = str(exc)
            return False
        self.game_name = session.game.name
        self.first_dealer = None
        self.attach(session)
        self.go("play")
        return True

    def end_game(self) -> None:
        """Close the game in play (it stays stored) and go home."""
        self.detach()
        self.go_home()

    def attach(self, session: Session) -> None:
        """Show `session` on the play screen's data (also for a session started elsewhere,
        such as the demo's): subscribe to it, and let the panel drive it."""
        self.detach()
        self.game_name = session.game.name
        self.session = session
        self.has_game = True
        self._unsubscribe = session.subscribe(self._published)
        self._open_controller()
        self._link_feed()
        if self.feed is None and self.camera_source == prefs_mod.NO_CAMERA:
            session.set_camera(NO_CAMERA)
        self._show(session.view())

    def detach(self) -> None:
        """Stop showing the session (it stays stored and can be resumed)."""
        if self.controller is not None:
            try:
                self.controller.close()
            except Exception:
                log.exception("closing the panel controller failed")
            self.controller = None
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.session = None
        self.has_game = False
        self.view = None
        self.menu = Menu()

    # -- the session's pictures ---------------------------------------------------------
    def _published(self, view: ViewModel) -> None:
        """A subscriber of the session (any thread): keep the latest, wake the UI."""
        self._pending_view = view
        self._view_trigger()

    def _apply_view(self, *_: Any) -> None:
        view, self._pending_view = self._pending_view, None
        if view is not None and self.session is not None:
            self._show(view)

    def _show(self, view: ViewModel) -> None:
        self.menu = menu_for(view, self.session.state() if self.session else None)
        self.view = view

    def _after_input(self) -> None:
        """Show the session's picture now (a call that publishes nothing still shows)."""
        if self.session is not None:
            self._pending_view = self.session.view()
            self._view_trigger()

    # -- touch input: every verb hands the engine's own action to the session ----------
    def act(self, action: Action) -> Verdict | None:
        """Send one action to the session, from the touchscreen."""
        if self.session is None:
            return None
        try:
            verdict = self.session.act(action, source="touch")
        except CompanionError as exc:  # storage trouble: say so, keep the game
            self.message = str(exc)
            return None
        self.message = ""
        self._after_input()
        return verdict

    def play_card(self, code: str) -> Verdict | None:
        """The seat to act plays (or discards) the card `code`, one of the offered cards."""
        choice = self.menu.find(code)
        if choice is None or choice.kind != "card" or choice.action is None:
            self.message = f"{code} is not among the cards offered now"
            return None
        return self.act(choice.action)

    def bid(self, label: str) -> Verdict | None:
        """The seat to act makes the offered choice `label` (a bid: "accept", "pass", "T")."""
        choice = self.menu.find(label)
        if choice is None or choice.action is None:
            self.message = f"{label!r} is not among the choices now"
            return None
        return self.act(choice.action)

    def pick(self, seat: int, item: str) -> Verdict | None:
        """Seat `seat` makes its secret pick `item` (Ahyoheek: pen, page, beetle)."""
        choice = self.menu.find(item, seat)
        if choice is None:
            self.message = f"seat {seat} cannot pick {item} now"
            return None
        if choice.action is None:  # the seat's pick already: nothing changes, nothing shows
            return None
        return self.act(choice.action)

    def choose(self, index: int) -> Verdict | None:
        """The offered choice number `index` (menu order): a move the engine words."""
        if not 0 <= index < len(self.menu.choices):
            return None
        action = self.menu.choices[index].action
        return self.act(action) if action is not None else None

    def count(self, index: int, value: int) -> Verdict | None:
        """The number choice `index` with `value` (Yonac: collect `value` cards)."""
        try:
            action = self.menu.counts[index].action(int(value))
        except (IndexError, ValueError) as exc:
            self.message = str(exc)
            return None
        return self.act(action)

    def deal(self) -> Verdict | None:
        """The chance move due now, dealt on screen by the engine (every hand known: the
        screen then shows each seat's exact legal plays). The table's chosen first
        dealer is used when the engine accepts it."""
        if self.session is None:
            return None
        state = self.session.state()
        if not state.is_chance():
            return None
        try:
            action = state.sample_chance(self.rng)
        except CompanionError as exc:
            self.message = str(exc)
            return None
        if self.first_dealer is not None and "dealer" in dict(action.data):
            chosen = with_dealer(action, self.first_dealer)
            try:
                state.check(chosen)
                action = chosen
            except CompanionError:
                pass
            self.first_dealer = None
        return self.act(action)

    def undo(self) -> bool:
        """Take back the last accepted move (False when there is none)."""
        if self.session is None:
            return False
        try:
            done = self.session.undo(source="touch")
        except CompanionError as exc:
            self.message = str(exc)
            return False
        self._after_input()
        return done

    def redo(self) -> bool:
        if self.session is None:
            return False
        try:
            done = self.session.redo(source="touch")
        except CompanionError as exc:
            self.message = str(exc)
            return False
        self._after_input()
        return done

    def confirm(self) -> None:
        """Accept the referee's call on an illegal input."""
        if self.session is None:
            return
        try:
            self.session.confirm(source="touch")
        except CompanionError as exc:
            self.message = str(exc)
            return
        self._after_input()

    # -- history ----------------------------------------------------------------------
    def load_history(self) -> None:
        """Read finished and unfinished games and the ratings for the history screen."""
        try:
            finished: list[GameRecord] = list(reversed(self.store.games("finished")))
            unfinished: list[GameRecord] = list(reversed(self.store.games("playing")))
            ratings: list[PlayerRating] = self.store.ratings()
        except CompanionError as exc:
            self.message = str(exc)
            return
        self.finished, self.unfinished, self.ratings = finished, unfinished, ratings

    # -- the camera ------------------------------------------------------------------
    def resolved_source(self) -> str:
        """The camera source to open: "synthetic" becomes the endless synthetic table of the
        game in play, for its number of players ("synthetic:yokir?frames=0&players=3")."""
        source = self.camera_source.strip() or prefs_mod.SYNTHETIC
        if source != prefs_mod.SYNTHETIC:
            return source
        game = self.game_name or "yokir"
        players = f"&players={len(self.session.players)}" if self.session is not None else ""
        return f"synthetic:{game}?frames=0{players}"

    def start_camera(self) -> None:
        """Start reading the camera (no-op when it runs or the source is "none")."""
        if self.feed is not None:
            return
        if self.camera_source == prefs_mod.NO_CAMERA:
            self._set_camera(OFF, "every play is entered by touch")
            return
        if self.game_name and self.deck_in_play() is None:
            title = game_info(self.game_name).title
            self._set_camera(OFF, f"{title} has no cards: every move comes from the buttons or "
                                  f"the screen")
            return
        source = self.resolved_source()
        config = FeedConfig(source, game=self.game_name or None,
                            players=len(self.session.players) if self.session else None,
                            deck=self.deck_in_play(), corners=tuple(tuple(p) for p in self.corners),
                            loop=source.startswith(prefs_mod.SYNTHETIC))
        self.feed = self._make_feed(config)
        self._link_feed()
        self._last_frame_count = 0
        self._last_frame_at = Clock.get_boottime()
        self._set_camera(STARTING, f"opening {config.source}")
        self.feed.start()

    def deck_in_play(self) -> str | None:
        """The deck the camera reads for the game in play: the game's own, or the deck
        taught for it on the settings screen (kept in the kiosk settings)."""
        if not self.game_name:
            return None
        try:
            deck = game_info(self.game_name).deck
        except CompanionError:
            return None
        taught = self.prefs.extra.get("decks", {})
        return taught.get(deck, deck) if deck and isinstance(taught, dict) else deck

    def judges_camera(self) -> bool:
        """Are the camera's observations moves of the game? Not from the synthetic table:
        it lays random cards of the deck, a picture of the camera working, not this game."""
        return not self.resolved_source().startswith(prefs_mod.SYNTHETIC)

    def _make_feed(self, config: FeedConfig) -> CameraFeed:
        """The feed for `config` (tests replace this to inject a source)."""
        return CameraFeed(config, self._camera_trigger)

    def _link_feed(self) -> None:
        """Let the session teach the camera's recognizer (its prior, the answers: issue 17)."""
        if self.feed is not None and self.session is not None and self.judges_camera() \
                and hasattr(self.feed, "link"):
            self.feed.link(self.session)

    def stop_camera(self) -> None:
        """Stop reading the camera (the screens that show it start it again)."""
        self._stop_camera()

    def _stop_camera(self) -> None:
        feed, self.feed = self.feed, None
        # The thread checks for the stop between frames (a camera gives one every 33 ms);
        # the UI never waits long for a camera stuck in a read: it is left to end alone.
        if feed is not None and not feed.stop(timeout=0.5):
            log.warning("the camera thread is still reading; it will stop after its frame")
        self.shot = None
        self._set_camera(OFF, "")

    def restart_camera(self) -> None:
        running = self.feed is not None
        self._stop_camera()
        if running or self.root.current == "play":
            self.start_camera()

    def set_camera_source(self, source: str) -> None:
        """Use `source` from now on (saved in the kiosk settings)."""
        source = source.strip()
        if not source:
            self.message = "Name a camera source (synthetic, picamera2, cv:0, file:PATH, dir:PATH)"
            return
        self.camera_source = source
        self._save_prefs(camera=source)
        self.restart_camera()

    def _set_camera(self, status: str, detail: str) -> None:
        self.camera_status = status
        self.camera_detail = detail
        if self.session is not None and status in ("ok", "no camera", "mat lost"):
            self.session.set_camera(status)
        elif self.session is not None and status == OFF and self.camera_source == prefs_mod.NO_CAMERA:
            self.session.set_camera(NO_CAMERA)

    def _apply_camera(self, *_: Any) -> None:
        """The camera thread has news (UI thread): the frame, the status, observations."""
        feed = self.feed
        if feed is None:
            return
        shot = feed.latest()
        if shot is not None and shot is not self.shot:
            self.shot = shot
            self._last_frame_at = Clock.get_boottime()
        if (feed.status, feed.detail) != (self.camera_status, self.camera_detail):
            self._set_camera(feed.status, feed.detail)
        questions = feed.take_questions() if hasattr(feed, "take_questions") else []
        if questions and self.session is not None and self.judges_camera():
            for question in questions:  # published at once: on screen with the next frame
                self.session.ask(question)
        observations = feed.take_observations()
        if observations and self.session is not None and self.judges_camera():
            if table.adapter_for(self.session.game.name) is None:
                log.info("no table adapter for %s: %d observations shown, not judged",
                         self.session.game.name, len(observations))
                return
            for obs in observations:
                try:
                    self.session.observe(obs, source="vision")
                except CompanionError as exc:
                    self.message = str(exc)
            self._after_input()

    def _watch_camera(self, *_: Any) -> None:
        feed = self.feed
        if feed is None or feed.status != "ok":
            return
        if feed.frames != self._last_frame_count:
            self._last_frame_count = feed.frames
            self._last_frame_at = Clock.get_boottime()
        elif Clock.get_boottime() - self._last_frame_at > FRAME_TIMEOUT_S:
            self._set_camera(NO_CAMERA, f"no frame from {feed.config.source} for "
                                        f"{FRAME_TIMEOUT_S:g} s")

    # -- calibration without a mat ----------------------------------------------------
    def add_corner(self, x: float, y: float) -> None:
        """A tap on the camera image at (x, y) (fractions): the next table corner."""
        if len(self.corners) >= 4:
            self.corners = []
        self.corners = [*self.corners, [round(float(x), 4), round(float(y), 4)]]

    def clear_corners(self) -> None:
        self.corners = []

    def save_corners(self) -> bool:
        """Keep the four tapped corners for the camera's recognizer (and restart it)."""
        if self.corners and len(self.corners) != 4:
            self.message = f"Tap all four corners first ({len(self.corners)} of 4)"
            return False
        self._save_prefs(corners=[tuple(p) for p in self.corners])
        self.restart_camera()
        return True

    def _save_prefs(self, **changes: Any) -> None:
        p = self.prefs
        try:
            if "corners" in changes:
                p = p.with_corners(changes["corners"])
            if "camera" in changes:
                p = prefs_mod.Prefs(changes["camera"], p.corners, p.pins, p.extra)
            if "extra" in changes:
                p = prefs_mod.Prefs(p.camera, p.corners, p.pins, dict(changes["extra"]))
            prefs_mod.save(p, self.prefs_path)
        except (OSError, ValueError) as exc:
            self.message = f"cannot save the settings: {exc}"
            return
        self.prefs = p

    # -- teaching a deck --------------------------------------------------------------
    def teach_start(self, deck: str) -> None:
        """Teach the companion a deck whose faces differ from the project's art: the
        screen asks for each card in turn, Capture photographs it, and at the end
        `vision.learn` makes the templates (deck "my-DECK", then read instead of DECK)."""
        from companion.cards import get_deck

        try:
            codes = list(get_deck(deck).codes)
        except CompanionError as exc:
            self.message = str(exc)
            return
        name = f"my-{deck}"
        folder = self.prefs_path.parent / "teach" / name
        self.message = ""
        self.teach = {"deck": deck, "name": name, "codes": codes, "index": 0, "folder": str(folder),
                      "saved": 0, "learning": False}
        if self.feed is None:
            self.start_camera()
        if self.feed is not None:
            self.feed.keep_full = True

    def teach_capture(self) -> bool:
        """Save the latest full camera frame as the photo of the card asked for; next."""
        if not self.teach or self.teach.get("learning"):
            return False
        shot = self.feed.latest() if self.feed else None
        if shot is None or shot.full is None:
            self.message = "No camera picture yet: check the camera source"
            return False
        import cv2

        code = self.teach["codes"][self.teach["index"]]
        path = Path(self.teach["folder"]) / f"{code}.png"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not cv2.imwrite(str(path), shot.full):
                raise OSError(f"cannot write {path}")
        except OSError as exc:
            self.message = str(exc)
            return False
        self.teach = {**self.teach, "saved": self.teach["saved"] + 1}
        self.teach_skip()
        return True

    def teach_skip(self) -> None:
        """On to the next card (the last one ends the session and learns the photos)."""
        if not self.teach or self.teach.get("learning"):
            return
        index = self.teach["index"] + 1
        if index >= len(self.teach["codes"]):
            self.teach_stop()
            return
        self.teach = {**self.teach, "index": index}

    def teach_stop(self) -> None:
        """End the session; the photos taken so far are learned (off the UI thread)."""
        if not self.teach or self.teach.get("learning"):
            return
        if self.feed is not None:
            self.feed.keep_full = False
        if not self.teach["saved"]:
            self.teach = {}
            return
        self.teach = {**self.teach, "learning": True}
        self.message = f"Learning {self.teach['saved']} cards..."
        job = dict(self.teach)
        threading.Thread(target=self._learn, args=(job,), name="teach a deck", daemon=True).start()

    def _learn(self, job: dict[str, Any]) -> None:
        """Thread: build the learned deck from the photos, then report on the UI thread."""
        try:
            from vision import learn

            report = learn.learn_from_dir(job["name"], job["deck"], job["folder"])
            text = (f"Learned {len(report.learned)} cards as {report.deck}"
                    + (f"; {len(report.missing)} still missing" if report.missing else "")
                    + (f"; {len(report.refused)} photos refused" if report.refused else "")
                    + "".join(f"; {a}" for a in report.alike[:2]))
            sheet = self._write_sheet(learn, report.deck)
            ok = True
        except (ImportError, CompanionError, OSError) as exc:
            text, ok, sheet = f"Nothing learned: {exc}", False, ""
        Clock.schedule_once(lambda _dt: self._learned(job, text, ok, sheet), 0)

    @staticmethod
    def _write_sheet(learn, deck: str) -> str:
        """The contact sheet of what was learned, for the teaching screen to show (a new
        name each time: Kivy keeps images by name)."""
        from companion.outputs import write_atomically

        folder = learn.decks_dir() / deck
        for old in folder.glob("sheet-*.png"):
            old.unlink(missing_ok=True)
        path = folder / f"sheet-{time.time_ns()}.png"
        write_atomically(path, learn.contact_sheet(deck))
        return str(path)

    def _learned(self, job: dict[str, Any], text: str, ok: bool, sheet: str = "") -> None:
        self.teach_sheet = sheet
        if ok:
            decks = dict(self.prefs.extra.get("decks") or {})
            decks[job["deck"]] = job["name"]
            self._save_prefs(extra={**self.prefs.extra, "decks": decks})
        self.teach = {}
        self.message = text

    # -- the panel: buttons and LEDs ---------------------------------------------------
    def _open_panel(self) -> None:
        choice = self._panel_choice
        if choice in (None, "none"):
            return
        if choice not in ("auto", "keyboard"):
            self.panel = choice
            return
        try:
            if choice == "auto" and self.prefs.pins:
                from hardware.panel import Panel
                from hardware.pinmap import load_pinmap

                self.panel = Panel(load_pinmap(self.prefs.pins))
                return
        except (ImportError, CompanionError) as exc:
            self.message = f"The panel is not available ({exc}); the keyboard works instead"
            log.warning("panel: %s", exc)
        try:
            from hardware.keyboard import KeyboardPanel
        except ImportError as exc:
            log.info("no keyboard panel: %s", exc)
            return
        self.panel = KeyboardPanel()

    def _open_controller(self) -> None:
        if self.panel is None or self.session is None:
            return
        try:
            from hardware.controller import PanelController
        except ImportError as exc:
            log.info("no panel controller: %s", exc)
            return
        self.controller = PanelController(self.panel, self.session, on_menu=self.go_home)

    def _poll_panel(self, *_: Any) -> None:
        if self.panel is None:
            return
        if self.pin_test:
            for event in self.panel.drain():
                part = self.panel.part(event)
                name = part.name if part is not None else str(event)
                self.pin_presses = {**self.pin_presses, name: self.pin_presses.get(name, 0) + 1}
            return
        if self.controller is None:
            self.panel.drain()  # presses with no game in play mean nothing
            return
        try:
            if self.controller.poll():
                self._after_input()
        except Exception:
            log.exception("panel poll failed")

    def panel_parts(self) -> list[tuple[str, str, str]]:
        """(part name, where it is wired, keys that press it) of every panel button."""
        if self.panel is None:
            return []
        keys_for = getattr(self.panel, "keys_for", None)
        return [(part.name, part.where, ", ".join(keys_for(event)) if keys_for else "")
                for event, part, _ in self.panel.buttons()]

    def panel_outputs(self) -> list[tuple[str, str]]:
        if self.panel is None:
            return []
        return [(part.name, part.where) for part, _ in self.panel.outputs()]

    def start_pin_test(self) -> None:
        """Show every button press on the settings screen instead of playing it."""
        if self.panel is None:
            self.message = "No panel: configure a pin map, or use the keyboard"
            return
        self.panel.drain()
        self.pin_presses = {}
        self.pin_test = True

    def stop_pin_test(self) -> None:
        self.pin_test = False
        if self._led_event is not None:
            self._led_event.cancel()
            self._led_event = None
        self.lit_part = ""
        if self.panel is not None:
            self.panel.all_off()

    def light_outputs(self, step: float = 0.5) -> None:
        """Light each LED (and beep the buzzer) in turn, `step` seconds each."""
        if self.panel is None:
            return
        outputs = list(self.panel.outputs())
        state = {"i": 0}

        def next_one(_dt: float) -> bool:
            for _, device in outputs:
                device.off()
            if state["i"] >= len(outputs):
                self.lit_part = ""
                self._led_event = None
                return False
            part, device = outputs[state["i"]]
            device.on()
            self.lit_part = part.name
            state["i"] += 1
            return True

        if self._led_event is not None:
            self._led_event.cancel()
        next_one(0)
        self._led_event = Clock.schedule_interval(next_one, step)

    def _key_down(self, _window: Any, key: int, _scancode: int, _text: str | None,
                  _modifiers: list[str]) -> bool:
        if self.panel is None or not hasattr(self.panel, "key_down") or _typing():
            return False
        name = _KEY_NAMES.get(key, "")
        return bool(name) and self.panel.key_down(name)

    def _key_up(self, _window: Any, key: int, _scancode: int) -> bool:
        if self.panel is None or not hasattr(self.panel, "key_up") or _typing():
            return False
        name = _KEY_NAMES.get(key, "")
        return bool(name) and self.panel.key_up(name)


def _register_adapters() -> None:
    """Register the games' table adapters (camera observations to moves), if installed."""
    try:
        from companion.adapters import register_all
    except ImportError as exc:
        log.info("no table adapters: %s", exc)
        return
    register_all()


def _typing() -> bool:
    """Is a text field taking the keyboard? (Then keys type; they press no button.)"""
    return any(w is not None and getattr(w, "focus", False)
               for w in FocusBehavior._keyboards.values())
