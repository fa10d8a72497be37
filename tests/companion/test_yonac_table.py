"""Yonac at the table: cards arrive as the camera sees them, the Pile is known by
elimination, what is provably wrong is refused with the seat, the card, the turn and the
rule; the view model carries what the kiosk draws. Also random playouts over many seeds."""

import json
import random

import pytest

from companion.cards import get_deck
from companion.errors import IllegalAction
from companion.eventlog import bot_game, dumps, parse_lines, replay
from companion.games import Action, make_game, play_out


def new(players=3, threshold=2, jokers=True):
    return make_game("yonac", players, threshold=threshold, jokers=jokers).new_state()


def collect(state, *cards):
    out = state.apply(Action.make("collect", state.current_player(), count=len(cards)))
    return out + state.apply(Action.make("draw", None, cards=list(cards)))


# -- public actions replay a full-information game ------------------------------------------

@pytest.mark.parametrize(("players", "threshold", "jokers"), [(2, 2, False), (4, 2, True),
                                                             (6, 3, True), (10, 2, True)])
def test_public_actions_of_bot_games_replay_to_the_same_outcomes_without_verdicts(
        players, threshold, jokers):
    game = make_game("yonac", players, threshold=threshold, jokers=jokers)
    for seed in range(40):
        full, events = bot_game(game, seed)
        table = game.new_state()
        seen = []
        for event in events[1:-1]:
            if event["type"] in game.action_kinds:
                public = game.public_action(Action.from_json(event))
                assert public is not None
                seen += table.apply(public)
        expected = [e for e in events if e["type"] in game.outcome_kinds]
        assert seen == expected, f"seed {seed}"
        assert not any(e["type"] == "verdict" for e in seen)
        assert table.scores() == full.scores() and table.winners() == full.winners()


def test_outcomes_do_not_depend_on_the_order_the_camera_lists_a_set():
    a, b = new(), new()
    assert collect(a, "AC", "7H", "2D") == collect(b, "2D", "AC", "7H")
    assert a == b


# -- what is provably wrong is refused, naming seat, card, turn and rule -----------------------

def test_a_card_shown_that_is_already_in_someones_stash_is_flagged():
    state = new()
    collect(state, "5H", "6H")
    state.apply(Action.make("collect", 1, count=2))
    with pytest.raises(IllegalAction) as err:
        state.apply(Action.make("draw", None, cards=["2C", "5H"]))
    assert str(err.value) == ("turn 2: seat 2's Set shows the 5 of Hearts (5H), but it is already "
                              "in seat 1's Stash: it cannot come from the Pile (§ 2.2.1)")
    assert state.step == "draw" and len(state.history) == 3  # nothing changed


def test_a_card_set_aside_or_already_in_the_set_is_flagged():
    state = new()
    collect(state, "AH")
    state.apply(Action.make("collect", 1, count=1))
    with pytest.raises(IllegalAction, match=r"seat 2's Set shows the Ace of Hearts \(AH\), but it is "
                                             r"set aside by seat 1"):
        state.apply(Action.make("draw", None, cards=["AH"]))
    state.apply(Action.make("draw", None, cards=["AD"]))
    state.apply(Action.make("add", 1, count=1))
    with pytest.raises(IllegalAction, match=r"turn 2: .*\(AD\), but it is already in this Set"):
        state.apply(Action.make("draw", None, cards=["AD"]))


def test_a_card_back_in_the_pile_after_a_loss_may_be_shown_again():
    state = new(players=4)
    collect(state, "5H")
    collect(state, "AS")
    collect(state, "6H")
    collect(state, "7H")
    collect(state, "AS", "8H")  # seat 0 is out: 5H and the Ace of Spades go back
    assert {"5H", "AS", "8H"} <= state.pile
    assert collect(state, "5H")[0]["cards"] == ["5H"]


@pytest.mark.parametrize(("cards", "message"), [
    (["ZZ"], r"shows 'ZZ', which is not a card of the standard deck"),
    (["10X"], r"closest: .*\(10"),
    (["2C", "2C"], r"shows the 2 of Clubs \(2C\) twice"),
    (["2C", "3C", "4C"], r"shows 3 cards \(2C, 3C, 4C\), but 2 cards were picked up"),
])
def test_a_bad_draw_is_refused_with_the_reason(cards, message):
    state = new()
    state.apply(Action.make("collect", 0, count=2 if len(cards) != 1 else 1))
    with pytest.raises(IllegalAction, match=message):
        state.apply(Action.make("draw", None, cards=cards))


def test_moves_out_of_turn_or_out_of_step_are_refused():
    state = new(players=4)
    with pytest.raises(IllegalAction, match=r"turn 1: collect by seat 3: it is seat 1's turn, not "
                                             r"seat 3's \(§ 2.2\)"):
        state.apply(Action.make("collect", 2, count=1))
    with pytest.raises(IllegalAction, match="a collect needs the seat number that makes it, got '0'"):
        state.apply(Action.make("collect", "0", count=1))
    with pytest.raises(IllegalAction, match="turn 1: no cards are due from the Pile now"):
        state.apply(Action.make("draw", None, cards=["2C"]))
    state.apply(Action.make("collect", 0, count=1))
    with pytest.raises(IllegalAction, match="comes too early: Seat 1: show the 1 card"):
        state.apply(Action.make("collect", 0, count=1))
    with pytest.raises(IllegalAction, match="a draw comes from the Pile and has no seat"):
        state.apply(Action.make("draw", 0, cards=["2C"]))
    with pytest.raises(IllegalAction, match="has no action 'throw'"):
        state.apply(Action.make("throw", 0))


# -- the view model ----------------------------------------------------------------------------

def test_view_has_phase_turn_stash_counts_potent_aces_and_eliminated_players():
    state = new(players=4, threshold=2)
    collect(state, "AH", "2C", "3C")
    collect(state, "AS")
    view = state.view()
    assert view["turn"] == 2 and view["phase"] == "Elimination"
    players = view["table"]["players"]
    assert players[0] == {"seat": 0, "out": False, "stash": 2, "potent": ["AH"], "cards": 3,
                          "had_turn": True}
    assert players[1]["out"] and view["table"]["eliminated"] == [1]
    assert view["table"]["pile"] == 54 - 3 and view["table"]["pile_aces"] == ["AS", "AD", "AC"]
    assert "You are out: shuffle your stash back into the Pile" in view["next"]
    assert view["next"].endswith("Seat 3's turn: collect one or more cards from the Pile (51 left).")
    json.dumps(view)


def test_view_tells_what_to_do_next_after_each_kind_of_set():
    state = new(players=3)
    collect(state, "AD", "2C")
    assert state.view()["next"].startswith("Seat 1: Draw more: the Ace of Diamonds asks for another "
                                           "card.")
    assert state.view()["limit"].startswith("¶ 2.2.1.7")
    state.apply(Action.make("add", 0, count=1))
    assert state.view()["turn"] is None  # the Pile's move: the cards must be shown
    state.apply(Action.make("draw", None, cards=["AC"]))
    assert "Seat 1: Set the Ace of Clubs aside" in state.view()["next"]
    collect(state, "AH")
    assert "Set the Ace of Hearts aside: it protects you from the next Ace of Spades." in \
        state.view()["next"]
    collect(state, "JK1")
    nxt = state.view()["next"]
    assert "swap the Joker for another player's Potent Ace, you choose: seat 1's Ace of Clubs and " \
           "seat 2's Ace of Hearts" in nxt
    state.apply(Action.make("swap", 2, joker="JK1", target=0, ace="AC"))
    assert "or play your Ace of Clubs" not in state.view()["next"]  # seat 0 lost it


def test_view_at_the_end_names_the_winner_and_sudden_death_is_announced():
    state = new(players=3, threshold=2)
    collect(state, "2C")
    out = collect(state, "AS")
    assert out[-1]["type"] == "sudden_death"
    assert "Sudden Death: seats 1 and 3 are left" in state.view()["next"]
    assert state.view()["phase"] == "Sudden Death"
    collect(state, "AS")
    assert state.view()["turn"] is None and state.view()["table"]["winner"] == 0
    assert state.explain().endswith("The game is over: seat 1 wins: the last player left (1 card).")


# -- random playouts ----------------------------------------------------------------------------

def deck_cards(jokers):
    return {c for c in get_deck("standard").codes if jokers or not c.startswith("JK")}


@pytest.mark.parametrize(("players", "threshold", "jokers"), [(2, 2, True), (3, 2, True),
                                                             (5, 4, True), (6, 6, False),
                                                             (10, 3, True)])
def test_random_playouts_keep_every_card_in_one_place_and_end(players, threshold, jokers):
    for seed in range(30):
        rng = random.Random(seed)
        state = new(players, threshold, jokers)
        for _ in range(5000):
            if state.is_terminal():
                break
            if state.step == "turn":
                assert "AS" in state.pile  # the Pile never runs dry while the game goes on
            places = [state.pile, state.set, *state.stash, *state.aside]
            assert sum(len(p) for p in places) == len(deck_cards(jokers))
            assert set().union(*map(set, places)) == deck_cards(jokers)
            action = (state.sample_chance(rng) if state.is_chance()
                      else rng.choice(state.legal_actions()))
            state.apply(action)
        assert state.is_terminal(), f"seed {seed} did not end"
        assert len(state.winners()) == 1 and state.winners()[0] in state.alive


def test_json_round_trip_in_the_middle_of_a_turn():
    state = new(players=4)
    collect(state, "AH")
    collect(state, "AD", "2C")
    again = state.game.state_from_json(json.loads(json.dumps(state.to_json())))
    assert again == state and again.step == "add"


def test_command_line_bot_game_log_replays():
    game = make_game("yonac", 5, threshold=3, jokers=True)
    for seed in range(10):
        state, events = bot_game(game, seed)
        result = replay(parse_lines(dumps(e) for e in events))
        assert result.ended and result.state == state


def test_bot_games_end_quickly_enough_for_a_table():
    lengths = []
    for seed in range(20):
        state = play_out(new(players=6, threshold=2), random.Random(seed))
        lengths.append(state.turns)
    assert max(lengths) < 200
