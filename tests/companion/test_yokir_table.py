"""Yokir at the table: hands unknown, plays checked against what can be seen, revokes
reported when proven, open-hand teaching, and no false alarm on any legal game."""

import json
import random

import pytest

from companion.errors import IllegalAction
from companion.eventlog import bot_game
from companion.games import Action, make_game

GAME = make_game("yokir")


def table(upcard="JT", hands=None, dealer=0):
    """A fresh table-mode state after the deal (dealer 0: seat 2 bids and leads first)."""
    state = GAME.new_state()
    state.apply(Action.make("deal", None, dealer=dealer, hands=hands, upcard=upcard))
    return state


def bid(state, *bids):
    out = []
    for b in bids:
        out += state.apply(Action.make("bid", state.current_player(), bid=b))
    return out


def plays(state, *cards):
    """Each card played by the seat to act; returns the outcomes."""
    out = []
    for card in cards:
        out += state.apply(Action.make("play", state.current_player(), card=card))
    return out


def called(trump_by="accept", **kw):
    """Seat 2 calls: accepts the upcard (and discards face down) or names a suit in round 2."""
    state = table(**kw)
    if trump_by == "accept":
        bid(state, "accept")
        state.apply(Action.make("discard", 1, card=None))
    else:
        bid(state, "pass", "pass", "pass", trump_by)
    return state


def verdicts(outcomes):
    return [o for o in outcomes if o["type"] == "verdict"]


def test_unknown_hands_accept_any_consistent_play_and_score_it():
    state = called()  # Thought trump
    assert state.legal_cards(1) is None and len(state.legal_actions()) == 24
    out = plays(state, "MA", "RT", "SA")  # seat 2 cannot be proven wrong: it may have no Architecture
    assert out[-1]["type"] == "trick" and out[-1]["winner"] == 2
    assert state.current_player() == 2


def test_a_card_seen_twice_is_refused():
    state = called()
    plays(state, "MA")
    with pytest.raises(IllegalAction, match=r"seat 3 cannot play the Master of Architecture in trick 1: "
                                            r"seat 2 already played it in trick 1 of this hand \(rule: "
                                            r"each card is in the deck once\)"):
        plays(state, "MA")
    plays(state, "SA", "PA", "RT")  # seat 1 won and leads again
    with pytest.raises(IllegalAction, match="seat 3 cannot play the Student of Architecture in trick 2: "
                                            "seat 3 already played it in trick 1"):
        plays(state, "SA")


def test_a_play_out_of_turn_is_refused():
    state = called()
    with pytest.raises(IllegalAction, match=r"seat 3 cannot play the Master of Thought in trick 1: it "
                                            r"is seat 2's turn \(the seat left of the dealer leads the "
                                            r"first trick; rule: turn order\)"):
        state.apply(Action.make("play", 2, card="MT"))
    plays(state, "MA", "SA", "PA")
    with pytest.raises(IllegalAction, match=r"it is seat 2's turn.*the winner of the last trick leads"):
        state.apply(Action.make("play", 0, card="MT"))


def test_the_turned_down_upcard_belongs_to_no_one():
    state = called(trump_by="A")  # everybody passed round 1 with the Journeyman of Thought up
    with pytest.raises(IllegalAction, match=r"seat 2 cannot play the Journeyman of Thought in trick 1: "
                                            r"it is the upcard, turned down when all passed in round 1 "
                                            r"\(rule: a card that belongs to no one\)"):
        plays(state, "JT")
    assert "JT" not in state.possible_cards(1)


def test_the_taken_upcard_belongs_to_the_caller():
    state = called()
    plays(state, "MT")
    with pytest.raises(IllegalAction, match="seat 3 cannot play the Journeyman of Thought in trick 1: "
                                            "it is the upcard, taken up by seat 2"):
        plays(state, "JT")
    plays(state, "RT", "ST", "JT")  # seat 1 may play it: it wins trick 1, leads trick 2
    assert state.played["JT"] == (1, 2)


def test_a_discard_seen_by_the_table_is_out_of_play():
    state = table()
    bid(state, "accept")
    state.apply(Action.make("discard", 1, card="JT"))  # shown to the referee
    with pytest.raises(IllegalAction, match="seat 2 discarded it face down"):
        plays(state, "JT")


def test_a_revoke_is_proven_later_and_named():
    state = called()  # Thought trump
    plays(state, "MA", "ST", "PA")  # seat 2 trumps the Architecture lead
    assert state.view()["table"]["shown_out"][2] == ["A"]
    out = plays(state, "RA")  # seat 2 won and leads an Architecture card: it had one in trick 1
    assert verdicts(out) == [{
        "type": "verdict", "hand": 1, "seat": 2, "trick": 1, "card": "RA", "rule": "revoke",
        "text": "Seat 3 revoked in trick 1: they did not follow Architecture there, yet they held "
                "the Scribe of Architecture, shown in trick 2 (rule: follow suit if able)."}]
    out = plays(state, "JA", "SA", "IA")  # shown again: reported once per revoke
    assert verdicts(out) == []
    assert state.scores() == [0, 0, 0] and len(state.verdicts) == 1


def test_the_sage_belongs_to_trump_when_proving_a_revoke():
    state = called()  # Thought trump: the Initiate of Leadership is the Sage
    out = plays(state, "MT", "SL", "PT")  # seat 2 shows out of trump
    assert verdicts(out) == []
    out = plays(state, "MA", "IL")  # seat 2 now plays the Sage: it held a trump in trick 1
    assert [(v["seat"], v["trick"], v["card"]) for v in verdicts(out)] == [(2, 1, "IL")]
    assert "which counts as Thought" in verdicts(out)[0]["text"]


def test_the_sage_is_no_leadership_card():
    state = called()  # Thought trump: the Initiate of Leadership is the Sage
    plays(state, "ML", "MT", "SA")  # seat 2 trumps Leadership: shows out of Leadership
    out = plays(state, "IL")  # seat 2 leads the Sage, a trump: nothing proven
    assert verdicts(out) == []
    state = called()
    plays(state, "ML", "IL", "SA")  # seat 2 plays the Sage on Leadership: shows out of it
    out = plays(state, "PL")  # seat 2 leads a Leadership card: it held one in trick 1
    assert [(v["seat"], v["trick"], v["card"]) for v in verdicts(out)] == [(2, 1, "PL")]


def test_open_hand_legality_is_exact_for_the_known_seat_only():
    hand = ["IL", "SL", "MA", "RT", "JM"]
    state = table(hands=[None, None, hand])
    bid(state, "accept")
    state.apply(Action.make("discard", 1, card=None))
    plays(state, "MT")
    assert state.legal_cards(2) == ["IL", "RT"]
    view = state.view()
    assert view["legal"] == ["IL", "RT"]
    assert ("Seat 3 must follow Thought; the Initiate of Leadership is the Sage of Thought and counts "
            "as trump.") in view["next"]
    with pytest.raises(IllegalAction, match="seat 3 cannot play the Master of Architecture in trick 1: "
                                            "they must follow Thought"):
        plays(state, "MA")
    with pytest.raises(IllegalAction, match="seat 3 cannot play the Master of Leadership in trick 1: "
                                            "it is not in seat 3's hand"):
        plays(state, "ML")
    plays(state, "RT")
    assert "legal" not in state.view()  # seat 0's hand is unknown
    with pytest.raises(IllegalAction, match="seat 1 cannot play the Student of Leadership in trick 1: "
                                            "it is in seat 3's hand"):
        plays(state, "SL")


def test_the_bot_needs_the_hand():
    state = called()
    with pytest.raises(IllegalAction, match="hand is not known"):
        GAME.bot_action(state, random.Random(0))


def public_replay(events):
    """Apply the table's view of a full-information log to a fresh state; return the outcomes."""
    state = GAME.new_state()
    outcomes = []
    for event in events:
        if event["type"] in GAME.action_kinds:
            public = GAME.public_action(Action.from_json(event))
            if public is not None:
                outcomes += state.apply(public)
    return state, outcomes


def full_outcomes(events):
    return [e for e in events if e["type"] in GAME.outcome_kinds]


def test_public_action_hides_the_hands_and_the_discard():
    deal = Action.make("deal", None, dealer=1, hands=[["IA"] * 5] * 3, upcard="MT")
    assert GAME.public_action(deal).to_json() == {"type": "deal", "seat": None, "dealer": 1,
                                                  "hands": None, "upcard": "MT"}
    assert GAME.public_action(Action.make("discard", 2, card="SA")).to_json() == \
        {"type": "discard", "seat": 2, "card": None}
    play = Action.make("play", 0, card="MT")
    assert GAME.public_action(play) == play


@pytest.mark.parametrize("bots", [True, False], ids=["bots", "random-players"])
def test_no_false_alarm_when_legal_games_are_replayed_with_hidden_hands(bots):
    seeds = range(100) if bots else range(50)
    for seed in seeds:
        state, events = bot_game(GAME, seed, bot=bots)
        public_state, outcomes = public_replay(events)
        assert not verdicts(outcomes), f"seed {seed}: {verdicts(outcomes)[0]['text']}"
        assert outcomes == full_outcomes(events), f"seed {seed}"
        assert public_state.is_terminal() and public_state.scores() == state.scores()
        assert public_state.winners() == state.winners()


def test_table_state_round_trips_through_json():
    state = called()
    plays(state, "MA", "ST", "PA", "RA")  # with a verdict in it
    again = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
    assert again == state and again.verdicts == state.verdicts


def test_open_hand_games_replay_too():
    # seat 0's hand known (a student), the others hidden: every bot game replays cleanly
    for seed in range(10):
        _, events = bot_game(GAME, seed)
        state = GAME.new_state()
        for event in events:
            if event["type"] not in GAME.action_kinds:
                continue
            action = Action.from_json(event)
            if action.kind == "deal":
                hands = [event["hands"][0], None, None]
                action = Action.make("deal", None, dealer=event["dealer"], hands=hands,
                                     upcard=event["upcard"])
            elif action.kind == "discard" and action.seat != 0:
                action = GAME.public_action(action)
            assert not verdicts(state.apply(action))
        assert state.is_terminal()


def test_a_deal_seen_by_the_camera_may_leave_out_the_hands():
    state = GAME.new_state()
    state.apply(Action.from_json({"type": "deal", "seat": None, "dealer": 2, "upcard": "MT"}))
    assert state.hands == [None, None, None] and state.current_player() == 0
    assert state.view()["table"]["upcard_state"] == "face up"
