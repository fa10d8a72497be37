"""A whole Ahyoheek match played on mock buttons, LEDs checked after every press: on the
in-memory fake session and on the real companion.session.Session with a temporary
database. The result must be what the engine gives for the same picks."""

from __future__ import annotations

import random

import pytest

from companion.games import make_game
from companion.games.ahyoheek import PICKS
from companion.games.base import Action
from hardware.controller import PanelController

BUTTONS = [(2, 3, 4), (17, 27, 22), (10, 9, 11), (5, 6, 13), (19, 26, 21)]
UNDO, CONFIRM = 16, 12
PLAYERS = ["Ann", "Bob", "Cy", "Di"]


@pytest.fixture(params=["fake", "session"])
def session(request, make_session, tmp_path):
    if request.param == "fake":
        yield make_session("ahyoheek", len(PLAYERS))
        return
    from companion.session import Session
    from companion.storage import Store

    with Store(tmp_path / "companion.db") as store:
        yield Session.start(store, "ahyoheek", PLAYERS)


def lit_seats(panel) -> set[int]:
    return {s for s, led in enumerate(panel.seat_leds) if led.value}


# seats 1 and 2 win a pen in each of three rounds: a tie at three pens, then a sudden death
# between them alone, which seat 1 wins with a beetle (beetle beats pen)
SUDDEN_DEATH = [("page", "pen", "pen", "page")] * 3 + [("beetle", "pen")]


@pytest.mark.parametrize("plan", [3, 11, "sudden death"])
def test_a_whole_match_on_mock_buttons(panel, session, press, clock, plan):
    rng = random.Random(0 if plan == "sudden death" else plan)
    ctrl = PanelController(panel, session, clock=clock)
    shadow = make_game("ahyoheek", len(PLAYERS)).new_state()  # the engine, fed the final picks
    rounds, undone, sudden = 0, False, False
    while not session.view().over:
        rounds += 1
        assert rounds < 100, "the match did not end"
        in_play = list(session.view().table["in_play"])
        assert in_play == shadow.in_play
        sudden = sudden or len(in_play) < len(PLAYERS)
        for seated_out in sorted(set(range(len(PLAYERS))) - set(in_play)):  # out of the sudden death
            before = session.view().events
            for pin in BUTTONS[seated_out]:
                press(pin)
            ctrl.poll()
            assert session.view().events == before and seated_out not in lit_seats(panel)
        if plan == "sudden death":
            picks = dict(zip(in_play, SUDDEN_DEATH[rounds - 1], strict=True))
        else:
            picks = {seat: rng.choice(PICKS) for seat in in_play}
        order = rng.sample(in_play, len(in_play))
        for n, seat in enumerate(order):
            last = n == len(order) - 1
            changed = not last and rng.random() < 0.3  # the last pick reveals at once
            if changed:  # a change of mind before the final pick
                first = rng.choice([p for p in PICKS if p != picks[seat]])
                press(BUTTONS[seat][PICKS.index(first)])
                ctrl.poll()
                assert seat in lit_seats(panel)
            if rng.random() < 0.2:  # somebody who is not playing leans on a button
                outsider = rng.choice([s for s in range(5) if s not in in_play])
                press(BUTTONS[outsider][rng.randrange(3)])
            before = session.view().events
            press(BUTTONS[seat][PICKS.index(picks[seat])])
            ctrl.poll()
            view = session.view()
            assert view.events == before + 1
            if last:
                assert view.table["picked"] == [] and lit_seats(panel) == set(view.winners)
            else:
                assert seat in view.table["picked"] and lit_seats(panel) == set(view.table["picked"])
                assert panel.status_green.value and not panel.status_red.value
                press(BUTTONS[seat][PICKS.index(picks[seat])])  # the same again: nothing to change
                ctrl.poll()
                assert session.view().events == before + 1 and not panel.status_red.value
            if n == 0 and rounds == 2:  # undo the first pick of round 2, then pick again
                press(UNDO)
                ctrl.poll()
                undone = True
                # only the last pick goes: after a change of mind the first one stands
                assert session.view().events == before and (seat in lit_seats(panel)) == changed
                press(BUTTONS[seat][PICKS.index(picks[seat])])
                ctrl.poll()
                assert seat in lit_seats(panel)
            clock.advance(0.5)
            ctrl.poll()
            assert not panel.status_green.value
        for seat in in_play:
            shadow.apply(Action.make("pick", seat, pick=picks[seat]))
        assert session.view().table["last_round"] == shadow.rounds[-1]  # revealed
    assert undone and rounds >= 3
    assert sudden == (plan == "sudden death")
    view = session.view()
    assert view.over and list(view.winners) == shadow.winners() and shadow.is_terminal()
    assert [h for h in view.table["holdings"]] == shadow.holdings
    assert lit_seats(panel) == set(view.winners)
    assert not panel.status_red.value and not panel.buzzer.value
    ctrl.close()


def test_the_real_session_logs_the_panel_as_the_source(panel, press, clock, tmp_path):
    from companion.session import Session
    from companion.storage import Store

    with Store(tmp_path / "companion.db") as store:
        session = Session.start(store, "ahyoheek", PLAYERS[:2])
        ctrl = PanelController(panel, session, clock=clock)
        press(BUTTONS[0][1])
        press(UNDO)
        press(BUTTONS[0][2])
        ctrl.poll()
        assert lit_seats(panel) == {0} and panel.status_green.value
        session.act(Action.make("pick", 1, pick="rock"), "touch")  # an illegal input
        ctrl.poll()
        assert panel.status_red.value and panel.buzzer.value and not panel.status_green.value
        press(CONFIRM)
        ctrl.poll()
        assert not panel.status_red.value and not panel.buzzer.value
        events = store.events(session.game_id)
        assert [(e.kind, e.source) for e in events] == [
            ("accepted", "panel"), ("undo", "panel"), ("accepted", "panel"), ("rejected", "touch"),
            ("confirm", "panel")]
        ctrl.close()
