"""The Piktas scorer: the rule text's examples, hand-worked pools, properties, bad input.

Most pools put a void in the hand: a void in hand blocks the Full Hand bonus, so the
total is the units alone, as in the text's examples.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import CompanionError, UnknownCard
from companion.games.piktas.rules import (
    DECK,
    FULL_HAND,
    BadPool,
    BadUnit,
    field_total,
    score,
    score_hands,
    solve,
    unit_points,
)


def total(hand: str, field: str) -> int:
    return score(hand.split(), field.split()).total


def kinds(hand: str, field: str) -> list[tuple[str, int]]:
    return [(u.kind, u.points) for u in score(hand.split(), field.split()).units]


# --- the rule text's examples (RULINGS: they are test vectors) -------------------

def test_true_sequence_example():
    assert total("void1", "O3 O4 O5 O6 O7 lizard") == 22


def test_value_sequence_example():
    assert total("void1 lizard", "O4 W5 K6 U7 M8 O9") == 18


def test_mixed_sequence_example():
    assert total("void1 U2 jackal M10", "O4 O5 O6 lizard U1 M9") == 21


def test_suit_run_example():
    assert total("void1 O10", "O1 O2 O5 O7 O9 lizard") == 8
    assert kinds("void1 O10", "O1 O2 O5 O7 O9 lizard") == [("suit_run", 8)]


@pytest.mark.parametrize("cards, points", [("O7 W7 K7 U7 M7", 5), ("O7 W7 K7 U7", 4),
                                           ("O7 W7 K7", 3), ("O7 W7", 2)])
def test_value_set_examples(cards, points):
    assert total("void1", cards) == points


def test_full_hand_example():
    # 4,5,6,T,1,2,T,9,10 | 7,7,7 with every hand card in a unit = 26
    assert total("O7 W7 K7 lizard U1 U2", "O4 O5 O6 jackal M9 M10") == 26


def test_trumps_count_in_every_unit_they_fit():
    # RULINGS: 1O 3O 6O 9O with four Stone trumps is two Suit Runs of n = 10, not one of 12
    result = score(["void1", "O9", "eagle"], ["O1", "O3", "O6", "lizard", "rabbit", "tree"])
    assert result.total == 20
    assert [(u.kind, u.points) for u in result.units] == [("suit_run", 10), ("suit_run", 10)]


# --- hand-worked pools -------------------------------------------------------------

@pytest.mark.parametrize("hand, field, expected", [
    ("O1", "W5", 0),  # nothing scores, and O1 is in no unit: no Full Hand
    ("", "O7 W7", 2),  # no hand, no Full Hand
    ("raven", "sagebrush", 4 + 2),  # Duo of trumps, which also uses the hand's trump
    ("O7", "W7", 2 + 2),
    ("O7 void1", "W7", 2),  # a void in the hand blocks the Full Hand
    ("W7", "void1 O7", 2 + 2),  # a void in the field scores nothing and changes nothing
    ("void1", "O1 O2 O3 O4 O5 O6", 2 * 6 + 6),  # True Sequence beats the Suit Run (6)
    ("void1 lizard serpent", "O3 O4 O5 O6", (2 * 8 + 7) + 4),  # trumps at both ends + their Duo
    ("void1 lizard", "O5 O6 O7 O8 O9 O10", 2 * 8 + 10),  # no value 11: the trump goes below
    ("void1 lizard", "O4 W5 K6 U7 M8 W9", 8 + 9),  # lizard does not carry Water: below only
    ("void1 tree reeds", "O3 W4 W5 U6", 8 + 7),  # four cards and two end trumps make 6 values
    # one True Sequence 1 to 10 would be 2 * 12 + 10 = 34; two that share both trumps do better
    ("void1 O8 O9 lizard tree", "O2 O3 O4 O5 O6 O7", (2 * 8 + 6) + (2 * 8 + 10)),
    ("void1 lizard", "O1 O2 U5 U6", 6 + 6),  # the smallest Mixed Sequence: n = 2 + 2 + 2
    ("void1 lizard", "O1 U5 U6", 0),  # a run needs two non-trump cards
    ("void1 lizard", "O1 O2 U5", 0),
    ("void1 tree", "O1 O2 U5 U6", 0),  # the knitting trump carries both runs' suits
    ("void1 tree", "O1 O2 O5 O6", 0),  # neighbouring runs of one suit are not knitted
    ("void1 tree grain", "O1 O2 W4 W5 O8 O9", (6 + 4 + 9) + 4),  # Multi-Mixed, Stone twice
    ("void1 O8 W7 K7 U7 M7", "O3 O4 O5 O6 O7", (2 * 6 + 8) + 4),  # True Sequence + Quartet > Quintet
    ("void1 O1 lizard serpent", "rabbit coyote tree O5", 2 * (1 + 10) + 4 + 4),  # t = 5: one pip a run
    ("bat", "O1", 0),  # a hand trump in no unit: no Full Hand
    ("bat beetle", "O1", 4 + 2),
    ("lizard", "O1 O3 O5 O7 O9", (5 + 2) + 2),  # the hand trump is in the Suit Run
])
def test_hand_worked_pools(hand, field, expected):
    assert total(hand, field) == expected


def test_one_trump_cannot_stand_at_both_ends():
    result = score(["void1"], ["O3", "O4", "O5", "O6", "O7", "lizard"])
    (unit,) = result.units
    assert unit.cards == ("O3", "O4", "O5", "O6", "O7", "lizard")  # above, where it is worth more


def test_four_of_a_value_make_a_quartet():
    assert kinds("void1", "O7 W7 K7 U7") == [("quartet", 4)]


def test_full_hand_needs_every_hand_card():
    assert FULL_HAND not in [u.kind for u in score(["O7", "M2"], ["W7", "K7"]).units]
    units = score(["O7", "W7"], ["K7", "M2"]).units
    assert units[-1].kind == FULL_HAND and units[-1].cards == ("O7", "W7")


def test_hand_trump_at_a_sequence_end_makes_the_full_hand():
    # K1 W2 W3 W4 W5 O6 has one end, above O6, where lizard (hand) or tree (field) may stand:
    # lizard must, for the Full Hand (15 + 2; without K1 the sequence would be 16, no bonus).
    result = score(["lizard", "K1"], ["W2", "W3", "W4", "W5", "O6", "tree"])
    assert result.total == (8 + 7) + 2
    assert result.units[0].cards == ("K1", "W2", "W3", "W4", "W5", "O6", "lizard")
    assert result.units[-1].kind == FULL_HAND


def test_tie_breaks_use_the_best_arrangement():
    # The Full Hand example also scores 26 as Multi-Mixed with O7 (22) + Duo W7 K7 + Full Hand;
    # that arrangement has the higher unit (22 > 21), so it is the one shown and compared.
    result = score(["O7", "W7", "K7", "lizard", "U1", "U2"], ["O4", "O5", "O6", "jackal", "M9", "M10"])
    assert result.total == 26 and result.best_unit == 22
    assert result.units[0].cards == ("O4", "O5", "O6", "O7", "lizard", "U1", "U2", "jackal",
                                     "M9", "M10")


def test_rank_compares_total_then_unit_then_card_then_pool():
    quartet = score(["void1"], ["O7", "W7", "K7", "U7"])
    two_duos = score(["void1"], ["O7", "W7", "K3", "U3"])
    assert quartet.total == two_duos.total == 4 and quartet.rank() > two_duos.rank()
    nines, threes = score(["void1"], ["O9", "W9"]), score(["void1"], ["O3", "W3"])
    assert nines.rank()[:2] == threes.rank()[:2] and nines.rank() > threes.rank()
    high = score(["void1"], ["O3", "W3", "K10"])
    assert high.rank()[:3] == threes.rank()[:3] and high.rank() > threes.rank()


def test_cards_may_be_given_by_name():
    assert score(["7 of Stone", "Mountain Lion"], ["7 of Water"]).total == 2


# --- properties ----------------------------------------------------------------------

CODES = [c.code for c in DECK]
# few suits, middle values and the trumps that carry them: pools full of sequences and runs
DENSE = ([f"{s}{v}" for s in "OWU" for v in range(2, 10)]
         + ["lizard", "serpent", "tree", "grain", "reeds", "man", "jackal", "eagle", "void1"])


@st.composite
def pools(draw, field_max: int = 6):
    source = draw(st.sampled_from([CODES, DENSE]))
    cards = draw(st.lists(st.sampled_from(source), min_size=1, max_size=6 + field_max, unique=True))
    cut = draw(st.integers(max(1, len(cards) - field_max), min(6, len(cards))))
    return cards[:cut], cards[cut:]


@settings(max_examples=200, deadline=None)
@given(pools(field_max=5), st.sampled_from(DENSE + CODES[::7]))
def test_adding_a_field_card_never_lowers_the_score(pool, extra):
    # Holds by the rulings: every unit of the old pool is still a unit (a card may always
    # be left out, a trump only ever adds), and the hand, hence the Full Hand, is unchanged.
    hand, field = pool
    if extra in hand or extra in field:
        return
    assert score(hand, [*field, extra]).total >= score(hand, field).total


@settings(max_examples=200, deadline=None)
@given(pools())
def test_the_arrangement_is_a_real_one(pool):
    hand, field = pool
    result = score(hand, field)
    cards_units = [u for u in result.units if u.kind != FULL_HAND]
    used: list[str] = []
    for unit in result.units:
        assert unit_points(unit.kind, unit.cards) == unit.points  # the unit's definition
        assert set(unit.cards) <= set(hand) | set(field)
        if unit.kind != FULL_HAND:
            used += [c for c in unit.cards if DECK[c].kind == "pip"]
    assert len(used) == len(set(used)), "a non-trump card is in two units"
    assert result.total == sum(u.points for u in result.units)
    if any(u.kind == FULL_HAND for u in result.units):
        in_units = {c for u in cards_units for c in u.cards}
        assert set(hand) <= in_units and not any(DECK[c].kind == "void" for c in hand)
    assert result.best_unit == max([0, *(u.points for u in cards_units)])
    assert result.best_card == max([0, *(u.high for u in cards_units)])


@settings(max_examples=50, deadline=None)
@given(pools())
def test_scores_are_deterministic(pool):
    hand, field = pool
    assert solve(hand, field) == solve(list(reversed(hand)), field) == score(hand, field)


# --- units on their own ----------------------------------------------------------------

@pytest.mark.parametrize("kind, cards, why", [
    ("true_sequence", "lizard O3 O4 O5 O6 O7 lizard", "appears twice"),
    ("value_sequence", "O3 O4 O5 O6 O7 O8", "True Sequence is of one suit"),
    ("true_sequence", "O3 O4 O5 O6 O7", "6 values in a row"),
    ("true_sequence", "O5 O6 O7 O8 O9 O10 lizard", "10 at most"),
    ("true_sequence", "O3 O4 O5 O7 O8 O9", "one at a time"),
    ("mixed_sequence", "O1 O2 tree O5 O6", "exactly the suits"),
    ("mixed_sequence", "O1 O2 lizard U5", "two or more"),
    ("suit_run", "O1 O2 O3 lizard", "6 or more cards"),
    ("duo", "O7 lizard", "non-trump cards of one value"),
    ("trump_duo", "lizard tree", "same pair"),
    ("trio", "void1 O7 W7", "void"),
])
def test_unit_points_refuses_what_is_not_that_unit(kind, cards, why):
    with pytest.raises(BadUnit, match=why):
        unit_points(kind, cards.split())


# --- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("hand, field, error, words", [
    ("O7 O7", "W1", BadPool, "O7 .* given twice"),
    ("O7", "O7", BadPool, "given twice"),
    ("O1 O2 O3 O4 O5 O6 O8", "W1", BadPool, "at most 6 cards, got 7"),
    ("O1", "W1 W2 W3 W4 W5 W6 W7", BadPool, "6 positions, got 7"),
    ("Ox", "W1", UnknownCard, "unknown card 'Ox'.*closest"),
])
def test_bad_pools_are_refused_with_the_value(hand, field, error, words):
    with pytest.raises(error, match=words) as caught:
        score(hand.split(), field.split())
    assert isinstance(caught.value, CompanionError) and isinstance(caught.value, ValueError)


@settings(max_examples=150, deadline=None)
@given(pools(), st.data())
def test_scoring_many_hands_of_one_pool_is_scoring_each(pool, data):
    # A hint scores every move's hand from one search of the pool (score_hands); each must be
    # what scoring that hand with the rest of the pool on its own gives.
    hand, field = pool
    cards = hand + field
    hands = data.draw(st.lists(st.lists(st.sampled_from(cards), max_size=6, unique=True),
                               min_size=1, max_size=5))
    for other, result in zip(hands, score_hands(hand, field, hands), strict=True):
        rest = [c for c in cards if c not in other]
        if len([c for c in rest if DECK[c].kind != "void"]) > 6:
            continue  # not a pool a table can hold with this hand
        alone = solve(other, rest)
        assert result.rank() == alone.rank()
        assert result.total == sum(u.points for u in result.units)
        for unit in result.units:
            assert unit_points(unit.kind, unit.cards) == unit.points
        full = [u for u in result.units if u.kind == FULL_HAND]
        assert [u.cards for u in full] == [u.cards for u in alone.units if u.kind == FULL_HAND]


def test_a_hand_with_a_card_outside_the_pool_is_refused():
    with pytest.raises(BadPool, match="O9 in a hand to score but not in the pool"):
        score_hands(["O1"], ["O2"], [["O9"]])


def test_field_total_is_the_score_of_the_field_alone():
    for field in (["O1", "O2", "O3", "O4", "lizard", "serpent"], ["O7", "W7", "K7"], []):
        assert field_total(field) == score((), field).total
