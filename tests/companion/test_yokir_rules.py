"""Yokir's rules as pure functions: roles, card order, trick winners, legal plays, points."""

import pytest

from companion.games.yokir import (
    UnknownSuit,
    card_power,
    effective_suit,
    explain_plays,
    game_winner,
    hand_points,
    legal_plays,
    oracle,
    parse_suit,
    role,
    sage,
    trick_winner,
)


@pytest.mark.parametrize("trump, the_oracle, the_sage", [("A", "IA", "IM"), ("M", "IM", "IA"),
                                                         ("L", "IL", "IT"), ("T", "IT", "IL")])
def test_oracle_and_sage_follow_the_colour_pairs(trump, the_oracle, the_sage):
    assert oracle(trump) == the_oracle and sage(trump) == the_sage
    assert role(the_oracle, trump) == "the Oracle"
    assert role(the_sage, trump).startswith("the Sage of ")
    assert effective_suit(the_sage, trump) == trump  # the Sage belongs to trump
    assert effective_suit(the_sage, None) == the_sage[1]  # before trump is known it is plain


def test_trump_order_high_to_low():
    # RULINGS: Oracle, Sage, Master, Scribe, Journeyman, Prentice, Student of trump
    order = ["IT", "IL", "MT", "RT", "JT", "PT", "ST"]
    powers = [card_power(c, "T", "T") for c in order]
    assert powers == sorted(powers, reverse=True) and len(set(powers)) == 7
    # any trump beats the Master of the led suit
    assert card_power("ST", "T", "A") > card_power("MA", "T", "A")


def test_the_other_two_initiates_stay_low():
    # Art & Music trump: Initiates of Architecture (Sage) and Art & Music (Oracle) are promoted,
    # those of Leadership and Thought are still the lowest of their suits
    assert role("IL", "M") is None and role("IT", "M") is None
    assert card_power("IL", "M", "L") < card_power("SL", "M", "L")
    assert effective_suit("IT", "M") == "T"


def test_same_colour_suit_has_lost_its_initiate():
    # Thought trump: Leadership led, the Initiate of Leadership is a trump, not a Leadership card
    assert effective_suit("IL", "T") == "T"
    assert trick_winner(["SL", "IL", "ML"], "T")[0] == 1


@pytest.mark.parametrize("cards, trump, winner, words", [
    (["MA", "SL", "JT"], "T", 2, "Journeyman of Thought is the only trump"),
    (["MA", "SA", "RA"], "T", 0, "no trump was played and the Master of Architecture is the highest "
                                 "card of Architecture, the suit led"),
    (["MT", "IL", "RT"], "T", 1, "trump was led and the Initiate of Leadership (the Sage of Thought)"),
    (["IL", "MT", "IT"], "T", 2, "the Initiate of Thought (the Oracle) is the highest trump"),
    (["PA", "IA", "MA"], "M", 1, "the Initiate of Architecture (the Sage of Art & Music) is the only trump"),
    (["JL", "PL", "MA"], "M", 0, "highest card of Leadership"),  # an off-suit Master cannot win
])
def test_trick_winner_and_why(cards, trump, winner, words):
    got, why = trick_winner(cards, trump)
    assert got == winner
    assert words in why


def test_a_low_trump_beats_the_master_of_the_led_suit():
    assert trick_winner(["SA", "MA", "ML"], "L") == (2, "the Master of Leadership is the only trump")


def test_worked_example_two_under_our_reading():
    # The text: Thought trump, A plays the Master of Leadership, B "plays the Initiate of
    # Leadership as he cannot beat Master". RULINGS: with Thought trump that card is the Sage,
    # a trump, so it wins the trick (the text's example is loose).
    assert trick_winner(["ML", "IL", "JA"], "T")[0] == 1
    assert trick_winner(["ML", "IL", "MT"], "T")[0] == 1
    assert trick_winner(["ML", "IL", "IT"], "T")[0] == 2


def test_leading_allows_any_card():
    hand = ["IL", "ST", "MA"]
    assert legal_plays(hand, None, "T") == hand
    assert explain_plays(hand, None, "T") == "You lead: any card may be played."


def test_follow_trump_with_the_sage():
    hand = ["IL", "ST", "MA"]
    assert legal_plays(hand, "MT", "T") == ["IL", "ST"]
    assert explain_plays(hand, "MT", "T") == ("You must follow Thought; the Initiate of Leadership "
                                              "is the Sage of Thought and counts as trump.")


def test_sage_does_not_follow_its_printed_suit():
    assert legal_plays(["IL", "SL", "MA"], "ML", "T") == ["SL"]
    assert legal_plays(["IL", "MA"], "ML", "T") == ["IL", "MA"]  # no Leadership: any card
    why = explain_plays(["IL", "MA"], "ML", "T", who="Seat 2")
    assert why.startswith("Seat 2 has no Leadership to follow")
    assert "counts as trump, not as Leadership" in why and why.endswith("any card may be played.")


def test_a_led_sage_asks_for_trump():
    assert legal_plays(["SL", "PT", "MA"], "IL", "T") == ["PT"]
    assert legal_plays(["SL", "MA"], "IL", "T") == ["SL", "MA"]
    assert "so trump is asked" in explain_plays(["SL", "PT"], "IL", "T")


@pytest.mark.parametrize("tricks, points", [(0, [1, 0, 1]), (1, [1, 0, 1]), (2, [1, 0, 1]),
                                            (3, [0, 1, 0]), (4, [0, 1, 0]), (5, [0, 2, 0])])
def test_hand_points(tricks, points):
    assert hand_points(caller=1, caller_tricks=tricks) == points


@pytest.mark.parametrize("scores, winner", [([6, 5, 4], None), ([7, 5, 4], 0), ([5, 9, 7], 1),
                                            ([7, 7, 3], None), ([8, 8, 9], 2), ([9, 9, 2], None)])
def test_game_ends_at_seven_with_a_single_leader(scores, winner):
    assert game_winner(scores) == winner


@pytest.mark.parametrize("text, suit", [("T", "T"), ("t", "T"), ("Thought", "T"),
                                        ("art & music", "M"), ("Art and Music", "M"),
                                        ("ARCHITECTURE", "A"), (" leadership ", "L")])
def test_parse_suit_by_letter_or_name(text, suit):
    assert parse_suit(text) == suit


@pytest.mark.parametrize("text", ["X", "Hearts", "", "art"])
def test_unknown_suit_names_the_value_and_the_suits(text):
    with pytest.raises(UnknownSuit, match=f"unknown suit {text!r}.*Art & Music") as err:
        parse_suit(text)
    assert isinstance(err.value, ValueError)
