import pytest

from companion.cards import DECKS, get_deck
from companion.errors import CompanionError, UnknownCard, UnknownDeck


@pytest.mark.parametrize(("deck", "count"), [("yokir", 24), ("piktas", 72), ("standard", 54),
                                             ("ideal", 130), ("ahyoheek", 3)])
def test_deck_sizes(deck, count):
    assert len(get_deck(deck)) == count


def test_codes_are_unique_ascii_and_parse_back():
    for deck in DECKS.values():
        assert len(set(deck.codes)) == len(deck)
        for card in deck:
            assert card.code.isascii() and " " not in card.code
            assert deck.parse(card.code) == card
            assert deck.parse(card.code.lower()) == card


@pytest.mark.parametrize(("deck", "text", "code"), [
    ("yokir", "Master of Thought", "MT"), ("yokir", "initiate of architecture", "IA"),
    ("yokir", "Master of Art & Music", "MM"), ("yokir", "master of art and music", "MM"),
    ("piktas", "7 of Stone", "O7"), ("piktas", "Raven", "raven"), ("piktas", "mountain lion", "lion"),
    ("piktas", "ten of water", "W10"), ("standard", "Ace of Spades", "AS"),
    ("standard", "Joker", "JK1"), ("standard", "10 of hearts", "10H"),
    ("ideal", "King of Swords", "KS"), ("ideal", "XENOCRAT OF WANDS", "XW"),
    ("ideal", "Zany of Cups", "ZC"), ("ahyoheek", "Beetles", "beetle"),
])
def test_full_names_and_codes(deck, text, code):
    assert get_deck(deck).parse(text).code == code


def test_interchangeable_names_take_the_next_card():
    std = get_deck("standard")
    assert [c.code for c in std.parse_many(["Joker", "joker"])] == ["JK1", "JK2"]
    with pytest.raises(UnknownCard, match="given twice"):
        std.parse_many(["AS", "Ace of Spades"])
    with pytest.raises(UnknownCard, match=r"only 2 cards called 'Joker' .*\(JK1, JK2\)"):
        std.parse_many(["Joker", "Joker", "Joker"])
    with pytest.raises(UnknownCard, match=r"^card 'AS' is given twice$"):
        std.parse_many(["AS", "AS"])


def test_misspelt_card_names_the_closest():
    with pytest.raises(UnknownCard) as err:
        get_deck("yokir").parse("Mastr of Thougt")
    assert "Master of Thought (MT)" in str(err.value)
    assert isinstance(err.value, CompanionError) and isinstance(err.value, ValueError)


def test_unknown_deck_lists_the_decks():
    with pytest.raises(UnknownDeck, match="yokir"):
        get_deck("yokr")
    assert get_deck("Medieval-Mastery").name == "ideal"
    assert get_deck("yonac").name == "standard"


def test_deck_attributes():
    piktas = get_deck("piktas")
    assert piktas["raven"].suits == ("K", "U") and piktas["raven"].kind == "trump"
    assert piktas["O7"].value == 7 and piktas["O7"].suit == "O"
    assert piktas.size_mm == (76.0, 76.0)
    ideal = get_deck("ideal")
    assert ideal["KS"].value == 25 and ideal["XW"].value == 0 and ideal["ZC"].value == 1
    assert get_deck("yokir")["IL"].colour == "red" and get_deck("yokir")["MA"].colour == "black"
