"""The Piktas engine with full information: the round, the field, voids, rounds, betting,
bots, hints, the view and the words."""

from __future__ import annotations

import json
import random

import pytest

from companion.errors import IllegalAction
from companion.eventlog import bot_game
from companion.games import Action, make_game
from companion.games.base import describe_event
from companion.games.piktas import ALL_CARDS, hints
from companion.games.piktas.rules import score
from companion.games.piktas.state import _deal_position

HANDS_2 = [["O3", "O4", "W9", "K1", "raven", "void1"], ["U1", "U2", "M5", "M6", "jackal", "W2"]]
FIELD_2 = [["O5"], ["void2", "O6"], ["M2"]]


def deal(state, dealer=1, hands=HANDS_2, field=FIELD_2):
    return state.apply(Action.make("deal", None, dealer=dealer, hands=hands, field=field))


def act(state, kind, seat=None, **data):
    return state.apply(Action.make(kind, seat, **data))


def pass_cycle(state):
    out = []
    for _ in range(state.game.players):
        out += act(state, "pass", state.current_player())
    return out


def test_three_cycles_then_the_showdown():
    state = make_game("piktas", 2).new_state()
    deal(state)
    seen = []
    for card in ("O7", "K7", "W7"):
        assert state.phase == "swap" and state.current_player() == 0  # left of dealer 1
        seen.append((state.cycle, len(state.field)))
        pass_cycle(state)
        assert state.is_chance()
        act(state, "draw", cards=[card])
    assert seen == [(1, 3), (2, 4), (3, 5)]
    assert state.phase == "show" and len(state.field) == 6
    out = act(state, "show", 0, hand=HANDS_2[0])
    assert out[0] == {"type": "score", "round": 1, "seat": 0,
                      **score(HANDS_2[0], state.field_cards()).to_json()}
    out = act(state, "show", 1, hand=HANDS_2[1])
    result = out[-1]
    assert result["type"] == "round" and state.is_terminal()
    totals = [score(h, state.field_cards()).total for h in HANDS_2]
    assert result["totals"] == totals == state.scores()
    assert result["winners"] == [totals.index(max(totals))]


def test_swap_and_void_move_the_cards():
    state = make_game("piktas", 2).new_state()
    deal(state)
    act(state, "swap", 0, take="M2", give="K1")
    assert state.field == [["O5"], ["void2", "O6"], ["K1"]]
    assert state.hands[0] == ["O3", "O4", "W9", "M2", "raven", "void1"]
    act(state, "pass", 1)
    act(state, "draw", cards=["O7"])
    act(state, "void", 0, void="void1", on="O5")
    assert state.field[0] == ["void1", "O5"] and state.hand_size == [5, 6]
    assert "void1" not in state.hands[0]
    assert state.takeable() == ["K1", "O7"]
    assert state.field_cards() == ["O5", "O6", "K1", "O7"]  # covered cards still score


@pytest.mark.parametrize("move, words", [
    (dict(kind="swap", seat=0, take="O6", give="O3"),
     r"seat 1 cannot take O6 in cycle 1: it is covered by void2, and a covered card cannot be"),
    (dict(kind="swap", seat=0, take="void2", give="O3"), "a void in the field stays there"),
    (dict(kind="swap", seat=0, take="M2", give="void1"), "a void is placed on a field card"),
    (dict(kind="swap", seat=0, take="M2", give="U1"), "U1 is held by seat 2"),
    (dict(kind="swap", seat=0, take="K9", give="O3"), "K9 in cycle 1: it is not in the field"),
    (dict(kind="swap", seat=1, take="M2", give="U1"),
     "seat 2 cannot swap out of turn: it is seat 1's turn in cycle 1 of round 1"),
    (dict(kind="void", seat=0, void="O3", on="M2"), "not a void"),
    (dict(kind="void", seat=0, void="void1", on="O6"), "covered by void2"),
    (dict(kind="show", seat=0, hand=HANDS_2[0]), "cannot show now"),
    (dict(kind="draw", seat=None, cards=["O7"]), "no draw is due"),
    (dict(kind="swap", seat=0, take="M2", give="Q7"), "'Q7' is not a Piktas card"),
])
def test_illegal_moves_say_why(move, words):
    state = make_game("piktas", 2).new_state()
    deal(state)
    kind, seat = move.pop("kind"), move.pop("seat")
    with pytest.raises(IllegalAction, match=words):
        act(state, kind, seat, **move)


def test_a_void_in_the_field_cannot_be_taken():
    state = make_game("piktas", 2).new_state()
    deal(state)
    assert Action.make("swap", 0, take="void2", give="O3") not in state.legal_actions()
    with pytest.raises(IllegalAction, match="a void in the field stays there for the round"):
        act(state, "swap", 0, take="void2", give="O3")


def test_a_swap_cannot_give_a_void():
    state = make_game("piktas", 2).new_state()
    deal(state)
    legal = state.legal_actions()
    assert not [a for a in legal if a.kind == "swap" and a["give"] == "void1"]
    assert Action.make("void", 0, void="void1", on="M2") in legal
    assert Action.make("void", 0, void="void1", on="O6") not in legal  # O6 is covered


def test_a_void_under_a_void():
    assert _deal_position(["void1", "void2", "K3", "O1"]) == ["void1", "void2", "K3"]
    state = make_game("piktas", 2).new_state()
    deal(state, field=[["O5"], ["void1", "void2", "O6"], ["M2"]],
         hands=[[*HANDS_2[0][:5], "K2"], HANDS_2[1]])
    assert state.takeable() == ["O5", "M2"] and state.field_cards() == ["O5", "O6", "M2"]
    with pytest.raises(IllegalAction, match="voids with the card dealt under them"):
        deal(make_game("piktas", 2).new_state(), field=[["O5"], ["void2", "O6", "O7"], ["M2"]])


def test_eleven_players_run_the_stock_dry():
    field = [["void1", "O1"], ["O2"], ["O3"]]
    rest = [c for c in ALL_CARDS if c not in ("void1", "O1", "O2", "O3", "O4", "void2")]
    hands = [rest[6 * i:6 * i + 6] for i in range(11)]
    state = make_game("piktas", 11).new_state()
    deal(state, dealer=0, hands=hands, field=field)
    assert state.stock == 2
    pass_cycle(state)
    with pytest.raises(IllegalAction, match="a void dealt into the field gets the next card"):
        act(state, "draw", cards=["void2"])
    act(state, "draw", cards=["O4"])
    pass_cycle(state)
    act(state, "draw", cards=["void2"])  # the last card: no card left to go under it
    assert state.field[-1] == ["void2"] and state.stock == 0
    pass_cycle(state)
    assert state.phase == "show" and len(state.field) == 5  # nothing left to deal: showdown
    assert state.takeable() == ["O2", "O3", "O4"]


def test_rounds_rotate_the_dealer_and_sum_the_totals():
    game = make_game("piktas", 3, rounds=2)
    state = game.new_state()
    rng = random.Random(4)
    first = state.sample_chance(rng)
    state.apply(first)
    while state.phase != "deal":
        state.apply(state.sample_chance(rng) if state.is_chance() else game.bot_action(state, rng))
    round_one = list(state.scores())
    bad = Action.make("deal", None, dealer=first["dealer"], hands=None,
                      field=[["O1"], ["O2"], ["O3"]])
    with pytest.raises(IllegalAction, match=f"passes to the dealer's left, seat "
                                            f"{(first['dealer'] + 1) % 3 + 1}"):
        state.apply(bad)
    second = state.sample_chance(rng)
    assert second["dealer"] == (first["dealer"] + 1) % 3
    state.apply(second)
    while not state.is_terminal():
        state.apply(state.sample_chance(rng) if state.is_chance() else game.bot_action(state, rng))
    last = state.results[-1]["totals"]
    assert state.scores() == [a + b for a, b in zip(round_one, last, strict=True)]
    assert [r["round"] for r in state.results] == [1, 2]


def test_a_full_tie_is_shared():
    # both hands add nothing; the field's Quintet of 10s is the same for both
    hands = [["O1", "W3", "K5", "M7", "W8", "void1"], ["O2", "U3", "W4", "K6", "M8", "void2"]]
    state = make_game("piktas", 2).new_state()
    deal(state, hands=hands, field=[["O10"], ["W10"], ["K10"]])
    for card in ("U10", "M10", "raven"):
        pass_cycle(state)
        act(state, "draw", cards=[card])
    act(state, "show", 0, hand=hands[0])
    result = act(state, "show", 1, hand=hands[1])[-1]
    assert result["totals"][0] == result["totals"][1]
    assert result["winners"] == [0, 1] and "equal on every tie-break" in result["why"]


def betting_state(players=3):
    game = make_game("piktas", players, betting=True, buy_in=2, max_raise=5)
    state = game.new_state()
    cards = [c for c in ALL_CARDS if c not in ("O10", "W10", "K9", "U1", "M5", "O8")]
    hands = [cards[6 * i:6 * i + 6] for i in range(players)]
    out = deal(state, dealer=0, hands=hands, field=[["O10"], ["W10"], ["K9"]])
    for card in ("U1", "M5", "O8"):
        pass_cycle(state)
        act(state, "draw", cards=[card])
    return state, hands, out


def test_betting_cycle_tracks_the_pot():
    state, hands, out = betting_state()
    assert out == [{"type": "buy_in", "round": 1, "each": 2, "pot": 6}]
    assert state.phase == "bet" and state.current_player() == 1
    with pytest.raises(IllegalAction, match="nothing to match"):
        act(state, "match", 1)
    act(state, "stay", 1)
    with pytest.raises(IllegalAction, match="a raise is 1 to 5 chips"):
        act(state, "raise", 2, amount=6)
    act(state, "raise", 2, amount=3)
    assert state.pot == 9 and state.to_act == [0, 1]
    with pytest.raises(IllegalAction, match="cannot stay: the bet was raised, so they match 3"):
        act(state, "stay", 0)
    act(state, "match", 0)
    act(state, "fold", 1)
    assert state.phase == "show" and state.to_show == [2, 0] and state.pot == 12
    act(state, "show", 2, hand=hands[2])
    result = act(state, "show", 0, hand=hands[0])[-1]
    assert result["totals"][1] is None and result["pot"] == 12
    winner = result["winners"][0]
    assert state.scores()[winner] == 12 - 5 and sum(state.scores()) == 0
    assert state.scores()[1] == -2


def test_all_but_one_fold_ends_the_betting():
    state, hands, _ = betting_state()
    act(state, "raise", 1, amount=1)
    act(state, "fold", 2)
    act(state, "fold", 0)
    assert state.phase == "show" and state.to_show == [1]
    result = act(state, "show", 1, hand=hands[1])[-1]
    assert result["winners"] == [1] and result["why"].startswith("the only hand shown")
    assert state.scores() == [-2, 6 - 2 - 1 + 1, -2]


def test_an_odd_chip_goes_to_the_first_winner_clockwise():
    # seats 0 and 1 tie on the field's Quintet of 10s; seat 2 folds; the pot of 3 splits 2 + 1
    hands = [["O1", "W3", "K5", "M7", "W8", "void1"], ["O2", "U3", "W4", "K6", "M8", "void2"],
             ["O4", "O5", "O6", "K1", "K2", "U2"]]
    state = make_game("piktas", 3, betting=True).new_state()
    deal(state, dealer=0, hands=hands, field=[["O10"], ["W10"], ["K10"]])
    for card in ("U10", "M10", "raven"):
        pass_cycle(state)
        act(state, "draw", cards=[card])
    act(state, "stay", 1)
    act(state, "fold", 2)
    act(state, "stay", 0)
    act(state, "show", 1, hand=hands[1])
    result = act(state, "show", 0, hand=hands[0])[-1]
    assert result["winners"] == [0, 1] and result["pot"] == 3
    assert state.scores() == [-1 + 1, -1 + 2, -1]  # seat 1 is first clockwise from dealer 0


@pytest.mark.parametrize("options", [{}, {"betting": True, "rounds": 2}])
def test_bots_play_legal_reproducible_games(options):
    game = make_game("piktas", 4, **options)
    state, events = bot_game(game, seed=11)
    again = make_game("piktas", 4, **options).new_state()
    for action in state.history:
        assert action in again.legal_actions() or again.is_chance()
        again.apply(action)
    assert again == state and bot_game(game, seed=11)[1] == events
    assert json.loads(json.dumps(events)) == events  # lists, not tuples; string keys
    assert json.loads(json.dumps(state.to_json())) == state.to_json()
    assert game.state_from_json(state.to_json()) == state


def test_the_bot_takes_the_first_hint():
    game = make_game("piktas", 2)
    state = game.new_state()
    deal(state, hands=[["O7", "K7", "M2", "U1", "U2", "lizard"], HANDS_2[0]],
         field=[["W7"], ["U3"], ["O9"]])
    best = hints(state.hands[0], state.takeable())[0]
    assert game.bot_action(state, random.Random(0)) == best.action(0)


def test_hint_swaps_a_dead_card_for_the_full_hand():
    moves = hints(["O7", "K7", "M2"], ["W7", "U3", "O9"])
    best = moves[0]
    assert (best.kind, best.take, best.give, best.score.total) == ("swap", "W7", "M2", 3 + 2)
    assert best.field_total == 0
    assert {m.score.total for m in moves} == {3, 5}
    assert len(moves) == 1 + 3 * 3


def test_hint_places_a_void_on_the_card_it_needs():
    # with the void gone the hand is all in the trio: Full Hand; covering W7 also keeps it
    best = hints(["O7", "K7", "void1"], ["W7", "U3"])[0]
    assert (best.kind, best.give, best.on, best.score.total) == ("void", "void1", "W7", 5)


def test_hint_prefers_the_move_that_leaves_the_field_weakest():
    # taking U5 breaks the field's own Duo of 5s, so the others lose it
    moves = hints(["O1", "K3"], ["W5", "U5", "M9"])
    assert moves[0].kind == "swap" and moves[0].take in ("W5", "U5")
    assert moves[0].field_total == 0 < moves[-1].field_total


def test_view_shows_the_table():
    state = make_game("piktas", 2).new_state()
    assert state.view()["turn"] is None and "deals" in state.view()["next"]
    deal(state)
    view = state.view()
    assert view["turn"] == 0 and view["phase"] == "round 1, cycle 1 of 3"
    assert view["legal"] == HANDS_2[0]
    table = view["table"]
    assert table["field"][1] == {"card": "O6", "voids": ["void2"], "covered": True}
    assert table["takeable"] == ["O5", "M2"] and table["covered"] == ["O6"]
    assert table["hand_counts"] == [6, 6] and table["stock"] == 72 - 12 - 4
    assert "pot" not in table
    assert table["hint"] == state.hints()[0].to_json()
    assert table["hint"]["total"] == score(HANDS_2[0], state.field_cards()).total
    json.dumps(view)
    betting, _, _ = betting_state()
    view = betting.view()
    assert view["table"]["pot"] == 6 and view["limit"] == "stay, raise or fold"


def test_every_event_has_words():
    game = make_game("piktas", 3, betting=True)
    _, events = bot_game(game, seed=5)
    for event in events:
        text = describe_event(game, event)
        assert text and "\n" not in text
        if event["type"] not in ("start", "end"):
            assert game.describe(event), event


def test_random_deals_are_whole_and_seeded():
    state = make_game("piktas", 5).new_state()
    a = state.sample_chance(random.Random(9))
    assert a == state.sample_chance(random.Random(9))
    cards = [c for h in a["hands"] for c in h] + [c for p in a["field"] for c in p]
    assert len(cards) == len(set(cards)) == 30 + sum(len(p) for p in a["field"])
    assert len(a["field"]) == 3 and all(len(h) == 6 for h in a["hands"])
