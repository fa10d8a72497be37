"""Cards and decks: one short code for every card, everywhere (see docs/cards.md).

The four decks of CARDS.md and the Ahyoheek picks live here as data. Every place
that reads a card from a person goes through `Deck.parse`/`Deck.parse_many`, which
accept the code or the full English name, case-insensitively, and reject anything
else with an error that names the closest real cards.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from companion.catalog import GAMES
from companion.errors import UnknownCard, UnknownDeck


@dataclass(frozen=True)
class Suit:
    """A suit of a deck: its code letter, name and the colour its marks are printed in."""

    code: str
    name: str
    colour: str
    symbol: str = ""


@dataclass(frozen=True)
class Card:
    """One card. `value` is the printed value (None for trumps, voids, jokers, picks)."""

    code: str
    name: str
    deck: str
    kind: str  # "pip", "trump", "void", "joker", "pick", "rank" (a suited court/rank card)
    suits: tuple[str, ...] = ()
    rank: str | None = None
    rank_name: str | None = None
    value: int | None = None
    colour: str = ""
    aliases: tuple[str, ...] = field(default=(), compare=False)

    @property
    def suit(self) -> str | None:
        """The card's single suit code, or None for cards with no suit or two suits."""
        return self.suits[0] if len(self.suits) == 1 else None

    def __str__(self) -> str:
        return self.code


def _key(text: str) -> str:
    """Normalise a name for lookup: case, spacing, '&' and 'and', apostrophes."""
    text = text.strip().lower().replace("&", " and ").replace("'", "").replace("’", "")
    return re.sub(r"[\s_]+", " ", text).strip()


class Deck:
    """An ordered, immutable set of cards with a parser for codes and full names."""

    def __init__(self, name: str, title: str, cards: Iterable[Card], suits: Iterable[Suit] = (),
                 size_mm: tuple[float, float] = (63.0, 88.0)) -> None:
        self.name = name
        self.title = title
        self.cards: tuple[Card, ...] = tuple(cards)
        self.suits: dict[str, Suit] = {s.code: s for s in suits}
        self.size_mm = size_mm
        self._by_code = {c.code: c for c in self.cards}
        if len(self._by_code) != len(self.cards):
            raise ValueError(f"deck {name!r} has a repeated code")
        self._lookup: dict[str, list[Card]] = {}
        for card in self.cards:
            for text in (card.code, card.name, *card.aliases):
                bucket = self._lookup.setdefault(_key(text), [])
                if card not in bucket:
                    bucket.append(card)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __contains__(self, code: object) -> bool:
        return code in self._by_code

    def __getitem__(self, code: str) -> Card:
        """The card with exactly this code (no name parsing); KeyError otherwise."""
        return self._by_code[code]

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(c.code for c in self.cards)

    def closest(self, text: str, n: int = 3) -> list[Card]:
        """The cards whose code or name is most like `text`, best first."""
        keys = difflib.get_close_matches(_key(text), list(self._lookup), n=n * 2, cutoff=0.4)
        found: list[Card] = []
        for k in keys:
            for card in self._lookup[k]:
                if card not in found:
                    found.append(card)
        return found[:n]

    def _unknown(self, text: str) -> UnknownCard:
        near = self.closest(text)
        hint = "; closest: " + ", ".join(f"{c.name} ({c.code})" for c in near) if near else ""
        return UnknownCard(f"unknown card {text!r} in the {self.title} deck{hint}")

    def parse(self, text: str) -> Card:
        """The card named by a code or full name, any case; UnknownCard otherwise."""
        if not isinstance(text, str) or not text.strip():
            raise UnknownCard(f"empty card name in the {self.title} deck")
        matches = self._lookup.get(_key(text))
        if not matches:
            raise self._unknown(text)
        return matches[0]

    def parse_many(self, texts: Iterable[str], *, allow_repeats: bool = False) -> list[Card]:
        """Parse several cards. A name shared by interchangeable cards ("Joker", "Void")
        takes the next unused one; a card named twice is an error unless allowed."""
        result: list[Card] = []
        for text in texts:
            matches = self._lookup.get(_key(text)) if isinstance(text, str) else None
            if not matches:
                raise self._unknown(str(text))
            unused = [c for c in matches if c not in result]
            if unused:
                result.append(unused[0])
            elif allow_repeats:
                result.append(matches[0])
            elif len(matches) > 1:
                raise UnknownCard(f"there are only {len(matches)} cards called {text!r} in the "
                                  f"{self.title} deck ({', '.join(c.code for c in matches)})")
            else:
                code = matches[0].code
                named = repr(text) if text == code else f"{text!r} ({code})"
                raise UnknownCard(f"card {named} is given twice")
        return result

    def code(self, text: str) -> str:
        """Shorthand: the code of the card named by `text`."""
        return self.parse(text).code


# --- Yokir (24) -------------------------------------------------------------

YOKIR_RANKS = (("I", "Initiate"), ("S", "Student"), ("P", "Prentice"), ("J", "Journeyman"),
               ("R", "Scribe"), ("M", "Master"))
YOKIR_SUITS = (Suit("A", "Architecture", "black", "pyramid"), Suit("L", "Leadership", "red", "crown"),
               Suit("M", "Art & Music", "black", "notes and brush"),
               Suit("T", "Thought", "red", "scroll"))


def _yokir() -> Deck:
    cards = []
    for suit in YOKIR_SUITS:
        for value, (r, rname) in enumerate(YOKIR_RANKS, start=1):
            aliases = (f"{rname} of {suit.name.replace('&', 'and')}",)
            if rname == "Journeyman":
                aliases += (f"J'man of {suit.name}", f"Jman of {suit.name}")
            cards.append(Card(code=r + suit.code, name=f"{rname} of {suit.name}", deck="yokir",
                              kind="rank", suits=(suit.code,), rank=r, rank_name=rname,
                              value=value, colour=suit.colour, aliases=aliases))
    return Deck("yokir", "Yokir", cards, YOKIR_SUITS)


# --- Piktas (72) ------------------------------------------------------------

PIKTAS_SUITS = (Suit("O", "Stone", "dark red", "triangle"), Suit("W", "Water", "dark blue", "drop"),
                Suit("K", "Sky", "dark green", "stem"), Suit("U", "Sun", "orange", "sunburst"),
                Suit("M", "Moon", "light blue", "crescent"))
PIKTAS_TRUMPS = (("raven", "sagebrush", "KU"), ("bat", "beetle", "KM"), ("lizard", "serpent", "UO"),
                 ("rabbit", "coyote", "MO"), ("reeds", "man", "WU"), ("lily", "woman", "WM"),
                 ("tree", "grain", "WO"), ("goose", "toad", "WK"), ("eagle", "bee", "KO"),
                 ("jackal", "lion", "UM"))
NUMBER_WORDS = ("One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten")


def _piktas() -> Deck:
    cards = []
    for suit in PIKTAS_SUITS:
        for v in range(1, 11):
            cards.append(Card(code=f"{suit.code}{v}", name=f"{v} of {suit.name}", deck="piktas",
                              kind="pip", suits=(suit.code,), value=v, colour=suit.colour,
                              aliases=(f"{NUMBER_WORDS[v - 1]} of {suit.name}",)))
    for first, second, pair in PIKTAS_TRUMPS:
        for animal in (first, second):
            name = "Mountain Lion" if animal == "lion" else animal.capitalize()
            aliases = ("Lion",) if animal == "lion" else ()
            cards.append(Card(code=animal, name=name, deck="piktas", kind="trump",
                              suits=tuple(pair), colour="two-suit", aliases=aliases))
    for n in (1, 2):
        cards.append(Card(code=f"void{n}", name="Void", deck="piktas", kind="void",
                          colour="black", aliases=(f"Void {n}",)))
    return Deck("piktas", "Piktas", cards, PIKTAS_SUITS, size_mm=(76.0, 76.0))


# --- Standard (52 + 2 jokers) ----------------------------------------------

STANDARD_RANKS = (("A", "Ace"), ("2", "2"), ("3", "3"), ("4", "4"), ("5", "5"), ("6", "6"),
                  ("7", "7"), ("8", "8"), ("9", "9"), ("10", "10"), ("J", "Jack"),
                  ("Q", "Queen"), ("K", "King"))
STANDARD_SUITS = (Suit("S", "Spades", "black", "♠"), Suit("H", "Hearts", "red", "♥"),
                  Suit("D", "Diamonds", "red", "♦"), Suit("C", "Clubs", "black", "♣"))


def _standard() -> Deck:
    cards = []
    for suit in STANDARD_SUITS:
        for value, (r, rname) in enumerate(STANDARD_RANKS, start=1):
            aliases: tuple[str, ...] = ()
            if rname.isdigit():
                aliases = (f"{NUMBER_WORDS[value - 1]} of {suit.name}",)
            cards.append(Card(code=r + suit.code, name=f"{rname} of {suit.name}", deck="standard",
                              kind="rank", suits=(suit.code,), rank=r, rank_name=rname,
                              value=value, colour=suit.colour, aliases=aliases))
    for n in (1, 2):
        cards.append(Card(code=f"JK{n}", name="Joker", deck="standard", kind="joker",
                          colour="black" if n == 1 else "red", aliases=(f"Joker {n}",)))
    return Deck("standard", "standard", cards, STANDARD_SUITS)


# --- IDEAL (130) -------------------------------------------------------------

IDEAL_RANKS = (("K", "King"), ("Q", "Queen"), ("P", "Princess"), ("F", "Favourite"),
               ("J", "Jack"), ("E", "Ecclesiastic"), ("S", "Soothsayer"), ("I", "Intelligencer"),
               ("A", "Apothecary"), ("C", "Constable"), ("O", "Oculist"), ("U", "Usurer"),
               ("B", "Blacksmith"), ("M", "Mason"), ("R", "Reeve"), ("H", "Huntsman"),
               ("G", "Goatherd"), ("Y", "Yeoman"), ("D", "Dairyman"), ("L", "Labourer"),
               ("W", "Witch"), ("V", "Vagrant"), ("T", "Troubadour"), ("N", "Necromancer"),
               ("Z", "Zany"), ("X", "Xenocrat"))
# Listed high to low: this is also the suit order for ranking (RULINGS).
IDEAL_SUITS = (Suit("S", "Swords", "black", "♠"), Suit("C", "Cups", "red", "♥"),
               Suit("T", "Staffs", "green", "♣"), Suit("P", "Pentacles", "gold", "♦"),
               Suit("W", "Wands", "purple", "Ψ"))


def _ideal() -> Deck:
    cards = []
    for suit in IDEAL_SUITS:
        for i, (r, rname) in enumerate(IDEAL_RANKS):
            aliases = ("Favorite of " + suit.name,) if rname == "Favourite" else ()
            cards.append(Card(code=r + suit.code, name=f"{rname} of {suit.name}", deck="ideal",
                              kind="rank", suits=(suit.code,), rank=r, rank_name=rname,
                              value=25 - i, colour=suit.colour, aliases=aliases))
    return Deck("ideal", "IDEAL", cards, IDEAL_SUITS)


# --- Ahyoheek picks ----------------------------------------------------------

def _ahyoheek() -> Deck:
    cards = [Card(code=c, name=c.capitalize(), deck="ahyoheek", kind="pick",
                  aliases=(c + "s",)) for c in ("pen", "page", "beetle")]
    return Deck("ahyoheek", "Ahyoheek picks", cards)


DECKS: dict[str, Deck] = {d.name: d for d in (_yokir(), _piktas(), _standard(), _ideal(),
                                              _ahyoheek())}
# A game's name stands for its deck (the catalog says which); "picks" for Ahyoheek's.
DECK_ALIASES = {**{g.name: g.deck for g in GAMES if g.deck and g.deck != g.name}, "picks": "ahyoheek"}


def register_deck(deck: Deck) -> None:
    """Make a deck (for example one the user taught) usable by name everywhere."""
    DECKS[deck.name] = deck


def deck_names() -> list[str]:
    return list(DECKS)


def get_deck(name: str) -> Deck:
    """The deck called `name` (or the deck of the game called `name`)."""
    key = name.strip().lower()
    key = DECK_ALIASES.get(key, key)
    if key not in DECKS:
        near = difflib.get_close_matches(key, list(DECKS) + list(DECK_ALIASES), n=2)
        hint = f"; did you mean {' or '.join(near)}?" if near else ""
        raise UnknownDeck(f"unknown deck {name!r}: the decks are {', '.join(DECKS)}{hint}")
    return DECKS[key]
