"""The kiosk app: a thin bridge from Kivy's properties to the table (`runtime.table`).

`CompanionApp` is the only object the screens talk to: kv rules bind to its properties
(`view`, the session's latest `ViewModel`; `menu`, what a touch may do now; the camera's
`shot` and status; the settings' corners, teaching and pin test) and call its verbs
(`choose_game`, `start_game`, `play_card`, `bid`, `pick`, `deal`, `undo`, `confirm`,
`open_history`, ...). Each verb is one call to its screen's controller
(`runtime.screens`, in `controllers`); a refusal becomes `message`.
No rules, no camera work, no files and no threads here: the table owns the session,
the camera (recognition in its own process), the panel, the settings, calibration and
deck teaching. This module only navigates between the screens and copies the table's
state into Kivy properties (`_sync`) after each verb and each time the table wakes it.

Threads: the table's other threads (the session's subscribers, the camera's reader, the
learning thread) only call `wake`, a Kivy Clock trigger; the UI thread then runs
`table.pump()` and `_sync()`. Nothing on the UI thread waits for the camera.

Kivy must be configured before this module is imported (see `kiosk.boot.configure`).
"""

from __future__ import annotations

import logging
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

from companion.catalog import game_info, game_names
from companion.errors import CompanionError
from companion.menus import Menu
from companion.storage import Store
from companion.viewmodel import Verdict, ViewModel
from kiosk import theme
from runtime.feed import OFF, FeedConfig
from runtime.memory import release_memory
from runtime.screens import Controllers, Home
from runtime.table import Table

if TYPE_CHECKING:
    from companion.games import Action

log = logging.getLogger(__name__)

KIOSK_DIR = Path(__file__).resolve().parent
SCREENS = ("home", "setup", "play", "history", "rules", "settings")
PANEL_POLL_HZ = 30
#: How often the UI looks whether a screen changed since it last gave freed memory back
#: (`tidy_memory`): a screen's widgets are built and laid out in the frames after it is
#: shown, and what that frees stays inside malloc's arenas until trimmed.
TIDY_EVERY_S = 2.0
_KEY_NAMES = {code: name for name, code in Keyboard.keycodes.items()}
#: The table's attributes that the app's own properties may also set (see `_to_table`).
TWO_WAY = ("game_name", "message", "shot", "camera_status", "camera_detail", "camera_source", "corners")
#: The table's attributes the screens read, copied into the app's Kivy properties.
SYNCED = ("game_name", "message", "teach_sheet", "shot", "camera_status", "camera_detail",
          "camera_source", "corners", "teach", "pin_test", "pin_presses", "lit_part", "has_game",
          "menu", "view")


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
    panel), "keyboard", "none", or a `hardware.panel.Panel` to use. `vision_process`:
    recognition in a process of its own (the default) or on a thread."""

    title = "Table Companion"

    view: ViewModel | None = ObjectProperty(None, allownone=True, rebind=True)
    menu: Menu = ObjectProperty(Menu(), rebind=True)
    game_name = StringProperty("")  # the game being set up or played
    message = StringProperty("")  # a refusal or a problem, shown on the current screen
    teach_sheet = StringProperty("")  # the contact sheet of the deck just taught (a PNG path)
    shot = ObjectProperty(None, allownone=True, rebind=True)  # the latest camera frame (runtime.feed.Shot)
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
    calibration = DictProperty()  # the camera calibration in progress (runtime.calibrate), {} when none

    def __init__(self, store: Store, *, source: str | None = None, prefs_path: Path | None = None,
                 panel: Any = "auto", pins: str | None = None, seed: int | None = None,
                 vision_process: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._wake = Clock.create_trigger(self._woken, 0)
        self.table = Table(store, source=source, prefs_path=prefs_path, panel=panel, pins=pins,
                           seed=seed, wake=self._wake, vision_process=vision_process,
                           clock=Clock.get_boottime)
        self.table.make_feed = lambda config: self._make_feed(config)
        self.table.on_menu = self.go_home
        #: one controller per screen (runtime.screens): the verbs below call them
        self.controllers = Controllers(self.table)
        for name in TWO_WAY:
            self.fbind(name, lambda _app, value, name=name: self._to_table(name, value))
        self._previous = ""
        self._current = "home"
        self._screens_shown = 0  # screen changes so far, and at the last tidy_memory
        self._tidied_at = -1
        self._sync()

    # -- the table, as the screens and tests name its parts ----------------------------
    store = property(lambda self: self.table.store, lambda self, v: setattr(self.table, "store", v))
    prefs = property(lambda self: self.table.prefs, lambda self, v: setattr(self.table, "prefs", v))
    prefs_path = property(lambda self: self.table.prefs_path)
    session = property(lambda self: self.table.session)
    feed = property(lambda self: self.table.feed)
    panel = property(lambda self: self.table.panel)
    controller = property(lambda self: self.table.controller)
    first_dealer = property(lambda self: self.table.first_dealer)

    @property
    def _camera_trigger(self) -> Callable[[], None]:
        """What a camera feed calls when it has news (tests build feeds with it)."""
        return self._wake

    def _make_feed(self, config: FeedConfig) -> Any:
        """The feed for `config` (tests replace this to inject a source)."""
        return self.table.default_feed(config)

    def _to_table(self, name: str, value: Any) -> None:
        """A property the screens (or the demo, or a test) set on the app: the table
        takes the same value, so the two never disagree."""
        if name == "corners":
            value = [list(p) for p in value]
        setattr(self.table, name, value)

    def _state(self, name: str) -> Any:
        t = self.table
        if name == "pin_test":
            return t.pin_test is not None
        if name == "pin_presses":
            return dict(t.pin_test.presses) if t.pin_test is not None else self.pin_presses
        if name == "lit_part":
            return t.pin_test.lit if t.pin_test is not None else ""
        if name == "has_game":
            return t.session is not None
        if name == "calibration":
            return t.calibration.progress() if t.calibration is not None else {}
        return getattr(t, name)

    def _sync(self) -> None:
        """Copy into the Kivy properties what differs on the table (Kivy dispatches only
        the properties whose value changed)."""
        for name in (*SYNCED, "calibration"):
            value = self._state(name)
            if not _same(getattr(self, name), value):
                setattr(self, name, [list(p) for p in value] if name == "corners" else value)

    def _woken(self, *_: Any) -> None:
        self.table.pump()
        self._sync()

    def _input(self, verb: Callable[..., Any], *args: Any) -> Any:
        """A player's input to the table: a refusal in `message`, else `message` cleared."""
        result = self._do(verb, *args, failed=_UNSET)
        if result is _UNSET:
            return None
        self.message = ""
        return result

    def _do(self, verb: Callable[..., Any], *args: Any, failed: Any = None) -> Any:
        """Call a table verb: its result, or `failed` with the refusal in `message`."""
        try:
            result = verb(*args)
        except CompanionError as exc:
            self._sync()
            self.message = str(exc)
            return failed
        self._sync()
        return result

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
        Window.bind(on_key_down=self._key_down, on_key_up=self._key_up)
        Clock.schedule_interval(self._poll_panel, 1 / PANEL_POLL_HZ)
        Clock.schedule_interval(self._watch_camera, 1.0)
        Clock.schedule_interval(lambda _dt: self.tidy_memory(), TIDY_EVERY_S)
        self.refresh_players()
        self._sync()
        return manager

    def on_stop(self) -> None:
        self.table.close()
        self._sync()

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

    def tidy_memory(self) -> bool:
        """Give the memory freed inside malloc back to the system once a screen was
        changed to (and built) since the last time; True when it did. Starting a game
        and building the play screen left 9 MB there (docs/kiosk.md, "memory")."""
        if self._tidied_at == self._screens_shown:
            return False
        self._tidied_at = self._screens_shown
        return release_memory()

    def _screen_changed(self, _manager: Any, name: str) -> None:
        self._previous, self._current = self._current, name
        self._screens_shown += 1
        wants_camera = name == "play" or (name == "settings" and self.screen("settings").needs_camera)
        if wants_camera:
            self.start_camera()
        else:
            self.stop_camera()
        if name != "settings" and self.pin_test:
            self.stop_pin_test()

    # -- choosing and starting a game ------------------------------------------------
    def game_titles(self) -> list[tuple[str, str, str]]:
        """(name, title, players) of every registered game, for the home screen."""
        from kiosk.text import players_span

        return [(name, title, players_span(low, high)) for name, title, low, high in Home.games()]

    def choose_game(self, name: str) -> None:
        """The setup screen for the game `name`."""
        self.game_name = game_info(name).name
        self.refresh_players()
        self.screen("setup").prepare(self.game_name)
        self.go("setup")

    def refresh_players(self) -> None:
        players = self._do(self.controllers.setup.stored_players, failed=None)
        self.stored_players = players if players is not None else []

    def dealer_seats(self, game: str, players: int, options: dict[str, Any]) -> list[int]:
        """The seats the table may name as first dealer ([] when the game decides)."""
        return self.controllers.setup.dealer_seats(game, players, options)

    def start_game(self, names: Sequence[str], options: dict[str, Any] | None = None,
                   dealer: int | None = None) -> bool:
        """Start a game of the chosen game between `names` (by seat) and show it; a
        refusal (a bad option, a name used twice) goes to `message` and returns False."""
        if self._do(self.controllers.setup.start, self.game_name, list(names), options, dealer) is None:
            return False
        self.go("play")
        return True

    def resume_game(self, game_id: int) -> bool:
        """Take up the stored game `game_id` where its log stops."""
        if self._do(self.controllers.home.resume, game_id) is None:
            return False
        self.go("play")
        return True

    def end_game(self) -> None:
        """Close the game in play (it stays stored) and go home."""
        self._do(self.controllers.play.end)
        self.go_home()

    def attach(self, session: Any) -> None:
        """Show `session` on the play screen's data (also one started elsewhere, such as
        the demo's)."""
        self._do(self.table.attach, session)

    def detach(self) -> None:
        """Stop showing the session (it stays stored and can be resumed)."""
        self._do(self.table.detach)

    # -- touch input: one table verb each ------------------------------------------------
    def act(self, action: Action) -> Verdict | None:
        """Send one action to the session, from the touchscreen."""
        return self._input(self.controllers.play.act, action)

    def play_card(self, code: str) -> Verdict | None:
        """The seat to act plays (or discards) the card `code`, one of the offered cards."""
        return self._input(self.controllers.play.play_card, code)

    def bid(self, label: str) -> Verdict | None:
        """The seat to act makes the offered choice `label` (a bid: "accept", "pass", "T")."""
        return self._input(self.controllers.play.bid, label)

    def pick(self, seat: int, item: str) -> Verdict | None:
        """Seat `seat` makes its secret pick `item` (Ahyoheek: pen, page, beetle)."""
        return self._input(self.controllers.play.pick, seat, item)

    def choose(self, index: int) -> Verdict | None:
        """The offered choice number `index` (menu order): a move the engine words."""
        return self._input(self.controllers.play.choose, index)

    def count(self, index: int, value: int) -> Verdict | None:
        """The number choice `index` with `value` (Yonac: collect `value` cards)."""
        return self._input(self.controllers.play.count, index, value)

    def deal(self) -> Verdict | None:
        """The chance move due now, dealt on screen by the engine."""
        return self._input(self.controllers.play.deal)

    def undo(self) -> bool:
        """Take back the last accepted move (False when there is none)."""
        return bool(self._do(self.controllers.play.undo, failed=False))

    def redo(self) -> bool:
        return bool(self._do(self.controllers.play.redo, failed=False))

    def confirm(self) -> None:
        """Accept the referee's call on an illegal input."""
        self._do(self.controllers.play.confirm)

    def answer(self, key: str, code: str) -> Verdict | None:
        """One touch names the card the camera asked about; the referee judges it."""
        return self._input(self.controllers.play.answer, key, code)

    def withdraw(self, key: str) -> None:
        """Let the players enter the card the camera asked about by touch instead."""
        self._do(self.controllers.play.withdraw, key)

    # -- history ----------------------------------------------------------------------
    def load_history(self) -> None:
        """Read finished and unfinished games and the ratings for the history screen."""
        found = self._do(self.controllers.history.load)
        if found is not None:
            self.finished, self.unfinished, self.ratings = found

    # -- the camera ------------------------------------------------------------------
    def resolved_source(self) -> str:
        return self.table.resolved_source()

    def deck_in_play(self) -> str | None:
        return self.table.deck_in_play()

    def judges_camera(self) -> bool:
        return self.table.judges_camera()

    def start_camera(self) -> None:
        """Start reading the camera (no-op when it runs or the source is "none")."""
        self._do(self.table.start_camera)

    def stop_camera(self) -> None:
        """Stop reading the camera (the screens that show it start it again)."""
        self._do(self.table.stop_camera)

    def restart_camera(self) -> None:
        self._do(self.table.restart_camera, self.root is not None and self.root.current == "play")

    def set_camera_source(self, source: str) -> None:
        """Use `source` from now on (saved in the kiosk settings)."""
        self._do(self.controllers.settings.set_camera_source, source)

    def _watch_camera(self, *_: Any) -> None:
        self.table.watch_camera()
        self._sync()

    # -- calibration without a mat ----------------------------------------------------
    def add_corner(self, x: float, y: float) -> None:
        """A tap on the camera image at (x, y) (fractions): the next table corner."""
        self._do(self.controllers.settings.add_corner, x, y)

    def clear_corners(self) -> None:
        self._do(self.controllers.settings.clear_corners)

    def save_corners(self) -> bool:
        """Keep the four tapped corners for the camera's recognizer (and restart it)."""
        return self._do(self.controllers.settings.save_corners, failed=False) is not False

    # -- teaching a deck --------------------------------------------------------------
    def teach_start(self, deck: str) -> None:
        """Teach the companion a deck whose faces differ from the project's art: the
        screen asks for each card in turn, Capture photographs it, and at the end the
        table learns the photos (deck "my-DECK", then read instead of DECK)."""
        self.message = ""
        self._do(self.controllers.settings.teach_start, deck)

    def teach_capture(self) -> bool:
        """Save the latest full camera frame as the photo of the card asked for; next."""
        return self._do(self.controllers.settings.teach_capture, failed=False) is not False

    def teach_skip(self) -> None:
        self._do(self.controllers.settings.teach_skip)

    def teach_stop(self) -> None:
        self._do(self.controllers.settings.teach_stop)

    # -- the camera's own calibration (ChArUco) -------------------------------------------
    def calibration_start(self) -> None:
        """Calibrate the camera's lens: views of the printed board are collected from the
        camera's frames (the progress in `calibration`) until `calibration_finish`."""
        self.message = ""
        self._do(self.controllers.settings.calibration_start)

    def calibration_finish(self) -> bool:
        """Solve and save the calibration, or refuse it with the numbers (as the CLI)."""
        return self._do(self.controllers.settings.calibration_finish, failed=False) is not False

    def calibration_words(self) -> str:
        """The calibration's progress in words, for the settings screen."""
        return self.controllers.settings.calibration_words()

    def calibration_cancel(self) -> None:
        self._do(self.controllers.settings.calibration_cancel)

    # -- the panel: buttons and LEDs ---------------------------------------------------
    def _poll_panel(self, *_: Any) -> None:
        if self.table.poll_panel():
            self._sync()

    def panel_parts(self) -> list[tuple[str, str, str]]:
        """(part name, where it is wired, keys that press it) of every panel button."""
        return self.controllers.settings.panel_parts()

    def panel_outputs(self) -> list[tuple[str, str]]:
        return self.controllers.settings.panel_outputs()

    def start_pin_test(self) -> None:
        """Show every button press on the settings screen instead of playing it."""
        self.pin_presses = {}
        self._do(self.controllers.settings.start_pin_test)

    def stop_pin_test(self) -> None:
        self._do(self.controllers.settings.stop_pin_test)

    def light_outputs(self, step: float = 0.5) -> None:
        """Light each LED (and beep the buzzer) in turn, `step` seconds each (Kivy's clock
        moves the table's sequence on)."""
        if not self._do(self.controllers.settings.light_outputs, step, failed=False):
            return

        def next_one(_dt: float) -> bool:
            going = self.controllers.settings.next_light()
            self._sync()
            return going
        Clock.schedule_interval(next_one, step)

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


_UNSET = object()


def _same(old: Any, new: Any) -> bool:
    """Equal for plain values (Kivy's list and dict properties compare as lists and
    dicts), the same object for pictures and views."""
    if isinstance(new, (str, bool, int, float, list, dict, tuple)) or new is None:
        try:
            return bool(old == new)
        except Exception:
            return old is new
    return old is new


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
