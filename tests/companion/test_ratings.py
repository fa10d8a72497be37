"""Elo per game: pairwise by placement, K = 32, 1500 to start."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.ratings import DEFAULT, K, Rating, Result, expected, game_changes, placement, rate

ratings_st = st.floats(min_value=600, max_value=2800, allow_nan=False)


def test_expected_score_is_even_at_equal_ratings_and_400_points_is_ten_to_one():
    assert expected(1500, 1500) == 0.5
    assert expected(1900, 1500) == pytest.approx(10 / 11)


@given(ratings_st, ratings_st)
def test_expected_scores_of_a_pair_sum_to_one(a, b):
    assert expected(a, b) + expected(b, a) == pytest.approx(1.0)


def test_two_players_is_plain_elo():
    assert game_changes([1500, 1500], [3, 1], [0]) == [K / 2, -K / 2]
    assert game_changes([1500, 1500], [2, 2], [0, 1]) == [0, 0]
    up, down = game_changes([1700, 1500], [0, 5], [1])
    assert down == pytest.approx(K * (1 - expected(1500, 1700)))
    assert up == pytest.approx(-down)


def test_many_players_compare_every_pair_and_scale_by_the_others():
    # equal ratings, distinct places: the top beats 2 of 2, the middle 1 of 2
    assert game_changes([1500] * 3, [3, 2, 1], [0]) == [pytest.approx(K / 2), 0.0, pytest.approx(-K / 2)]


def test_a_winner_ranks_above_a_tied_or_higher_score():
    # Ahyoheek's sudden death and Yonac's Ace-of-Clubs win crown a seat the scores do not
    assert placement([4, 4, 3], [1]) == [(False, 4.0), (True, 4.0), (False, 3.0)]
    changes = game_changes([1500] * 3, [4, 4, 3], [1])
    assert changes[1] > changes[0] > changes[2]


@given(st.lists(st.tuples(ratings_st, st.integers(-5, 20)), min_size=2, max_size=8), st.data())
def test_changes_sum_to_zero_and_stay_within_k(seats, data):
    ratings = [r for r, _ in seats]
    scores = [s for _, s in seats]
    winners = data.draw(st.lists(st.sampled_from(range(len(seats))), unique=True))
    changes = game_changes(ratings, scores, winners)
    assert sum(changes) == pytest.approx(0, abs=1e-9)
    assert all(abs(c) <= K for c in changes)


def test_rate_folds_results_in_order_and_counts_games():
    results = [Result(["ann", "bob"], [3, 1], [0]), Result(["bob", "cy"], [2, 0], [0])]
    table = rate(results)
    assert table["ann"] == Rating(DEFAULT + 16, 1)
    assert table["bob"].games == 2
    assert table["bob"].rating == pytest.approx(DEFAULT - 16 + K * (1 - expected(DEFAULT - 16, DEFAULT)))
    assert table["cy"].rating == pytest.approx(DEFAULT - (table["bob"].rating - (DEFAULT - 16)))
    assert rate(reversed(results)) != table  # order matters: ratings are a history


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError, match="2 ratings but 3 scores"):
        game_changes([1500, 1500], [1, 2, 3], [])
