"""Yonac's rules: collect as many cards as you can without picking up the Ace of Spades.

Reading (rules/yonac.txt, RULINGS, docs/games/yonac.md). A turn is either a collected Set
or the Ace of Clubs played. A Set is judged paragraph by paragraph (§ 2.2.1): the Ace of
Spades first (loss, or saved by a Potent Ace of Hearts), then Jokers (with Aces in the Set
they send the Aces back to the Pile; with none they must be swapped for other players'
Potent Aces, the collector choosing), then a Potent Ace of Diamonds (add cards, judge
again with it no longer Potent), then the Aces of Clubs and Hearts are set aside and the
rest goes to the Stash. Elimination runs until `threshold` players are left, then Sudden
Death: the next loss ends the game and the most cards win, ties broken as § 2.2.5 says.

Drawing is a chance action whose cards are the ones shown face up, so the same actions
serve bots (full information) and the table (cards as the camera saw them). The Ace of
Spades never leaves the Pile while the game goes on, so the Pile never runs dry and every
game ends.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from companion.cards import get_deck
from companion.errors import IllegalAction
from companion.words import and_list
from companion.words import card_name as _card_name
from companion.words import in_deck_order as _in_deck_order

DECK = get_deck("standard")
ACES = ("AS", "AH", "AD", "AC")
JOKERS = ("JK1", "JK2")
KEPT_ACES = ("AH", "AC")  # the Aces a player sets aside; Potent from the end of that turn

# The paragraphs of rules/yonac.txt, numbered as the original document numbers them.
P_ORDER = "§ 2.2"
P_STASH = "§ 2.2.1"
P_SET = "¶ 2.2.1.1"
P_NO_ACES = "¶ 2.2.1.2"
P_SPADES = "¶ 2.2.1.3"
P_SAVED = "¶ 2.2.1.4"
P_JOKER_ACES = "¶ 2.2.1.5"
P_JOKER_SWAP = "¶ 2.2.1.6"
P_DIAMONDS = "¶ 2.2.1.7"
P_CLUBS_ASIDE = "¶ 2.2.1.8"
P_HEARTS_ASIDE = "¶ 2.2.1.9"
P_REST = "§ 2.2.1, last sentence"
P_PLAY_CLUBS = "§ 2.2.2"
P_CLUBS_DRAW = "¶ 2.2.2.1"
P_CLUBS_NOT_ACE = "¶ 2.2.2.2"
P_CLUBS_SPADES = "¶ 2.2.2.3"
P_CLUBS_JOKER = "¶ 2.2.2.4"
P_CLUBS_HEARTS = "¶ 2.2.2.5"
P_CLUBS_DIAMONDS = "¶ 2.2.2.6"
P_ELIMINATION = "§ 2.2.3"
P_SUDDEN_DEATH = "§ 2.2.4"

# Steps of a turn.
TURN, DRAW, ADD, SWAP, OVER = "turn", "draw", "add", "swap", "over"
COLLECT, CLUBS = "collect", "clubs"

# How a game was won ("by" of the win event), in words.
WON_BY = {
    "spades_with_clubs": "picked up the Ace of Spades with the Ace of Clubs",
    "most_cards": "has the most cards",
    "tie_ace_of_hearts": "holds the Ace of Hearts",
    "tie_ace_of_clubs": "holds the Ace of Clubs",
    "tie_ace_of_diamonds": "holds the Ace of Diamonds",
    "tie_last_turn": "had a turn most recently",
    "tie_turn_order": "is last in turn order (no tied player has had a turn)",
}
TIE_ACES = (("AH", "tie_ace_of_hearts"), ("AC", "tie_ace_of_clubs"), ("AD", "tie_ace_of_diamonds"))


def in_deck_order(cards: Iterable[str]) -> list[str]:
    """The cards sorted as the deck lists them, so outcomes do not depend on the order seen."""
    return _in_deck_order(cards, "standard")


def card_name(code: str) -> str:
    """"the Ace of Spades", "the Joker"."""
    return _card_name(code, "standard", article=True)


def card_list(cards: Sequence[str]) -> str:
    """Codes for the screen: "5C, 7H"."""
    return ", ".join(cards)


def cards_word(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


@dataclass(frozen=True)
class Ruling:
    """What the rules make of the cards shown: the result, the paragraph that decides it and
    where each card goes. Results: "keep" (aside and stash), "lose", "saved" (by the Ace of
    Hearts), "removed" (Aces sent back by a Joker), "swap" (a Joker must be swapped first),
    "more" (the Ace of Diamonds asks for more cards), "win" (Ace of Spades with the Ace of
    Clubs)."""

    result: str
    rule: str
    stash: tuple[str, ...] = ()
    aside: tuple[str, ...] = ()
    pile: tuple[str, ...] = ()


def _check_cards(cards: Sequence[str]) -> list[str]:
    unknown = [c for c in cards if c not in DECK]
    if unknown:
        raise IllegalAction(f"{unknown[0]!r} is not a card code of the standard deck")
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if list(cards).count(c) > 1)
        raise IllegalAction(f"{card_name(twice)} ({twice}) is shown twice: there is only one")
    return in_deck_order(cards)


def rule_on_set(cards: Sequence[str], *, potent_hearts: bool = False, diamonds_potent: bool = True,
                potent_jokers: Collection[str] | None = None, can_swap: bool = False) -> Ruling:
    """Judge a collected Set (§ 2.2.1), paragraph by paragraph.

    potent_hearts: the collector has a Potent Ace of Hearts set aside on an earlier turn.
    diamonds_potent: False once the Ace of Diamonds has added cards (¶ 2.2.1.7).
    potent_jokers: the Jokers of the Set still Potent (None: every Joker in it, as drawn).
    can_swap: another player holds a Potent Ace a Joker could be swapped for.
    """
    cards = _check_cards(cards)
    if not cards:
        raise IllegalAction(f"a Set has one or more cards ({P_SET})")
    if potent_hearts and "AH" in cards:
        raise IllegalAction("the Ace of Hearts (AH) cannot be both set aside and in the Set")
    jokers = [c for c in cards if c in JOKERS]
    potent = jokers if potent_jokers is None else [j for j in jokers if j in potent_jokers]
    aces = [c for c in cards if c in ACES]
    if "AS" in cards:
        if potent_hearts:
            return Ruling("saved", P_SAVED, stash=("AH",), pile=tuple(cards))
        return Ruling("lose", P_SPADES, pile=tuple(cards))
    if potent and aces:
        return Ruling("removed", P_JOKER_ACES, pile=tuple(aces),
                      stash=tuple(c for c in cards if c not in aces))
    if potent and can_swap:
        return Ruling("swap", P_JOKER_SWAP)
    if "AD" in cards and diamonds_potent:
        return Ruling("more", P_DIAMONDS)
    aside = tuple(c for c in cards if c in KEPT_ACES)
    stash = tuple(c for c in cards if c not in aside)
    if aside:
        rule = " and ".join(sorted(P_CLUBS_ASIDE if a == "AC" else P_HEARTS_ASIDE for a in aside))
    elif jokers:
        rule = P_JOKER_SWAP  # Jokers with nothing to swap lose their Potency
    elif aces:
        rule = P_REST
    else:
        rule = P_NO_ACES
    return Ruling("keep", rule, stash=stash, aside=aside)


def rule_on_clubs_card(card: str, *, can_swap: bool = False) -> Ruling:
    """Judge the card picked up after playing the Ace of Clubs (§ 2.2.2).
    can_swap: another player holds a Potent Ace a drawn Joker could be swapped for."""
    if card not in DECK:
        raise IllegalAction(f"{card!r} is not a card code of the standard deck")
    if card == "AS":
        return Ruling("win", P_CLUBS_SPADES)
    if card in JOKERS:
        # RULINGS: a Joker that cannot be swapped counts as "not an Ace".
        return Ruling("swap", P_CLUBS_JOKER) if can_swap else Ruling("keep", P_CLUBS_JOKER,
                                                                       stash=(card,))
    if card == "AD":
        return Ruling("more", P_CLUBS_DIAMONDS, stash=("AD",))
    if card in KEPT_ACES:
        # Only the Ace of Hearts can come up here: the Ace of Clubs is the one just played.
        return Ruling("keep", P_CLUBS_HEARTS, aside=(card,))
    return Ruling("keep", P_CLUBS_NOT_ACE, stash=(card,))


ASIDE_WORDS = {
    "AH": "Set the Ace of Hearts aside: it protects you from the next Ace of Spades.",
    "AC": "Set the Ace of Clubs aside: on a later turn you may play it instead of collecting.",
}


def advice(ruling: Ruling, *, clubs: bool = False) -> str:
    """What the player must do with the cards shown, in plain words (second person).
    clubs: the card was picked up with the Ace of Clubs."""
    r = ruling.result
    if r == "lose":
        return ("You picked up the Ace of Spades with no Potent Ace of Hearts. You are out: "
                "shuffle your stash back into the Pile, with the Set and any Aces set aside.")
    if r == "saved":
        return ("Your Ace of Hearts saves you from the Ace of Spades: put the Ace of Hearts into "
                "your Stash and shuffle the Set back into the Pile.")
    if r == "win":
        return "You picked up the Ace of Spades with the Ace of Clubs: you win the game!"
    if r == "swap":
        return ("Swap the Joker for another player's Potent Ace: put the Joker into their Stash "
                "and take the Ace.")
    if r == "more" and clubs:
        return "Put the Ace of Diamonds into your Stash and pick up one more card from the Pile."
    if r == "more":
        return ("Draw more: the Ace of Diamonds asks for another card. Pick up one or more cards "
                "from the Pile and add them to the Set.")
    parts: list[str] = []
    if r == "removed":
        parts.append(f"The Joker removes the Aces: shuffle "
                     f"{and_list([card_name(a) for a in ruling.pile])} back into the Pile.")
    elif any(c in JOKERS for c in ruling.stash) and ruling.rule in (P_JOKER_SWAP, P_CLUBS_JOKER):
        parts.append("No other player has a Potent Ace, so the Joker cannot be swapped.")
    parts += [ASIDE_WORDS[a] for a in ruling.aside]
    if ruling.stash:
        parts.append(f"Put {card_list(ruling.stash)} into your Stash.")
    return " ".join(parts)


def decide_winner(remaining: Sequence[int], counts: Sequence[int], held: Sequence[Collection[str]],
                  last_turn: Sequence[int | None]) -> tuple[int, str, list[int]]:
    """The winner among the players left at the end of Sudden Death (§ 2.2.5): the most cards
    (Stash and Aces set aside); ties go to the holder of the Ace of Hearts, then of the Ace of
    Clubs, then of the Ace of Diamonds (Potent or not), then to the tied player whose turn came
    most recently, and if none of them has had a turn, to the one last in turn order.
    Returns (seat, how, tied seats or [])."""
    best = max(counts[s] for s in remaining)
    tied = [s for s in remaining if counts[s] == best]
    if len(tied) == 1:
        return tied[0], "most_cards", []
    for ace, how in TIE_ACES:
        holders = [s for s in tied if ace in held[s]]
        if holders:
            return holders[0], how, tied
    played = [s for s in tied if last_turn[s] is not None]
    if played:
        return max(played, key=lambda s: last_turn[s] or 0), "tie_last_turn", tied
    return max(tied), "tie_turn_order", tied
