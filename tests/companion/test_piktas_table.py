"""Piktas at the table: hidden hands, what the camera sees, refusals and verdicts."""

from __future__ import annotations

import pytest

from companion.errors import IllegalAction
from companion.eventlog import bot_game
from companion.games import Action, make_game

FIELD = [["O5"], ["void2", "O6"], ["M2"]]


def act(state, kind, seat=None, **data):
    return state.apply(Action.make(kind, seat, **data))


def table(players=3, hands=None, field=FIELD, dealer=0):
    state = make_game("piktas", players).new_state()
    act(state, "deal", dealer=dealer, hands=hands, field=field)
    return state


def public_replay(game, history):
    state = game.new_state()
    outcomes = []
    for action in history:
        seen = game.public_action(action)
        if seen is not None:
            outcomes += state.apply(seen)
    return state, outcomes


@pytest.mark.parametrize("players, options, seeds", [
    (2, {}, 25), (3, {"betting": True}, 25), (4, {"rounds": 2}, 15), (6, {}, 15),
    (11, {"betting": True}, 4)])
def test_no_false_alarm_replaying_what_the_table_saw(players, options, seeds):
    game = make_game("piktas", players, **options)
    for seed in range(seeds):
        state, events = bot_game(game, seed)
        seen, outcomes = public_replay(game, state.history)
        assert outcomes == [e for e in events if e["type"] in game.outcome_kinds], seed
        assert not [o for o in outcomes if o["type"] == "verdict"]
        assert seen.is_terminal() and seen.scores() == state.scores()
        assert seen.winners() == state.winners()


def test_public_deal_hides_the_hands_only():
    game = make_game("piktas", 2)
    deal = Action.make("deal", None, dealer=1, hands=[["O1"] * 6, ["O2"] * 6], field=FIELD)
    assert game.public_action(deal) == Action.make("deal", None, dealer=1, hands=None, field=FIELD)
    swap = Action.make("swap", 0, take="O5", give="K1")
    assert game.public_action(swap) == swap


def test_hidden_hands_accept_anything_consistent():
    state = table()
    assert state.view()["turn"] == 1 and "legal" not in state.view()
    assert state.view()["table"]["hint"] is None and state.hints() == []
    act(state, "swap", 1, take="M2", give="K1")  # any card not seen elsewhere
    act(state, "void", 2, void="void1", on="O5")
    act(state, "pass", 0)
    assert state.hand_size == [6, 6, 5] and state.where["M2"] == 1
    legal = state.legal_actions()
    assert Action.make("swap", 1, take="K1", give="W3") not in legal  # not seat 1's turn
    assert state.is_chance()


@pytest.mark.parametrize("moves, bad, words", [
    ([], dict(kind="swap", seat=2, take="M2", give="K1"),
     r"seat 3 cannot swap out of turn: it is seat 2's turn in cycle 1 of round 1 \(play goes "
     r"clockwise"),
    ([], dict(kind="swap", seat=1, take="O6", give="K1"),
     "seat 2 cannot take O6 in cycle 1: it is covered by void2, and a covered card cannot be "
     "exchanged"),
    ([], dict(kind="swap", seat=1, take="M2", give="O5"),
     r"seat 2 cannot give O5 in cycle 1: O5 is in the field \(a card seen twice\)"),
    ([dict(kind="swap", seat=1, take="M2", give="K1")], dict(kind="swap", seat=2, take="K1",
                                                              give="M2"),
     "M2 is held by seat 2, taken from the field in cycle 1"),
    ([], dict(kind="void", seat=1, void="void2", on="O5"), "void2 is in the field"),
])
def test_what_the_table_sees_wrong_is_refused_at_once(moves, bad, words):
    state = table()
    for move in moves:
        move = dict(move)
        act(state, move.pop("kind"), move.pop("seat"), **move)
    kind, seat = bad.pop("kind"), bad.pop("seat")
    with pytest.raises(IllegalAction, match=words):
        act(state, kind, seat, **bad)


def to_showdown(state, cards=("O7", "K7", "W7")):
    for card in cards:
        while not state.is_chance():
            act(state, "pass", state.current_player())
        act(state, "draw", cards=[card])
    assert state.phase == "show"


def test_a_shown_hand_is_checked_against_what_was_seen():
    state = table(players=2)
    act(state, "swap", 1, take="M2", give="K1")
    to_showdown(state)
    with pytest.raises(IllegalAction, match="seat 2 shows 5 cards but holds 6"):
        act(state, "show", 1, hand=["M2", "U1", "U2", "U3", "U4"])
    with pytest.raises(IllegalAction, match=r"cannot show K1: K1 is in the field \(a card seen"):
        act(state, "show", 1, hand=["M2", "U1", "U2", "U3", "U4", "K1"])
    out = act(state, "show", 1, hand=["M2", "U1", "U2", "U3", "U4", "U5"])
    assert [o["type"] for o in out] == ["score"]
    with pytest.raises(IllegalAction, match="cannot show M2: M2 is held by seat 2"):
        act(state, "show", 0, hand=["M2", "O1", "O2", "O3", "O4", "O8"])


def test_a_hand_without_a_card_taken_earlier_is_a_verdict():
    state = table(players=2)
    act(state, "swap", 1, take="M2", give="K1")
    to_showdown(state)
    out = act(state, "show", 1, hand=["U1", "U2", "U3", "U4", "U5", "U6"])
    verdict = out[0]
    assert verdict == {"type": "verdict", "round": 1, "seat": 1, "rule": "swap-only",
                       "text": "Seat 2 took M2 in cycle 1 from the field but does not show it: "
                               "a card leaves a hand only by a swap with the field."}
    assert out[1]["type"] == "score" and out[1]["total"] >= 0  # the hand still counts as shown
    assert state.view()["table"]["verdicts"] == [verdict]


def test_open_hand_teaching_knows_one_seat_exactly():
    learner = ["O3", "O4", "W9", "K1", "raven", "void1"]
    state = table(players=2, hands=[learner, None], dealer=1)
    view = state.view()
    assert view["turn"] == 0 and view["legal"] == learner
    with pytest.raises(IllegalAction, match="their hand is O3 O4 W9 K1 raven void1"):
        act(state, "swap", 0, take="M2", give="U1")
    act(state, "swap", 0, take="M2", give="K1")
    with pytest.raises(IllegalAction, match="O3 is held by seat 1"):
        act(state, "swap", 1, take="K1", give="O3")
    act(state, "swap", 1, take="K1", give="U1")  # the hidden seat: anything unseen
    assert state.hands[0] == ["O3", "O4", "W9", "M2", "raven", "void1"]
    assert state.hands[1] is None


def test_the_table_deal_is_checked():
    state = make_game("piktas", 2).new_state()
    with pytest.raises(IllegalAction, match="the deal shows O5 twice"):
        act(state, "deal", dealer=0, hands=None, field=[["O5"], ["O5"], ["M2"]])
    with pytest.raises(IllegalAction, match="dealer is a seat from 0 to 1"):
        act(state, "deal", dealer=2, hands=None, field=FIELD)
    with pytest.raises(IllegalAction, match="3 positions"):
        act(state, "deal", dealer=0, hands=None, field=[["O5"]])
    act(state, "deal", dealer=0, hands=None, field=FIELD)
    with pytest.raises(IllegalAction, match="no deal is due"):
        act(state, "deal", dealer=1, hands=None, field=FIELD)
