"""Who wins a Medieval Mastery trick (rules/medieval-mastery.txt section 3)."""

import pytest

from companion.games.medieval_mastery import trick_winner


def winner(*cards):
    return trick_winner(list(cards))[0]


def test_cards_rank_first_by_value_then_by_suit():
    # 3: "Cards are ranked firstly by their position in the sequence K (high) to X (low), and
    # secondly by their suit ... Thus ♣Q is beaten by ♥Q but ♦K beats them both"
    assert winner("QT", "QC") == 1
    assert winner("QT", "QC", "KP") == 2
    _, why = trick_winner(["QT", "QC"])
    assert why == ("Queen of Cups is the highest card (Queen, value 24); it beats the Queen of "
                   "Staffs on suit order (Swords, Cups, Staffs, Pentacles, Wands); it need not "
                   "follow the suit led (Staffs): there are no trumps")


@pytest.mark.parametrize("low, high", [("KW", "KP"), ("KP", "KT"), ("KT", "KC"), ("KC", "KS")])
def test_suit_order_is_swords_cups_staffs_pentacles_wands(low, high):
    # RULINGS: "Suit order for ranking, high to low: Swords, Cups, Staffs, Pentacles, Wands
    # (the text prints Swords twice; the last is Wands)."
    assert winner(low, high) == 1 and winner(high, low) == 0


def test_there_are_no_trumps_and_the_highest_card_wins_whatever_its_suit():
    # 3: "There are no trumps."  RULINGS: "the highest card of the trick by value, then by suit
    # order, whatever its suit."
    assert winner("GC", "MS", "ET") == 2
    assert winner("YW", "GW", "HS") == 2


def test_xenocrats_are_all_equal():
    # 3: "the 5 X cards ... are deemed to be entirely equivalent, i.e. they do not outrank one
    # another by suit."  RULINGS: among Xenocrats only, the first one played wins.
    assert winner("XW", "XS", "XC") == 0
    assert winner("XP", "XS") == 0
    assert "all Xenocrats are equal" in trick_winner(["XW", "XS", "XC"])[1]
    assert winner("XS", "ZW", "XC") == 1  # any other card outranks them


@pytest.mark.parametrize("ruler, nemesis", [("KC", "ZC"), ("QC", "NC"), ("PC", "TC"), ("FC", "VC"),
                                            ("JC", "WC")])
def test_each_ruler_is_beaten_by_its_own_nemesis(ruler, nemesis):
    # 3: "♥K is beaten by ♥Z, ♥Q is beaten by ♥N, ♥P is beaten by ♥T, ♥F is beaten by ♥V and
    # ♥J is beaten by ♥W, and similarly for the other suits."
    assert winner(ruler, nemesis) == 1
    assert winner(nemesis, ruler) == 0


def test_the_nemesis_is_a_particular_card():
    # 3: "this is a pairing of particular cards within each suit, so ♥Z does not beat ♥Q or
    # ♠K, for example."
    assert winner("QC", "ZC") == 0
    assert winner("KS", "ZC") == 0
    assert winner("KC", "ZS") == 0  # a Zany of another suit is no nemesis


def test_a_ruler_meeting_its_nemesis_decides_the_trick():
    # 3: "Whenever in a trick a Ruler meets its nemesis, this determines who wins the trick: the
    # rank of other cards is irrelevant."
    index, why = trick_winner(["KC", "ZC", "KS"])
    assert index == 1
    assert why == ("Zany of Cups beats King of Cups: a Ruler that meets its own nemesis in a trick "
                   "loses to it, whatever else is played")
    assert winner("QS", "ES", "NS", "KP") == 2


def test_several_pairs_go_to_the_nemesis_of_the_highest_ruler():
    # 3: "(For 4 or more players it is possible that several such pairings occur in the same
    # trick. In these cases the trick is given to the person who played the nemesis to the
    # highest-ranking Ruler.)"
    index, why = trick_winner(["QS", "NS", "KC", "ZC"])
    assert index == 3
    assert "of the Rulers that met their nemesis (King of Cups and Queen of Swords)" in why
    # Rulers of equal rank: the suit order decides which is highest
    assert winner("KC", "ZC", "KS", "ZS") == 3
    assert winner("JW", "WW", "FP", "VP", "PT", "TT") == 5
