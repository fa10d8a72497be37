"""Yokir's rules: three-handed Euchre from the Test of Yokir, with Oracle and Sage.

Reading (RULINGS, docs/games/yokir.md): 24 cards, five each, one upcard; bidding round 1
(accept or pass: the caller takes the upcard and discards one face down), round 2 (name
one of the other three suits or pass), a void hand when all pass twice. Trump order is
Oracle (Initiate of trump), Sage (Initiate of the same-colour suit, a trump for every
purpose), Master down to Student. Left of the dealer leads the first trick. The caller
plays alone: 0-2 tricks, each opponent +1; 3-4, caller +1; 5, caller +2. The game ends
after a hand when someone has 7 or more and leads alone.

Pure functions on card codes ("MT"): trick winners, legal plays, points. The game and
its state are in `state`, the words in `words`, the bot in `bot`.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.cards import get_deck
from companion.errors import UnknownSuit
from companion.words import card_name as _card_name
from companion.words import in_deck_order

DECK = get_deck("yokir")
CODES: tuple[str, ...] = DECK.codes
SUITS = ("A", "L", "M", "T")
RANKS = ("I", "S", "P", "J", "R", "M")  # printed order, low to high
SAME_COLOUR = {"A": "M", "M": "A", "L": "T", "T": "L"}
PLAYERS = 3
HAND_SIZE = 5
TRICKS = 5
TARGET = 7
_ORDER = {code: i for i, code in enumerate(CODES)}
_SUIT_WORDS = {"a": "A", "architecture": "A", "l": "L", "leadership": "L", "m": "M",
               "art and music": "M", "t": "T", "thought": "T"}


# --- cards, suits and roles ---------------------------------------------------

def parse_suit(text: str) -> str:
    """The suit letter for a letter or a name, any case ("T", "Thought", "art & music")."""
    key = " ".join(str(text).lower().replace("&", " and ").split())
    if key not in _SUIT_WORDS:
        raise UnknownSuit(f"unknown suit {text!r}: the Yokir suits are A (Architecture), "
                          "L (Leadership), M (Art & Music) and T (Thought)")
    return _SUIT_WORDS[key]


def suit_name(suit: str) -> str:
    return DECK.suits[suit].name


def card_name(code: str) -> str:
    """"Master of Thought"."""
    return _card_name(code, "yokir")


def sort_cards(cards: Sequence[str]) -> list[str]:
    """Cards in deck order (by suit, then rank): how hands are written in the log."""
    return in_deck_order(cards, "yokir")


def oracle(trump: str) -> str:
    """The Initiate of trump: the highest trump."""
    return "I" + trump


def sage(trump: str) -> str:
    """The Initiate of the same-colour suit: the second trump, a trump for every purpose."""
    return "I" + SAME_COLOUR[trump]


def effective_suit(card: str, trump: str | None) -> str:
    """The suit a card counts as: the Sage counts as trump, every other card as printed."""
    if trump is not None and card == sage(trump):
        return trump
    return card[1]


def role(card: str, trump: str | None) -> str | None:
    """"the Oracle" or "the Sage of Thought" for the two promoted Initiates, else None."""
    if trump is None:
        return None
    if card == oracle(trump):
        return "the Oracle"
    if card == sage(trump):
        return f"the Sage of {suit_name(trump)}"
    return None


def title(card: str, trump: str | None = None) -> str:
    """"the Master of Thought", "the Initiate of Leadership (the Sage of Thought)"."""
    promoted = role(card, trump)
    return f"the {card_name(card)}" + (f" ({promoted})" if promoted else "")


def card_power(card: str, trump: str, led_suit: str) -> int:
    """How strongly a card plays in a trick whose led (effective) suit is `led_suit`:
    trumps 102..108 (Student up to Oracle), led-suit cards 1..6 in printed order, others 0."""
    suit = effective_suit(card, trump)
    if suit == trump:
        if card == oracle(trump):
            return 108
        if card == sage(trump):
            return 107
        return 100 + RANKS.index(card[0]) + 1
    if suit == led_suit:
        return RANKS.index(card[0]) + 1
    return 0


def trick_winner(cards: Sequence[str], trump: str) -> tuple[int, str]:
    """The index of the winning card of a trick (cards in the order played, the first
    leads) and why it wins, in words."""
    led_suit = effective_suit(cards[0], trump)
    powers = [card_power(c, trump, led_suit) for c in cards]
    best = max(range(len(cards)), key=powers.__getitem__)
    card = cards[best]
    if effective_suit(card, trump) == trump:
        trumps = sum(1 for c in cards if effective_suit(c, trump) == trump)
        why = f"{title(card, trump)} is the {'only' if trumps == 1 else 'highest'} trump"
        if led_suit == trump and trumps > 1:
            why = f"trump was led and {why}"
    else:
        name = suit_name(led_suit)
        why = f"no trump was played and {title(card, trump)} is the highest card of {name}, the suit led"
    return best, why


def legal_plays(hand: Sequence[str], led: str | None, trump: str) -> list[str]:
    """The cards of `hand` that may be played: any when leading; else the cards of the led
    card's effective suit if the hand has one, else any."""
    if led is None:
        return list(hand)
    led_suit = effective_suit(led, trump)
    follow = [c for c in hand if effective_suit(c, trump) == led_suit]
    return follow or list(hand)


def explain_plays(hand: Sequence[str], led: str | None, trump: str, who: str = "You") -> str:
    """Why `legal_plays` allows what it allows, for a player learning the rules. `who` is
    "You" or "Seat 2"."""
    you = who == "You"
    if led is None:
        return f"{who} {'lead' if you else 'leads'}: any card may be played."
    led_suit = effective_suit(led, trump)
    suit = suit_name(led_suit)
    notes = []
    if led == sage(trump):
        notes.append(f"{title(led)} led is the Sage of {suit_name(trump)}, so trump is asked")
    the_sage = sage(trump)
    if the_sage in hand and led_suit in (trump, SAME_COLOUR[trump]):
        counts = "counts as trump" if led_suit == trump else \
            f"counts as trump, not as {suit_name(the_sage[1])}"
        notes.append(f"{title(the_sage)} is the Sage of {suit_name(trump)} and {counts}")
    tail = "".join(f"; {n}" for n in notes)
    if any(effective_suit(c, trump) == led_suit for c in hand):
        return f"{who} must follow {suit}{tail}."
    has = "have" if you else "has"
    return f"{who} {has} no {suit} to follow{tail}: any card may be played."


def hand_points(caller: int, caller_tricks: int, players: int = PLAYERS) -> list[int]:
    """Points of one hand: caller 0-2 tricks, each opponent +1; 3-4, caller +1; 5, +2."""
    points = [0] * players
    if caller_tricks <= 2:
        for seat in range(players):
            if seat != caller:
                points[seat] = 1
    else:
        points[caller] = 2 if caller_tricks == TRICKS else 1
    return points


def game_winner(scores: Sequence[int], target: int = TARGET) -> int | None:
    """The winner after a hand: someone has `target` or more and one player alone has the
    highest score. None while nobody has reached it or the leaders are tied."""
    best = max(scores)
    leaders = [s for s, p in enumerate(scores) if p == best]
    if best >= target and len(leaders) == 1:
        return leaders[0]
    return None
