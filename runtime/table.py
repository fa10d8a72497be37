"""One table, wired: the session in play, the camera feed and its source, the panel, the
settings, the corner calibration, deck teaching and the camera calibration.

`Table` knows no toolkit. Whoever shows it (the kiosk, the demo, a test) gives it a
`wake()` callable and calls `pump()` on its own thread when woken: the session's
subscribers, the camera's process and the learning thread only hand their news over
and call `wake()` (from any thread); `pump()` then applies it, on the one thread that
also calls the verbs. After a verb or a pump, the caller reads the table's plain
attributes (`view`, `menu`, `shot`, `camera_status`, `message`, `teach`, ...).

Verbs raise `CompanionError` for what the table refuses (a bad option, storage
trouble); the kiosk shows the words.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion import table as table_model
from companion.catalog import game_info
from companion.errors import CompanionError
from companion.menus import Menu, deal_action, dealer_choices, menu_for
from companion.session import Session
from companion.storage import GameRecord, PlayerRating, Store
from companion.viewmodel import Verdict, ViewModel
from runtime import prefs as prefs_mod
from runtime.calibrate import LensCalibration
from runtime.feed import NO_CAMERA, OFF, STARTING, CameraFeed, FeedConfig
from runtime.panel import PinTest, open_panel
from runtime.teach import DeckTeaching, Learned

if TYPE_CHECKING:
    from companion.games import Action

log = logging.getLogger(__name__)

#: Seconds without a new frame after which a running camera counts as lost.
FRAME_TIMEOUT_S = 3.0


class TableError(CompanionError, ValueError):
    """A request the table cannot carry out now (no game, a choice not offered)."""


class Table:
    """The table of one kiosk (or one command, or the demo). `store` holds the games; `source` is the
    camera source (None: the one in the settings, "synthetic" by default; "none": no
    camera); `panel`: "auto", "keyboard", "none" or a panel object (runtime.panel);
    `vision_process`: run recognition in a process of its own (the default) or on a
    thread; `clock`: monotonic seconds (tests inject one)."""

    def __init__(self, store: Store, *, source: str | None = None, prefs_path: Path | None = None,
                 panel: Any = "none", pins: str | None = None, seed: int | None = None,
                 wake: Callable[[], None] = lambda: None, vision_process: bool = True,
                 clock: Callable[[], float] = time.monotonic, prefs: prefs_mod.Prefs | None = None) -> None:
        self.store = store
        self.prefs_path = prefs_path or prefs_mod.default_dir(store.path) / prefs_mod.FILE_NAME
        # `prefs` given: the table's settings, the file is not read (a command, the demo)
        self.prefs = prefs if prefs is not None else prefs_mod.load(self.prefs_path)
        if pins:
            self.prefs = prefs_mod.Prefs(self.prefs.camera, self.prefs.corners, pins, self.prefs.extra)
        self.camera_source = source or self.prefs.camera
        self.corners: list[list[float]] = [list(p) for p in self.prefs.corners]
        self.wake = wake
        self.vision_process = vision_process
        self.clock = clock
        self.rng = random.Random(seed)
        self.game_name = ""
        self.session: Session | None = None
        self.first_dealer: int | None = None
        self.view: ViewModel | None = None
        self.menu = Menu()
        self.message = ""
        # the camera
        self.feed: Any = None
        self.shot: Any = None
        self.camera_status = OFF
        self.camera_detail = ""
        self._last_frame_at = 0.0
        self._last_frame_count = 0
        # the panel
        self.panel, warning = open_panel(panel, self.prefs.pins)
        if warning:
            self.message = warning
        self.controller: Any = None
        self.pin_test: PinTest | None = None
        self.on_menu: Callable[[], Any] | None = None  # the panel's menu button
        # teaching a deck, calibrating the camera
        self.teaching: DeckTeaching | None = None
        self.teach_sheet = ""
        self._learned: Learned | None = None
        self.calibration: LensCalibration | None = None
        self._offered_shot: Any = None
        self._pending_view: ViewModel | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.make_feed: Callable[[FeedConfig], Any] = self.default_feed

    # -- the game in play --------------------------------------------------------------
    def start(self, game: str, names: Sequence[str], options: dict[str, Any] | None = None,
              dealer: int | None = None) -> Session:
        """Start a game of `game` between `names` (by seat) and show it here."""
        session = Session.start(self.store, game_info(game).name, list(names), **(options or {}))
        self.attach(session)
        self.first_dealer = dealer if dealer is not None and dealer >= 0 else None
        return session

    def resume(self, game_id: int) -> Session:
        """Take up the stored game `game_id` where its log stops."""
        session = Session.resume(self.store, game_id)
        self.attach(session)
        return session

    def attach(self, session: Session) -> None:
        """Show `session` here (also one started elsewhere, such as the demo's): subscribe
        to it, let the panel drive it and the camera's recognizer learn from it."""
        self.detach()
        self.game_name = session.game.name
        self.session = session
        self.first_dealer = None
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
        self.view = None
        self.menu = Menu()

    def _published(self, view: ViewModel) -> None:
        """A subscriber of the session (any thread): keep the latest, wake the UI."""
        self._pending_view = view
        self.wake()

    def _show(self, view: ViewModel) -> None:
        self.menu = menu_for(view, self.session.state() if self.session else None)
        self.view = view

    def refresh(self) -> None:
        """Show the session's picture now (a call that publishes nothing still shows)."""
        if self.session is not None:
            self._pending_view = None
            self._show(self.session.view())

    # -- input: every verb hands the engine's own action to the session ----------------
    def _session(self) -> Session:
        if self.session is None:
            raise TableError("no game in play")
        return self.session

    def act(self, action: Action, source: str = "touch") -> Verdict | None:
        verdict = self._session().act(action, source=source)
        self.refresh()
        return verdict

    def play_card(self, code: str) -> Verdict | None:
        """The seat to act plays (or discards) the card `code`, one of the offered cards."""
        choice = self.menu.find(code)
        if choice is None or choice.kind != "card" or choice.action is None:
            raise TableError(f"{code} is not among the cards offered now")
        return self.act(choice.action)

    def bid(self, label: str) -> Verdict | None:
        """The seat to act makes the offered choice `label` (a bid: "accept", "pass", "T")."""
        choice = self.menu.find(label)
        if choice is None or choice.action is None:
            raise TableError(f"{label!r} is not among the choices now")
        return self.act(choice.action)

    def pick(self, seat: int, item: str) -> Verdict | None:
        """Seat `seat` makes its secret pick `item`; None when it is its pick already."""
        choice = self.menu.find(item, seat)
        if choice is None:
            raise TableError(f"seat {seat + 1} cannot pick {item} now")
        return self.act(choice.action) if choice.action is not None else None

    def choose(self, index: int) -> Verdict | None:
        """The offered choice number `index` (menu order)."""
        if not 0 <= index < len(self.menu.choices):
            return None
        action = self.menu.choices[index].action
        return self.act(action) if action is not None else None

    def count(self, index: int, value: int) -> Verdict | None:
        """The number choice `index` with `value` (Yonac: collect `value` cards)."""
        try:
            action = self.menu.counts[index].action(int(value))
        except (IndexError, ValueError) as exc:
            raise TableError(str(exc)) from None
        return self.act(action)

    def deal(self) -> Verdict | None:
        """The chance move due now, dealt on screen by the engine (every hand known), with
        the table's chosen first dealer when the engine accepts it."""
        if self.session is None:
            return None
        action = deal_action(self.session.state(), self.rng, self.first_dealer)
        if action is None:
            return None
        self.first_dealer = None
        return self.act(action)

    def undo(self) -> bool:
        done = self._session().undo(source="touch")
        self.refresh()
        return done

    def redo(self) -> bool:
        done = self._session().redo(source="touch")
        self.refresh()
        return done

    def confirm(self) -> None:
        self._session().confirm(source="touch")
        self.refresh()

    # -- what is stored --------------------------------------------------------------
    def players(self) -> list[str]:
        return [p.name for p in self.store.players()]

    def history(self) -> tuple[list[GameRecord], list[GameRecord], list[PlayerRating]]:
        """Finished and unfinished games (newest first) and the ratings."""
        return (list(reversed(self.store.games("finished"))), list(reversed(self.store.games("playing"))),
                self.store.ratings())

    @staticmethod
    def dealer_seats(game: str, players: int, options: dict[str, Any]) -> list[int]:
        """The seats the table may name as first dealer ([] when the game decides)."""
        return dealer_choices(game, players, options)

    # -- the UI thread's turn ------------------------------------------------------------
    def pump(self) -> None:
        """Apply what the other threads handed over: the session's latest picture, the
        camera's news, a deck learned, the pin test's lights."""
        view, self._pending_view = self._pending_view, None
        if view is not None and self.session is not None:
            self._show(view)
        self._take_camera()
        learned, self._learned = self._learned, None
        if learned is not None:
            self._took_learned(learned)
        if self.pin_test is not None:
            self.pin_test.tick(self.clock())
        self._offer_calibration()

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

    def deck_in_play(self) -> str | None:
        """The deck the camera reads for the game in play: the game's own, or the deck
        taught for it (kept in the settings)."""
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
        it lays cards of its own, a picture of the camera working, not this game."""
        return not self.resolved_source().startswith(prefs_mod.SYNTHETIC)

    def feed_config(self) -> FeedConfig:
        source = self.resolved_source()
        if self.calibration is not None:
            source = raw_source(source)
        return FeedConfig(source, game=self.game_name or None,
                          players=len(self.session.players) if self.session else None,
                          deck=self.deck_in_play(), corners=tuple(tuple(p) for p in self.corners),
                          loop=source.startswith(prefs_mod.SYNTHETIC))

    def default_feed(self, config: FeedConfig) -> Any:
        """Recognition in a process of its own (frames through shared memory), or on a
        thread when `vision_process` is off."""
        if self.vision_process:
            from runtime.vision_process import ProcessFeed

            return ProcessFeed(config, self.wake)
        return CameraFeed(config, self.wake)

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
        config = self.feed_config()
        self.feed = self.make_feed(config)
        self._link_feed()
        self._last_frame_count = 0
        self._last_frame_at = self.clock()
        self._set_camera(STARTING, f"opening {config.source}")
        self.feed.start()

    def stop_camera(self) -> None:
        feed, self.feed = self.feed, None
        # The reader checks for the stop between frames; the UI never waits long for a
        # camera stuck in a read: it is left to end alone.
        if feed is not None and not feed.stop(timeout=0.5):
            log.warning("the camera is still reading; it will stop after its frame")
        self.shot = None
        self._set_camera(OFF, "")

    def restart_camera(self, wanted: bool = False) -> None:
        """Open the camera again with the settings as they are now (if it ran, or `wanted`)."""
        running = self.feed is not None
        self.stop_camera()
        if running or wanted:
            self.start_camera()

    def set_camera_source(self, source: str, *, wanted: bool = False) -> None:
        """Use `source` from now on (saved in the settings)."""
        source = source.strip()
        if not source:
            raise TableError("Name a camera source (synthetic, picamera2, cv:0, file:PATH, dir:PATH)")
        self.camera_source = source
        self.save_prefs(camera=source)
        self.restart_camera(wanted)

    def _set_camera(self, status: str, detail: str) -> None:
        self.camera_status = status
        self.camera_detail = detail
        if self.session is not None and status in ("ok", "no camera", "mat lost"):
            self.session.set_camera(status)
        elif self.session is not None and status == OFF and self.camera_source == prefs_mod.NO_CAMERA:
            self.session.set_camera(NO_CAMERA)

    def _take_camera(self) -> None:
        """The camera has news: the frame, the status, questions and observations."""
        feed = self.feed
        if feed is None:
            return
        shot = feed.latest()
        if shot is not None and shot is not self.shot:
            self.shot = shot
            self._last_frame_at = self.clock()
        if (feed.status, feed.detail) != (self.camera_status, self.camera_detail):
            self._set_camera(feed.status, feed.detail)
        questions = feed.take_questions() if hasattr(feed, "take_questions") else []
        if questions and self.session is not None and self.judges_camera():
            for question in questions:  # published at once: on screen with the next frame
                self.session.ask(question)
        observations = feed.take_observations()
        if observations and self.session is not None and self.judges_camera():
            if table_model.adapter_for(self.session.game.name) is None:
                log.info("no table adapter for %s: %d observations shown, not judged",
                         self.session.game.name, len(observations))
                return
            for obs in observations:
                try:
                    self.session.observe(obs, source="vision")
                except CompanionError as exc:
                    self.message = str(exc)
            self.refresh()

    def watch_camera(self) -> None:
        """Call about once a second: a running camera with no new frame for
        FRAME_TIMEOUT_S counts as lost."""
        feed = self.feed
        if feed is None or feed.status != "ok":
            return
        now = self.clock()
        if feed.frames != self._last_frame_count:
            self._last_frame_count = feed.frames
            self._last_frame_at = now
        elif now - self._last_frame_at > FRAME_TIMEOUT_S:
            self._set_camera(NO_CAMERA, f"no frame from {feed.config.source} for {FRAME_TIMEOUT_S:g} s")

    def _link_feed(self) -> None:
        """Let the session teach the camera's recognizer (its prior, the answers)."""
        if self.feed is not None and self.session is not None and self.judges_camera() \
                and hasattr(self.feed, "link"):
            self.feed.link(self.session)

    # -- settings and the corner calibration ---------------------------------------------
    def add_corner(self, x: float, y: float) -> None:
        """A tap on the camera image at (x, y) (fractions): the next table corner."""
        if len(self.corners) >= 4:
            self.corners = []
        self.corners = [*self.corners, [round(float(x), 4), round(float(y), 4)]]

    def save_corners(self) -> None:
        """Keep the four tapped corners (none: find the mat) and reopen the camera."""
        if self.corners and len(self.corners) != 4:
            raise TableError(f"Tap all four corners first ({len(self.corners)} of 4)")
        self.save_prefs(corners=[tuple(p) for p in self.corners])
        self.restart_camera()

    def save_prefs(self, **changes: Any) -> None:
        """Change and save the settings (camera, corners, extra); TableError when they
        cannot be saved (the settings in use stay as they were)."""
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
            raise TableError(f"cannot save the settings: {exc}") from None
        self.prefs = p

    # -- teaching a deck --------------------------------------------------------------
    @property
    def teach(self) -> dict[str, Any]:
        """The teaching run as the screen reads it ({} when none)."""
        return self.teaching.state() if self.teaching is not None else {}

    def teach_start(self, deck: str) -> None:
        """Teach a deck one photo per card (the camera keeps full frames meanwhile)."""
        self.teaching = DeckTeaching(deck, self.prefs_path.parent / "teach")
        self.start_camera()
        if self.feed is not None:
            self.feed.keep_full = True

    def teach_capture(self) -> None:
        """The latest full camera frame is the photo of the card asked for; next."""
        run = self.teaching
        if run is None or run.learning:
            raise TableError("no deck is being taught")
        shot = self.feed.latest() if self.feed else None
        if shot is None or shot.full is None:
            raise TableError("No camera picture yet: check the camera source")
        try:
            run.capture(shot.full)
        except OSError as exc:
            raise TableError(str(exc)) from None
        self.teach_skip()

    def teach_skip(self) -> None:
        """On to the next card (after the last one the run ends and learns its photos)."""
        run = self.teaching
        if run is None or run.learning:
            return
        if not run.skip():
            self.teach_stop()

    def teach_stop(self) -> None:
        """End the run; the photos taken so far are learned off this thread."""
        run = self.teaching
        if run is None or run.learning:
            return
        if self.feed is not None:
            self.feed.keep_full = False
        if not run.finish(self._learned_on_thread):
            self.teaching = None
            return
        self.message = f"Learning {run.saved} cards..."

    def _learned_on_thread(self, learned: Learned) -> None:
        self._learned = learned
        self.wake()

    def _took_learned(self, learned: Learned) -> None:
        self.teach_sheet = learned.sheet
        self.teaching = None
        self.message = learned.text
        if learned.ok:
            decks = dict(self.prefs.extra.get("decks") or {})
            decks[learned.deck] = learned.name
            try:
                self.save_prefs(extra={**self.prefs.extra, "decks": decks})
            except TableError as exc:
                self.message = str(exc)

    # -- the camera's lens calibration (ChArUco) -----------------------------------------
    def calibration_start(self, **limits: Any) -> None:
        """Calibrate the camera's lens: the camera reopens without any stored calibration
        and keeps full frames, and each new frame is offered to the calibration (`pump`).
        `limits`: target_views, min_views, max_error_px (the CLI's defaults otherwise)."""
        if self.camera_source == prefs_mod.NO_CAMERA:
            raise TableError("No camera to calibrate: choose a camera source first")
        self.calibration_cancel()
        self.calibration = LensCalibration(self.camera_source, wake=self.wake,
                                           background=limits.pop("background", True), **limits)
        self.restart_camera(wanted=True)
        if self.feed is not None:
            self.feed.keep_full = True

    def _offer_calibration(self) -> None:
        run, feed = self.calibration, self.feed
        if run is None or feed is None:
            return
        if getattr(feed, "camera", ""):
            run.calibrator.camera = run.camera = feed.camera
        shot = feed.latest()
        if shot is not None and shot is not self._offered_shot and shot.full is not None:
            self._offered_shot = shot
            run.offer(shot.full)

    def calibration_finish(self) -> str:
        """Keep the calibration (the camera then reopens straightened by it) and say so;
        TableError with the numbers when it is refused (the one stored before stays)."""
        run = self.calibration
        if run is None:
            raise TableError("No lens calibration is running")
        self._offer_calibration()
        outcome = run.finish()
        self.calibration = None
        self._offered_shot = None
        self.restart_camera()
        if not outcome.ok:
            raise TableError(outcome.text)
        self.message = outcome.text
        return outcome.path

    def calibration_cancel(self) -> None:
        """Stop calibrating; nothing is kept."""
        run, self.calibration = self.calibration, None
        self._offered_shot = None
        if run is not None:
            run.close()
            self.restart_camera()

    # -- the panel: buttons and LEDs -----------------------------------------------------
    def _open_controller(self) -> None:
        if self.panel is None or self.session is None:
            return
        try:
            from hardware.controller import PanelController
        except ImportError as exc:
            log.info("no panel controller: %s", exc)
            return
        self.controller = PanelController(self.panel, self.session, on_menu=self._menu_pressed)

    def _menu_pressed(self) -> None:
        if self.on_menu is not None:
            self.on_menu()

    def poll_panel(self) -> bool:
        """Take the panel's presses (call often, from the UI thread); True when the pin
        test or the session changed."""
        if self.panel is None:
            return False
        if self.pin_test is not None:
            return self.pin_test.take_presses()
        if self.controller is None:
            self.panel.drain()  # presses with no game in play mean nothing
            return False
        try:
            if self.controller.poll():
                self.refresh()
                return True
        except Exception:
            log.exception("panel poll failed")
        return False

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
        """Count every button press instead of playing it."""
        if self.panel is None:
            raise TableError("No panel: configure a pin map, or use the keyboard")
        self.pin_test = PinTest(self.panel)

    def stop_pin_test(self) -> None:
        if self.pin_test is not None:
            self.pin_test.stop()
            self.pin_test = None
        elif self.panel is not None:
            self.panel.all_off()

    def light_outputs(self, step: float = 0.5) -> None:
        """Light each LED (and beep the buzzer) in turn, `step` seconds each (moved on by
        `pump`)."""
        if self.panel is None:
            return
        if self.pin_test is None:
            self.start_pin_test()
        assert self.pin_test is not None
        self.pin_test.light_outputs(self.clock(), step)

    # -- the end ---------------------------------------------------------------------
    def close(self) -> None:
        """Stop the camera, let go of the session, close the panel."""
        if self.calibration is not None:
            self.calibration.close()
            self.calibration = None
        self.stop_camera()
        self.detach()
        if self.panel is not None:
            try:
                self.panel.close()
            except Exception:
                log.exception("closing the panel failed")


def raw_source(uri: str) -> str:
    """`uri` with no lens calibration applied (for calibrating the lens itself): cameras
    and the synthetic table take `calibration=none`; files and folders are read raw."""
    scheme = uri.partition(":")[0].strip().lower()
    if scheme not in ("picamera2", "cv", "synthetic") or "calibration=" in uri:
        return uri
    return uri + ("&" if "?" in uri else "?") + "calibration=none"


def start_game(store: Store, game: str, names: Sequence[str], **options: Any) -> Session:
    """A game started at a table with no camera, panel or settings file (the CLI's
    `session record`, the demo): the session, which the caller drives."""
    return Table(store, source=prefs_mod.NO_CAMERA, prefs=prefs_mod.Prefs()).start(game, names, options)
