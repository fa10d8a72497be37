"""The controller on mock pins and a fake session: presses become session calls, the view
model drives the LEDs and the buzzer; time moves only when a test moves the clock."""

from __future__ import annotations

import threading
import time

import pytest

from companion.errors import IllegalAction
from companion.games.base import TERMINAL, Action, Game, State
from companion.menus import names_card as _names_card
from hardware.controller import PanelController
from hardware.panel import ButtonEvent, Panel
from hardware.pinmap import PinMap, SeatPins

# default pin map: seat s buttons / LED
BUTTONS = [(2, 3, 4), (17, 27, 22), (10, 9, 11), (5, 6, 13), (19, 26, 21)]
CONFIRM, UNDO, MENU = 12, 16, 20


def seat_leds(panel: Panel) -> list[bool]:
    return [bool(led.value) for led in panel.seat_leds]


@pytest.fixture
def heek(panel, make_session, clock):
    """A 3-player Ahyoheek on the 5-seat panel."""
    session = make_session("ahyoheek", 3)
    ctrl = PanelController(panel, session, clock=clock)
    yield session, ctrl
    ctrl.close()


def test_a_pick_lights_the_seat_and_blinks_green_once(panel, heek, press, clock):
    session, ctrl = heek
    assert seat_leds(panel) == [False] * 5 and not panel.status_green.value
    press(BUTTONS[1][2])  # seat 1: beetle
    assert ctrl.poll() == 1
    assert session.log == [Action.make("pick", 1, pick="beetle")] and session.sources == ["panel"]
    assert seat_leds(panel) == [False, True, False, False, False]
    assert panel.status_green.value and not panel.status_red.value
    clock.advance(0.35)
    ctrl.poll()
    assert not panel.status_green.value  # once, then off
    clock.advance(5)
    ctrl.poll()
    assert not panel.status_green.value and seat_leds(panel)[1]


def test_a_pick_can_change_until_the_reveal_and_the_same_pick_again_is_ignored(panel, heek, press):
    session, ctrl = heek
    press(BUTTONS[0][0])  # pen
    press(BUTTONS[0][1])  # page: a change of mind
    press(BUTTONS[0][1])  # page again: nothing to change
    assert ctrl.poll() == 3
    assert session.log == [Action.make("pick", 0, pick="pen"), Action.make("pick", 0, pick="page")]
    assert session.state.picks == {0: "page"} and session.verdict.ok
    assert not panel.status_red.value and seat_leds(panel)[0]


def test_the_reveal_comes_when_every_seated_player_has_picked(panel, heek, press):
    session, ctrl = heek
    press(BUTTONS[0][0])
    press(BUTTONS[2][1])
    ctrl.poll()
    assert seat_leds(panel) == [True, False, True, False, False]
    assert session.view().table["last_round"] is None
    press(BUTTONS[1][2])
    ctrl.poll()
    view = session.view()
    assert view.table["last_round"] == ["pen", "beetle", "page"]  # revealed on the screen
    assert view.table["picked"] == [] and seat_leds(panel) == [False] * 5


def test_a_seat_that_is_not_playing_is_ignored(panel, heek, press):
    session, ctrl = heek
    for pin in (*BUTTONS[3], *BUTTONS[4]):  # seats 3 and 4: nobody sits there
        press(pin)
    assert ctrl.poll() == 6
    assert session.log == [] and session.sources == [] and seat_leds(panel) == [False] * 5
    assert not panel.status_red.value


def test_seats_out_of_a_sudden_death_are_ignored(panel, make_session, clock, press):
    session = make_session("ahyoheek", 3)
    for _ in range(3):  # seats 1 and 2 win a pen each round: three pens each, a tie
        for seat, pick in enumerate(("page", "pen", "pen")):
            session.act(Action.make("pick", seat, pick=pick))
    assert session.state.sudden_death and session.view().table["in_play"] == [1, 2]
    ctrl = PanelController(panel, session, clock=clock)
    press(BUTTONS[0][0])  # seat 0 is out of the sudden death
    ctrl.poll()
    assert len(session.log) == 9 and not seat_leds(panel)[0]
    press(BUTTONS[1][0])
    ctrl.poll()
    assert len(session.log) == 10 and seat_leds(panel) == [False, True, False, False, False]
    ctrl.close()


def test_an_illegal_input_lights_red_and_beeps_until_confirm(panel, heek, press, clock):
    session, ctrl = heek
    verdict = session.act(Action.make("pick", 0, pick="rock"))  # from the touchscreen
    assert verdict.awaiting
    assert panel.status_red.value == 0  # lights change on the poll, in the poll's thread
    ctrl.poll()
    assert panel.status_red.value and ctrl.alarm and not panel.status_green.value
    beeps = []
    for _ in range(10):  # the buzzer beeps: on 0.15 s, off 0.35 s
        beeps.append(bool(panel.buzzer.value))
        clock.advance(0.1)
        ctrl.poll()
    assert beeps == [True, True, False, False, False, True, True, False, False, False]
    assert panel.status_red.value
    press(CONFIRM)
    ctrl.poll()
    assert session.confirms == 1
    assert not panel.status_red.value and not panel.buzzer.value and not ctrl.alarm
    clock.advance(1)
    ctrl.poll()
    assert not panel.status_red.value and not panel.buzzer.value


def test_undo_clears_the_alarm_and_removes_the_last_event(panel, heek, press, clock):
    session, ctrl = heek
    press(BUTTONS[0][2])
    press(BUTTONS[1][2])
    ctrl.poll()
    session.act(Action.make("pick", 7, pick="pen"))  # a seat that does not exist
    ctrl.poll()
    assert panel.status_red.value and panel.buzzer.value
    press(UNDO)
    ctrl.poll()
    assert not panel.status_red.value and not panel.buzzer.value
    assert session.log == [Action.make("pick", 0, pick="beetle")]
    assert seat_leds(panel) == [True, False, False, False, False]
    assert not panel.status_green.value  # an undo is no new play


def test_undo_with_nothing_to_undo_blinks_red_once(panel, heek, press, clock):
    _session, ctrl = heek
    press(UNDO)
    ctrl.poll()
    assert panel.status_red.value and not panel.buzzer.value and not ctrl.alarm
    clock.advance(0.35)
    ctrl.poll()
    assert not panel.status_red.value


def test_menu_calls_back_and_is_ignored_without_a_callback(panel, make_session, clock, press):
    session = make_session("ahyoheek", 2)
    calls = []
    ctrl = PanelController(panel, session, clock=clock, on_menu=lambda: calls.append("menu"))
    press(MENU)
    ctrl.poll()
    assert calls == ["menu"]
    ctrl.on_menu = None
    press(MENU)
    assert ctrl.poll() == 1 and calls == ["menu"] and session.log == []
    ctrl.close()


def test_views_from_other_threads_are_shown_at_the_next_poll(panel, heek, clock):
    session, ctrl = heek
    worker = threading.Thread(target=session.act, args=(Action.make("pick", 2, pick="pen"),))
    worker.start()
    worker.join()
    assert seat_leds(panel) == [False] * 5
    ctrl.poll()
    assert seat_leds(panel) == [False, False, True, False, False] and panel.status_green.value


def test_the_winners_light_up_when_the_match_is_over(panel, heek, press):
    session, ctrl = heek
    for _ in range(3):  # seat 0 wins a beetle every round: beetle beats pen
        press(BUTTONS[0][2])
        press(BUTTONS[1][0])
        press(BUTTONS[2][0])
        ctrl.poll()
    view = session.view()
    assert view.over and view.winners == (0,)
    assert seat_leds(panel) == [True, False, False, False, False]
    press(BUTTONS[1][1])  # the match is over: buttons do nothing
    ctrl.poll()
    assert len(session.log) == 9


def test_close_turns_everything_off_and_stops_listening(panel, heek):
    session, ctrl = heek
    session.act(Action.make("pick", 0, pick="rock"))
    ctrl.poll()
    assert panel.status_red.value
    ctrl.close()
    assert not any(panel.lit().values())
    session.act(Action.make("pick", 0, pick="pen"))
    ctrl.poll()
    assert not panel.status_green.value


def test_a_polling_thread_handles_presses(panel, make_session, press):
    session = make_session("ahyoheek", 2)
    ctrl = PanelController(panel, session)  # real clock: the thread polls every 10 ms
    ctrl.start(interval=0.01)
    try:
        press(BUTTONS[1][1])
        deadline = time.monotonic() + 5
        while not session.log and time.monotonic() < deadline:
            time.sleep(0.01)
        assert session.log == [Action.make("pick", 1, pick="page")]
    finally:
        ctrl.stop()
    assert ctrl._thread is None


def test_without_legal_actions_the_session_judges_a_repeated_pick(panel, make_session, clock, press):
    class Plain:  # only the SessionPort protocol
        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            if name in ("act", "undo", "redo", "confirm", "view", "subscribe"):
                return getattr(self.inner, name)
            raise AttributeError(name)

    session = make_session("ahyoheek", 2)
    ctrl = PanelController(panel, Plain(session), clock=clock)
    press(BUTTONS[0][0])
    press(BUTTONS[0][0])
    ctrl.poll()
    assert len(session.log) == 1 and session.verdict.awaiting and panel.status_red.value
    ctrl.close()


# -- other games: the seat to act, and a few non-card choices ---------------------------

class BidGame(Game):
    """Three seats bid in turn: accept or pass; after three passes, name A, B or C or pass.
    The caller then leads and each seat plays one card. Enough to drive the panel."""

    name = "bidtest"
    title = "Bid test"
    deck = None
    min_players = max_players = default_players = 3
    action_kinds = frozenset({"bid", "play"})
    outcome_kinds = frozenset()

    def new_state(self) -> BidState:
        return BidState(self)


class BidState(State):
    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.turn, self.passes, self.caller, self.played = 1, 0, None, 0

    def current_player(self) -> int:
        return TERMINAL if self.played == 3 else self.turn

    def legal_actions(self) -> list[Action]:
        if self.played == 3:
            return []
        if self.caller is None:
            calls = ("accept", "pass") if self.passes < 3 else ("pass", "A", "B", "C")
            return [Action.make("bid", self.turn, call=c) for c in calls]
        return [Action.make("play", self.turn, card=c) for c in ("X1", "X2")]

    def sample_chance(self, rng):
        raise IllegalAction("no chance")

    def _apply(self, action: Action) -> list:
        if action.kind == "bid" and action["call"] != "pass":
            self.caller = action.seat
        elif action.kind == "bid":
            self.passes += 1
            self.turn = (self.turn + 1) % 3
            return []
        else:
            self.played += 1
            self.turn = (self.turn + 1) % 3
        return []

    def scores(self) -> list[int]:
        return [int(s == self.caller) for s in range(3)]

    def explain(self) -> str:
        return f"seat {self.turn} to act"

    def snapshot(self) -> dict:
        return {"turn": self.turn, "caller": self.caller, "played": self.played}


def test_the_seat_to_act_is_lit_and_choices_map_to_its_buttons(panel, make_session, clock, press):
    session = make_session(BidGame())
    ctrl = PanelController(panel, session, clock=clock)
    assert seat_leds(panel) == [False, True, False, False, False]
    press(BUTTONS[0][0])  # seat 0: not its turn
    press(BUTTONS[1][2])  # seat 1 has two choices: a third button does nothing
    ctrl.poll()
    assert session.log == []
    press(BUTTONS[1][1])  # button 1 = the second choice: pass
    ctrl.poll()
    assert session.log == [Action.make("bid", 1, call="pass")]
    assert seat_leds(panel) == [False, False, True, False, False]
    press(BUTTONS[2][0])  # accept
    ctrl.poll()
    assert session.log[-1] == Action.make("bid", 2, call="accept") and session.state.caller == 2
    press(BUTTONS[2][0])  # now seat 2 must play a card: cards come from the camera
    ctrl.poll()
    assert len(session.log) == 2 and seat_leds(panel)[2]
    ctrl.close()


def test_more_choices_than_buttons_are_left_to_the_screen(panel, make_session, clock, press):
    session = make_session(BidGame())
    for seat in (1, 2, 0):
        session.act(Action.make("bid", seat, call="pass"))
    ctrl = PanelController(panel, session, clock=clock)
    press(BUTTONS[1][0])  # four choices (pass, A, B, C) on three buttons
    ctrl.poll()
    assert len(session.log) == 3
    ctrl.close()


def test_a_seat_with_fewer_buttons_takes_only_choices_that_fit(mock_factory, make_session, clock, press):
    pm = PinMap((SeatPins((2,), 14), SeatPins((3,), 15), SeatPins((4, 17), 18)), confirm=12, undo=16,
                menu=20, status_green=8, status_red=7)
    with Panel(pm, clock=clock) as small:
        session = make_session(BidGame())
        ctrl = PanelController(small, session, clock=clock)
        press(3)  # seat 1 has one button, two choices: ignored
        ctrl.poll()
        assert session.log == [] and small.buzzer is None
        session.act(Action.make("bid", 1, call="pass"))
        press(17)  # seat 2 has two buttons: button 1 = pass
        ctrl.poll()
        assert session.log[-1] == Action.make("bid", 2, call="pass")
        ctrl.close()


def test_yokir_bidding_uses_the_buttons(panel, make_session, clock, press):
    import random
    session = make_session("yokir")
    rng = random.Random(1)
    while session.state.is_chance():
        session.act(session.state.sample_chance(rng))
    seat = session.view().turn
    ctrl = PanelController(panel, session, clock=clock)
    assert seat_leds(panel) == [s == seat for s in range(5)]
    press(BUTTONS[seat][1])  # pass
    ctrl.poll()
    assert session.log[-1] == Action.make("bid", seat, bid="pass")
    ctrl.close()


def test_an_action_naming_a_card_is_not_a_button_choice():
    codes = frozenset({"MT", "IA"})
    assert _names_card(Action.make("play", 0, card="MT"), codes)
    assert _names_card(Action.make("discard", 0, what="IA"), codes)
    assert _names_card(Action.make("meld", 0, these=("IA", "MT")), codes)
    assert not _names_card(Action.make("bid", 0, bid="T"), codes)
    assert not _names_card(Action.make("bid", 0, bid="pass"), frozenset())


def test_button_events_other_than_seats_make_no_action(panel, heek):
    _session, ctrl = heek
    view = ctrl.session.view()
    assert ctrl.action_for(ButtonEvent("confirm"), view) is None
    assert ctrl.action_for(ButtonEvent("seat", 0, 2), view) == Action.make("pick", 0, pick="beetle")
    assert ctrl.action_for(ButtonEvent("seat", 0, 3), view) is None
