"""The panel controller: button presses to the session, the session's view to the LEDs.

`PanelController(panel, session)` subscribes to the session's view models. Whoever owns
the session calls `poll()` often (the kiosk from Kivy's clock, 20 to 50 times a second;
or `start()` runs a small thread): it takes the presses off the panel's queue, turns them
into session calls, and sets the LEDs and the buzzer. Nothing here blocks, and only the
polling thread touches the devices.

Buttons:
- confirm: `session.confirm()` (accept the referee's call); undo: `session.undo()` (drop
  the last event); menu: the `on_menu` callback (the kiosk opens its menu), if any. The
  session logs them, and every action, with the source "panel".
- A question pending (the camera asks the players to name a card, `view.question`):
  button k of any seat answers with the k-th candidate (`session.answer`), before any
  of the uses below; a button past the candidates is ignored.
- Ahyoheek: a seat's buttons 0, 1, 2 pick pen, page, beetle. A seat not in play (not seated,
  or out of a sudden death) is ignored, and so is pressing the pick the seat already has.
- Other games: when the seat to act has a few choices that name no card (Yokir bidding:
  accept, pass), button k makes the k-th of them in legal-actions order, provided they all
  fit on the seat's buttons. Anything else (cards, a seat out of turn) is ignored: cards
  come from the camera or the touchscreen.

Lights (from the published view):
- Seat LEDs: Ahyoheek (any view whose table has "picked"): the seats that have picked,
  never what; other games: the seat to act. When the game is over: the winners.
- A new accepted event blinks green once; a rejected input that must be acknowledged
  (`verdict.awaiting`) lights red and beeps until confirm or undo clears it; a rejection
  that needs no acknowledging, or undo with nothing to undo, blinks red once.
"""

from __future__ import annotations

import inspect
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from companion.errors import CompanionError
from companion.menus import panel_action
from companion.viewmodel import SessionPort, ViewModel
from hardware.panel import ButtonEvent, Panel

if TYPE_CHECKING:
    from companion.games import Action

log = logging.getLogger(__name__)


class PanelController:
    """Drives one session from one panel. `clock` is for tests (seconds, monotonic)."""

    source = "panel"  # how the session's log names the panel's inputs

    def __init__(self, panel: Panel, session: SessionPort, *, on_menu: Callable[[], Any] | None = None,
                 clock: Callable[[], float] = time.monotonic, blink_time: float = 0.3,
                 beep_on: float = 0.15, beep_off: float = 0.35) -> None:
        self.panel = panel
        self.session = session
        self.on_menu = on_menu
        self.blink_time = blink_time
        self.beep_on = beep_on
        self.beep_off = beep_off
        self._clock = clock
        self._published: deque[ViewModel] = deque()  # appended by any thread, taken by poll
        self._view = session.view()
        self._green_until = -1.0
        self._red_until = -1.0
        self._alarm_since: float | None = None
        self._shown: dict[int, bool] = {}  # id(device) -> value last written
        self._takes_source: dict[str, bool] = {}
        self._closed = False
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        unsubscribe = session.subscribe(self._on_view)
        self._unsubscribe = unsubscribe if callable(unsubscribe) else None
        self._take_view(self._view, self._clock(), first=True)
        self._render(self._clock())

    # -- input --------------------------------------------------------------------------
    def poll(self) -> int:
        """Handle the waiting presses, then bring the lights up to date; the number handled."""
        handled = 0
        for event in self.panel.drain():
            try:
                self.handle(event)
            except CompanionError as exc:  # the session refused (storage, state): say, go on
                log.warning("panel: %s: %s", event, exc)
                self._red_until = self._clock() + self.blink_time
            handled += 1
        if handled:  # a session that publishes nothing for a call still shows its effect
            self._on_view(self.session.view())
        now = self._clock()
        while self._published:
            self._take_view(self._published.popleft(), now)
        self._render(now)
        return handled

    def handle(self, event: ButtonEvent) -> Any:
        """One press: the session call it makes (its verdict for a seat button), or None
        when the press is ignored."""
        if event.kind == "confirm":
            self._call("confirm")
            return None
        if event.kind == "undo":
            if not self._call("undo"):
                self._red_until = self._clock() + self.blink_time  # nothing to undo
            return None
        if event.kind == "menu":
            if self.on_menu is not None:
                self.on_menu()
            return None
        view = self.session.view()
        question = getattr(view, "question", None)
        if question is not None and event.kind == "seat" and callable(getattr(self.session, "answer", None)):
            if event.index is None or not 0 <= event.index < len(question.candidates):
                return None
            code = question.candidates[event.index][0]
            return self.session.answer(question.key, code, source=self.source)  # type: ignore[attr-defined]
        action = self.action_for(event, view)
        if action is None:
            return None
        return self.session.act(action, source=self.source)

    def _call(self, name: str) -> Any:
        """session.confirm() or .undo(), saying the panel did it when the session can log it."""
        method = getattr(self.session, name)
        if name not in self._takes_source:
            try:
                self._takes_source[name] = "source" in inspect.signature(method).parameters
            except (TypeError, ValueError):
                self._takes_source[name] = False
        return method(source=self.source) if self._takes_source[name] else method()

    def action_for(self, event: ButtonEvent, view: ViewModel) -> Action | None:
        """The action a seat button makes in `view`, or None when it is ignored (the
        rules for the panel's buttons are `companion.menus.panel_action`)."""
        if event.kind != "seat" or event.seat is None or event.index is None or view.over:
            return None
        seat = event.seat
        buttons = len(self.panel.pinmap.seats[seat].buttons) if seat < len(self.panel.pinmap.seats) else 0
        legal = self._legal_actions()
        return panel_action(view, legal, seat, event.index, buttons)

    def _legal_actions(self) -> Sequence[Action] | None:
        """The session's legal actions now, if it can say: its `legal_actions()`, else the
        `legal_actions()` of its `state` (an attribute, or a method returning a copy as
        companion.session.Session's does); None when it cannot."""
        fn = getattr(self.session, "legal_actions", None)
        if callable(fn):
            return list(fn())
        state = getattr(self.session, "state", None)
        if callable(state) and not hasattr(state, "legal_actions"):
            state = state()
        if state is not None and callable(getattr(state, "legal_actions", None)):
            return list(state.legal_actions())
        return None

    # -- output -------------------------------------------------------------------------
    def _on_view(self, view: ViewModel) -> None:
        """The session published a view (any thread): keep it for the next poll."""
        if not self._closed:
            self._published.append(view)

    def _take_view(self, view: ViewModel, now: float, first: bool = False) -> None:
        old, self._view = self._view, view
        verdict = view.verdict
        if verdict is not None and verdict.awaiting:
            if self._alarm_since is None:
                self._alarm_since = now
                self._green_until = -1.0  # a pending green blink would follow the alarm
        else:
            self._alarm_since = None
        if first:
            return
        if view.events > old.events and (verdict is None or verdict.ok):
            self._green_until = now + self.blink_time
        elif (verdict is not None and not verdict.ok and not verdict.awaiting
              and verdict is not old.verdict and not (old.verdict and old.verdict.awaiting)):
            self._red_until = now + self.blink_time

    def seat_leds(self, view: ViewModel | None = None) -> set[int]:
        """The seats whose LED is lit in `view` (default: the view shown now)."""
        view = view or self._view
        if view.over:
            return set(view.winners)
        picked = view.table.get("picked")
        if picked is not None:
            return set(picked)
        return set() if view.turn is None else {view.turn}

    @property
    def alarm(self) -> bool:
        """True while an illegal input waits for confirm or undo (red on, beeping)."""
        return self._alarm_since is not None

    def _render(self, now: float) -> None:
        lit = self.seat_leds()
        for seat, led in enumerate(self.panel.seat_leds):
            self._set(led, seat in lit)
        alarm = self._alarm_since is not None
        self._set(self.panel.status_red, alarm or now < self._red_until)
        self._set(self.panel.status_green, not alarm and now < self._green_until)
        if self.panel.buzzer is not None:
            beeping = False
            if self._alarm_since is not None:
                period = self.beep_on + self.beep_off
                beeping = (now - self._alarm_since) % period < self.beep_on
            self._set(self.panel.buzzer, beeping)

    def _set(self, device: Any, on: bool) -> None:
        if self._shown.get(id(device)) is not on:
            device.value = on
            self._shown[id(device)] = on

    # -- a polling thread, for callers without a UI clock ---------------------------------
    def start(self, interval: float = 0.02) -> None:
        """Poll every `interval` seconds on a daemon thread until `stop()`."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(interval,), name="panel-poll",
                                        daemon=True)
        self._thread.start()

    def _run(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.poll()
            except Exception:  # keep the panel alive; the log says what broke
                log.exception("panel poll failed")

    def stop(self) -> None:
        """Stop the polling thread (if running) and wait for it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def close(self) -> None:
        """Stop polling, ignore further views, turn the lights and the buzzer off."""
        self.stop()
        self._closed = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if not self.panel.closed:
            self.panel.all_off()
        self._shown.clear()

