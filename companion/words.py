"""Words and orders every game needs: a card's name, cards in deck order, and a list in
a sentence ("A, B and C"). One version here instead of one per engine.

Pure: standard library and `companion.cards` only, so `companion.games` may import it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache

from companion.cards import get_deck


def and_list(items: Iterable[str], empty: str = "") -> str:
    """Items joined for a sentence: "A", "A and B", "A, B and C" (`empty` for none)."""
    words = [str(i) for i in items]
    if not words:
        return empty
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


@cache
def deck_order(deck: str) -> Mapping[str, int]:
    """Each card code of `deck` (a deck or game name) by its place in the deck's listing."""
    return {code: i for i, code in enumerate(get_deck(deck).codes)}


def in_deck_order(cards: Iterable[str], deck: str) -> list[str]:
    """The cards sorted as the deck lists them, so what is written does not depend on the
    order the cards were seen in. A code that is no card of the deck raises KeyError."""
    return sorted(cards, key=deck_order(deck).__getitem__)


def in_deck_order_lenient(cards: Iterable[str], deck: str) -> list[str]:
    """As `in_deck_order`, but codes that are no card of the deck go last (in code order),
    so that an engine can refuse them by name rather than a sort failing first."""
    order = deck_order(deck)
    return sorted(cards, key=lambda c: (c not in order, order.get(c, 0), c))


def card_name(code: str, deck: str, *, article: bool = False) -> str:
    """The full name of a card of `deck` ("Master of Thought"; with `article`, "the Master
    of Thought"). KeyError for a code that is no card of the deck."""
    name = get_deck(deck)[code].name
    return f"the {name}" if article else name
