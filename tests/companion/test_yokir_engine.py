"""Yokir with full information: scripted deals with known results, bidding, the void
hand, dealer rotation, the end of the game, refusals, the view and the words."""

import json

import pytest

from companion.errors import IllegalAction
from companion.games import CHANCE, TERMINAL, Action, make_game
from companion.games.base import describe_event

# Dealer 0, so seat 1 bids first and leads the first trick. The 8 cards left are
# IA PA JA PL JL RL SM JM.
HANDS = [["SL", "MM", "RM", "PT", "ST"],   # seat 0
         ["SA", "IL", "IM", "MT", "IT"],   # seat 1: Oracle and Sage of Thought
         ["MA", "RA", "ML", "PM", "RT"]]   # seat 2
UPCARD = "JT"


def deal(state, dealer=0, hands=HANDS, upcard=UPCARD):
    return state.apply(Action.make("deal", None, dealer=dealer, hands=hands, upcard=upcard))


def bid(state, seat, what):
    return state.apply(Action.make("bid", seat, bid=what))


def play(state, seat, card):
    return state.apply(Action.make("play", seat, card=card))


def new(**options):
    return make_game("yokir", **options).new_state()


def accepted_hand():
    """Seat 2 accepts the Journeyman of Thought and discards the Student of Architecture."""
    state = new()
    deal(state)
    out = bid(state, 1, "accept")
    state.apply(Action.make("discard", 1, card="SA"))
    return state, out


# trick by trick: (seat, card) in play order, then the winner
SCRIPT = [([(1, "IT"), (2, "RT"), (0, "ST")], 1),   # the Oracle draws trump
          ([(1, "IL"), (2, "ML"), (0, "PT")], 1),   # the Sage led asks for trump; seat 2 has none
          ([(1, "IM"), (2, "PM"), (0, "MM")], 0),   # Initiate of Art & Music is plain and low
          ([(0, "RM"), (1, "JT"), (2, "RA")], 1),   # seat 1 has no Art & Music left: trumps it
          ([(1, "MT"), (2, "MA"), (0, "SL")], 1)]


def test_scripted_hand_gives_the_known_tricks_and_points():
    state, out = accepted_hand()
    assert out == [{"type": "trump", "hand": 1, "caller": 1, "suit": "T", "round": 1,
                    "oracle": "IT", "sage": "IL"}]
    assert state.hands[1] == ["IL", "IM", "IT", "JT", "MT"]  # deck order
    events = []
    for n, (plays, winner) in enumerate(SCRIPT, start=1):
        assert state.current_player() == plays[0][0]
        for seat, card in plays:
            events += play(state, seat, card)
        trick = events[-1] if events[-1]["type"] == "trick" else events[-2]
        assert trick["trick"] == n and trick["winner"] == winner
    tricks = [e for e in events if e["type"] == "trick"]
    assert tricks[-1]["tricks"] == [1, 4, 0]
    hand = events[-1]
    assert hand == {"type": "hand", "hand": 1, "dealer": 0, "caller": 1, "trump": "T", "tricks": 4,
                    "points": [0, 1, 0], "scores": [0, 1, 0],
                    "why": "seat 2 called Thought and took 4 tricks, so seat 2 scores 1"}
    assert state.current_player() == CHANCE and state.next_dealer() == 1


def test_must_follow_trump_when_the_sage_is_led():
    state, _ = accepted_hand()
    for seat, card in SCRIPT[0][0]:
        play(state, seat, card)
    play(state, 1, "IL")
    play(state, 2, "ML")  # seat 2 has no trump left: any card
    assert state.legal_cards(0) == ["PT"]
    with pytest.raises(IllegalAction, match=r"seat 1 cannot play the Student of Leadership in trick 2: "
                                            r"they must follow Thought and hold the Prentice of "
                                            r"Thought \(rule: follow suit\)"):
        play(state, 0, "SL")


def test_caller_holds_the_upcard_and_discards_from_six():
    state = new()
    deal(state)
    bid(state, 1, "accept")
    assert [a["card"] for a in state.legal_actions()] == ["SA", "IL", "IM", "IT", "JT", "MT"]
    with pytest.raises(IllegalAction, match="say which card"):
        state.apply(Action.make("discard", 1, card=None))
    with pytest.raises(IllegalAction, match="not in seat 2's hand"):
        state.apply(Action.make("discard", 1, card="MA"))
    state.apply(Action.make("discard", 1, card="JT"))  # the upcard itself may go
    assert "JT" not in state.possible_cards(1) and state.current_player() == 1


def test_round_two_names_another_suit_and_the_caller_keeps_five():
    state = new()
    deal(state)
    for seat in (1, 2, 0):
        assert bid(state, seat, "pass") == [] or seat == 0
    assert state.phase == "bid2" and state.current_player() == 1
    assert {a["bid"] for a in state.legal_actions()} == {"pass", "A", "L", "M"}
    with pytest.raises(IllegalAction, match="cannot call Thought in round 2"):
        bid(state, 1, "T")
    bid(state, 1, "pass")
    out = bid(state, 2, "A")
    assert out == [{"type": "trump", "hand": 1, "caller": 2, "suit": "A", "round": 2,
                    "oracle": "IA", "sage": "IM"}]
    assert state.phase == "play" and state.current_player() == 1 and len(state.hands[2]) == 5


def test_three_passes_turn_the_upcard_down():
    state = new()
    deal(state)
    bid(state, 1, "pass")
    bid(state, 2, "pass")
    assert bid(state, 0, "pass") == [{"type": "turned_down", "hand": 1, "card": "JT"}]


def test_all_pass_twice_voids_the_hand_and_the_deal_moves_on():
    state = new()
    deal(state, dealer=2)
    for _ in range(2):
        for seat in (0, 1, 2):
            out = bid(state, seat, "pass")
    assert out == [{"type": "hand", "hand": 1, "dealer": 2, "caller": None, "trump": None,
                    "tricks": None, "points": [0, 0, 0], "scores": [0, 0, 0],
                    "why": "everybody passed twice, the hand is void and nobody scores"}]
    assert state.current_player() == CHANCE and state.next_dealer() == 0
    with pytest.raises(IllegalAction, match=r"hand 2 is dealt by seat 1, not seat 3 \(the deal moves "
                                            r"one seat clockwise after every hand\)"):
        deal(state, dealer=2)
    deal(state, dealer=0)
    assert state.current_player() == 1 and state.hand_no == 2


def test_seeded_deal_draws_the_first_dealer_then_rotates():
    import random

    state = new()
    rng = random.Random(5)
    action = state.sample_chance(rng)
    first = action["dealer"]
    hands = action["hands"]
    cards = [c for h in hands for c in h] + [action["upcard"]]
    assert len(cards) == len(set(cards)) == 16 and all(len(h) == 5 for h in hands)
    state.apply(action)
    for seat in [(first + k) % 3 for k in (1, 2, 0, 1, 2, 0)]:
        bid(state, seat, "pass")
    assert state.sample_chance(rng)["dealer"] == (first + 1) % 3


def run_hands(state, hands):
    """Play whole hands at the table: each is (caller, fail). The caller calls in round 1 and
    sweeps with Thought trumps, or (fail) takes no trick at all."""
    for caller, fail in hands:
        dealer = 0 if state.hand_no == 0 else None  # later deals follow the rotation
        deal(state, dealer=dealer, hands=None, upcard="ST")
        while state.phase == "bid1":
            seat = state.current_player()
            bid(state, seat, "accept" if seat == caller else "pass")
        state.apply(Action.make("discard", caller, card=None))
        lead = state.current_player()
        if fail:
            # the first leader wins everything with Architecture; caller plays low Leadership
            assert lead != caller
            queues = {lead: ["MA", "RA", "JA", "PA", "IA"], caller: ["SL", "PL", "JL", "RL", "ML"]}
        else:
            queues = {caller: ["IT", "IL", "MT", "RT", "JT"]}
            queues[lead if lead != caller else (caller + 1) % 3] = ["MA", "RA", "JA", "PA", "IA"]
        other = next(s for s in range(3) if s not in queues)
        queues[other] = ["SM", "PM", "JM", "RM", "MM"]
        out = []
        while state.phase == "play":
            seat = state.current_player()
            out += play(state, seat, queues[seat].pop(0))
    return out


def test_a_tie_at_seven_plays_on_and_a_single_leader_wins():
    state = new()
    out = run_hands(state, [(0, False)] * 3 + [(1, False)] * 3)
    assert state.scores() == [6, 6, 0]
    # hand 7: dealer 0, seat 1 leads; seat 2 calls and takes nothing: 7, 7, 0 plays on
    out = run_hands(state, [(2, True)])
    assert out[-1]["points"] == [1, 1, 0] and state.scores() == [7, 7, 0]
    assert not state.is_terminal() and state.current_player() == CHANCE
    out = run_hands(state, [(0, False)])
    assert out[-1] == {"type": "game", "winner": 0, "scores": [9, 7, 0],
                       "why": "9 points, alone at the top with 7 or more"}
    assert state.is_terminal() and state.current_player() == TERMINAL and state.winners() == [0]
    with pytest.raises(IllegalAction, match="the game is over"):
        deal(state, dealer=2)


def test_target_option_shortens_the_game():
    state = new(target=2)
    run_hands(state, [(1, False)])
    assert state.is_terminal() and state.winners() == [1] and state.scores() == [0, 2, 0]


@pytest.mark.parametrize("action, words", [
    (Action.make("deal", None, dealer=3, hands=None, upcard="MT"), "dealer must be seat 1, 2 or 3"),
    (Action.make("deal", None, dealer=None, hands=None, upcard="MT"), "first deal must say who deals"),
    (Action.make("deal", None, dealer=0, hands=None, upcard="XX"), "upcard 'XX' is not a Yokir card"),
    (Action.make("deal", None, dealer=0, hands=[HANDS[0], HANDS[0], None], upcard="JT"),
     "the Student of Leadership is dealt twice"),
    (Action.make("deal", None, dealer=0, hands=[HANDS[0][:4], None, None], upcard="JT"),
     "seat 1's hand must be five cards"),
    (Action.make("deal", None, dealer=0, hands=[HANDS[0], None, None], upcard="SL"),
     "dealt twice: to seat 1 and the upcard"),
    (Action.make("deal", 1, dealer=0, hands=None, upcard="MT"), "its seat must be null"),
    (Action.make("deal", None, dealer=0, upcard="MT", extra=1), "a deal has no field 'extra'"),
    (Action.make("play", 1, card="MT"), "seat 2 cannot play the Master of Thought now: Hand 1"),
    (Action.make("shuffle", None), "Yokir has no 'shuffle' move"),
])
def test_bad_deals_and_moves_are_refused_with_the_reason(action, words):
    state = new()
    with pytest.raises(IllegalAction, match=words):
        state.apply(action)
    assert state.history == []


def test_bad_bids_are_refused():
    state = new()
    deal(state)
    with pytest.raises(IllegalAction, match="seat 3 cannot bid now: it is seat 2's turn"):
        bid(state, 2, "pass")
    with pytest.raises(IllegalAction, match="in round 1 a bid is 'accept'"):
        bid(state, 1, "T")
    with pytest.raises(IllegalAction, match="the seats are 1, 2 and 3"):
        state.apply(Action.make("bid", 5, bid="pass"))


def test_view_in_play_with_known_hands():
    state, _ = accepted_hand()
    play(state, 1, "IT")
    view = state.view()
    assert view["turn"] == 2 and view["phase"] == "trick 1 of 5"
    assert view["legal"] == ["RT"] and view["limit"] == "must follow Thought if able"
    assert view["trick"] == [{"seat": 1, "card": "IT"}] and view["last_trick"] is None
    table = view["table"]
    assert (table["trump"], table["oracle"], table["sage"], table["caller"]) == ("T", "IT", "IL", 1)
    assert table["upcard_state"] == "taken up by seat 2" and table["dealer"] == 0
    assert "Seat 3 must follow Thought" in view["next"]
    play(state, 2, "RT")
    play(state, 0, "ST")
    view = state.view()
    assert view["last_trick"]["winner"] == 1 and "Oracle" in view["last_trick"]["why"]
    assert view["trick"] == [] and view["turn"] == 1 and "limit" not in view  # seat 1 leads
    json.dumps(view)


def test_view_while_bidding_lists_the_bids():
    state = new()
    deal(state)
    assert state.view()["legal"] == ["accept", "pass"]
    for seat in (1, 2, 0):
        bid(state, seat, "pass")
    view = state.view()
    assert view["legal"] == ["pass", "A", "L", "M"] and view["phase"] == "bidding, round 2"
    assert view["table"]["upcard_state"] == "turned down"
    assert "may not name Thought" in view["limit"]


def test_describe_gives_words_for_players():
    game = make_game("yokir")
    assert describe_event(game, {"type": "play", "seat": 1, "card": "MT"}) == \
        "Seat 2 plays Master of Thought"
    assert describe_event(game, {"type": "bid", "seat": 0, "bid": "M"}) == "Seat 1 calls Art & Music"
    assert describe_event(game, {"type": "discard", "seat": 2, "card": None}) == \
        "Seat 3 discards a card face down"
    state, out = accepted_hand()
    assert describe_event(game, out[0]).startswith("Thought is trump: seat 2 plays alone against "
                                                   "seats 1 and 3. The Oracle is the Initiate of Thought")
    deal_words = describe_event(game, state.history[0].to_json())
    assert deal_words.startswith("Seat 1 deals; the upcard is the Journeyman of Thought. Hands: seat 1:")


def test_json_round_trip_mid_hand():
    state, _ = accepted_hand()
    play(state, 1, "IT")
    again = state.game.state_from_json(json.loads(json.dumps(state.to_json())))
    assert again == state and again.legal_actions() == state.legal_actions()


def test_describe_says_when_a_tie_plays_on_and_never_fails():
    game = make_game("yokir")
    hand = {"type": "hand", "hand": 7, "why": "seat 3 called Thought and took 0 tricks, so seats 1 "
            "and 1 score 1 each", "scores": [7, 7, 0]}
    assert describe_event(game, hand).endswith("Scores: 7, 7, 0. Seats 1 and 2 share the lead with "
                                               "7: play goes on.")
    assert describe_event(game, {"type": "play", "seat": 1, "card": "ZZ"}).startswith("seat 2 play")
    assert describe_event(game, {"type": "trick", "seat": 1}) == "trick: seat 1"  # the fields as logged
