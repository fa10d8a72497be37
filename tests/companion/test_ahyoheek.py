import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import IllegalAction
from companion.games import Action, make_game
from companion.games.ahyoheek import PICKS, round_scores, round_winners


def play_round(state, *picks):
    out = []
    for seat, pick in enumerate(picks):
        if pick is not None:
            out += state.apply(Action.make("pick", seat, pick=pick))
    return out


def test_worked_five_player_example():
    picks = ["pen", "beetle", "beetle", "page", "page"]
    scores = round_scores(picks)
    assert scores == [0, -1, -1, 1, 1]
    assert round_winners(picks, scores) == [3, 4]
    state = make_game("ahyoheek", 5).new_state()
    out = play_round(state, *picks)
    assert out[0]["winners"] == [3, 4]
    assert state.holdings[3]["page"] == 1 and state.holdings[4]["page"] == 1
    assert state.scores() == [0, 0, 0, 1, 1]


def test_summary_cycle_is_the_house_rule():
    assert round_scores(["pen", "beetle"], "summary") == [1, -1]
    assert round_scores(["pen", "beetle"], "example") == [-1, 1]


@pytest.mark.parametrize("picks", [["pen", "pen"], ["pen", "page", "beetle"],
                                   ["beetle", "beetle", "beetle", "beetle", "beetle"]])
def test_nobody_wins_when_all_score_zero(picks):
    scores = round_scores(picks)
    assert scores == [0] * len(picks) and round_winners(picks, scores) == []


@given(st.lists(st.sampled_from(PICKS), min_size=2, max_size=5), st.sampled_from(["example",
                                                                                  "summary"]))
def test_round_scores_sum_to_zero_and_a_winner_beats_someone(picks, cycle):
    scores = round_scores(picks, cycle)
    assert sum(scores) == 0
    for w in round_winners(picks, scores):
        assert scores[w] > 0


def test_three_of_one_item_ends_the_match():
    state = make_game("ahyoheek", 2).new_state()
    for _ in range(3):
        out = play_round(state, "beetle", "page")  # page beats beetle
    assert out[-1] == {"type": "match", "winner": 1, "why": "holds three pages"}
    assert state.is_terminal() and state.winners() == [1]


def test_pick_can_change_until_the_reveal():
    state = make_game("ahyoheek", 3).new_state()
    state.apply(Action.make("pick", 0, pick="pen"))
    state.apply(Action.make("pick", 0, pick="beetle"))
    state.apply(Action.make("pick", 1, pick="pen"))
    out = state.apply(Action.make("pick", 2, pick="pen"))
    assert out[0]["picks"] == ["beetle", "pen", "pen"] and out[0]["winners"] == [0]


def test_seat_not_playing_is_refused_with_a_reason():
    state = make_game("ahyoheek", 2).new_state()
    with pytest.raises(IllegalAction, match="seats are 1 to 2"):
        state.apply(Action.make("pick", 2, pick="pen"))
    with pytest.raises(IllegalAction, match="pen, page or beetle"):
        state.apply(Action.make("pick", 0, pick="rock"))


def test_tie_on_three_goes_to_most_items_then_sudden_death():
    # seats 0 and 1 reach three at once with equal totals -> sudden death, seat 2 sits out
    state = make_game("ahyoheek", 3).new_state()
    for _ in range(2):
        play_round(state, "page", "page", "beetle")  # 0 and 1 win pages
    out = play_round(state, "page", "page", "beetle")
    assert out[-1] == {"type": "sudden_death", "seats": [0, 1]}
    with pytest.raises(IllegalAction, match="sudden death"):
        state.apply(Action.make("pick", 2, pick="pen"))
    out = play_round(state, "pen", "pen")  # tie again: no winner, go on
    assert not state.is_terminal()
    out = play_round(state, "pen", "page")  # pen beats page: seat 0 alone
    assert out[-1]["type"] == "match" and state.winners() == [0]
    assert state.scores() == [3, 3, 0]  # sudden-death rounds award no items


def test_most_items_breaks_a_tie_on_three():
    state = make_game("ahyoheek", 3).new_state()
    play_round(state, "pen", "beetle", "beetle")      # beetles (1, 2) win
    play_round(state, "page", "beetle", "page")       # pages (0, 2) win
    play_round(state, "page", "beetle", "page")
    play_round(state, "pen", "beetle", "beetle")
    # seat 0: 2 pages; seat 1: 2 beetles; seat 2: 2 beetles + 2 pages
    out = play_round(state, "page", "beetle", "beetle")  # page wins: seat 0 -> 3 pages
    assert out[-1]["winner"] == 0
    state = make_game("ahyoheek", 3).new_state()
    play_round(state, "pen", "beetle", "beetle")
    play_round(state, "page", "beetle", "page")
    play_round(state, "page", "beetle", "page")
    play_round(state, "pen", "beetle", "beetle")
    out = play_round(state, "pen", "beetle", "beetle")  # seats 1 and 2 both reach 3 beetles
    assert out[-1] == {"type": "match", "winner": 2,
                       "why": "holds three beetles and the most items (5)"}


def test_words_for_a_pick_keep_it_secret_until_the_reveal():
    game = make_game("ahyoheek", 2)
    assert game.describe({"type": "pick", "seat": 0, "pick": "beetle"}) == "Seat 1 has picked"
    state = game.new_state()
    state.apply(Action.make("pick", 0, pick="beetle"))
    with pytest.raises(IllegalAction) as err:
        state.apply(Action.make("pick", 0, pick="beetle"))
    assert "beetle" not in str(err.value)
    other = game.new_state()
    other.apply(Action.make("pick", 0, pick="pen"))
    assert state.view() == other.view() and state.view()["table"]["picked"] == [0]
