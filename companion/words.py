"""Words and orders every game needs: a card's name, cards in deck order, a list in a
sentence ("A, B and C"), seats as people count them ("seat 1" is index 0), and event
words as data (`Words`: a template with seat and card references, `render` for the
text). One version here instead of one per engine.

Pure: standard library and `companion.cards` only, so `companion.games` may import it.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Union

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


# -- event words as data ----------------------------------------------------------------
# An engine says what happened as a template with references to seats and cards, so a
# screen can put the players' names and the cards' pictures in; `render` makes the plain
# sentence the log viewer, the CLI and the verdict line show. Seats are counted from 0 in
# the data (as in JSON and the event log) and from 1 in the words (issue 19).


@dataclass(frozen=True)
class Seat:
    """One seat, by its index from 0; in words "seat 1" for index 0."""

    index: int

    def text(self) -> str:
        return seat_words(self.index)


@dataclass(frozen=True)
class Seats:
    """Several seats, by index from 0; in words "seat 2" or "seats 1 and 3"."""

    indexes: tuple[int, ...]

    def text(self) -> str:
        return seats_words(self.indexes)


@dataclass(frozen=True)
class CardRef:
    """A card by its code, with the words the engine uses for it ("the Master of Thought",
    "QS"): a screen may show the card's picture instead."""

    code: str
    text: str


Ref = Union[Seat, Seats, CardRef, "Words", str, int, float]


@dataclass(frozen=True)
class Words:
    """What an engine says, as data: a `str.format` template ("{seat} plays {card}") and
    the values of its fields. A field written with a capital first letter ("{Seat}") is
    the same value with its words capitalised, for the start of a sentence."""

    template: str
    refs: tuple[tuple[str, Ref], ...] = ()

    @classmethod
    def of(cls, template: str, **refs: Ref) -> Words:
        """`Words.of("{Seat} plays {card}", seat=Seat(0), card=CardRef("MT", "..."))`."""
        return cls(template, tuple(refs.items()))

    def __str__(self) -> str:
        return render(self)

    def to_json(self) -> dict[str, Any]:
        """JSON-able: {"template": ..., "refs": {name: {"seat": 0} | {"seats": [0, 2]} |
        {"card": code, "text": words} | {"words": {...}} | a number or a string}}."""
        return {"template": self.template, "refs": {k: _ref_json(v) for k, v in self.refs}}


def _ref_json(ref: Ref) -> Any:
    if isinstance(ref, Seat):
        return {"seat": ref.index}
    if isinstance(ref, Seats):
        return {"seats": list(ref.indexes)}
    if isinstance(ref, CardRef):
        return {"card": ref.code, "text": ref.text}
    if isinstance(ref, Words):
        return {"words": ref.to_json()}
    return ref


def seat_words(index: Any, *, capital: bool = False) -> str:
    """A seat as people count it: index 0 is "seat 1" ("Seat 1" with `capital`). A value
    that is no index (bad input being refused) is shown as it is."""
    number = index + 1 if isinstance(index, int) and not isinstance(index, bool) else index
    return f"{'S' if capital else 's'}eat {number}"


def seats_words(indexes: Iterable[int]) -> str:
    """"seat 2" for one seat, "seats 1 and 3" for more (indexes from 0)."""
    found = list(indexes)
    if len(found) == 1:
        return seat_words(found[0])
    return "seats " + and_list(str(i + 1) if isinstance(i, int) else str(i) for i in found)


SeatNamer = Callable[[int], str]


def render(words: Words | str, seat_name: SeatNamer | None = None) -> str:
    """The plain text of `words`. `seat_name(index)` gives a seat's words (a player's
    name, say); by default "seat 1" for index 0, and "seats 1 and 3" for several."""
    if isinstance(words, str):
        return words
    refs = dict(words.refs)
    values: dict[str, str] = {}
    for _, field_name, _, _ in _FORMATTER.parse(words.template):
        if not field_name or field_name in values:
            continue
        key = field_name if field_name in refs else field_name[:1].lower() + field_name[1:]
        text = _ref_text(refs[key], seat_name)
        values[field_name] = text[:1].upper() + text[1:] if key != field_name else text
    return words.template.format_map(values)


def sentences(words: Iterable[Words | str], seat_name: SeatNamer | None = None) -> str:
    """Words as the verdict line shows them: each rendered (with `seat_name`, see
    `render`), begun with a capital, ended with a full stop, joined by spaces. For a
    session's `Verdict.words` this is `Verdict.text` with the seats as `seat_name` says."""
    out = []
    for w in words:
        text = render(w, seat_name).strip()
        text = text[:1].upper() + text[1:]
        out.append(text if text.endswith((".", "!", "?")) else text + ".")
    return " ".join(out)


def _ref_text(ref: Ref, seat_name: SeatNamer | None) -> str:
    if isinstance(ref, Seat):
        return seat_name(ref.index) if seat_name else ref.text()
    if isinstance(ref, Seats):
        if seat_name is None:
            return ref.text()
        return and_list(seat_name(i) for i in ref.indexes)
    if isinstance(ref, CardRef):
        return ref.text
    if isinstance(ref, Words):
        return render(ref, seat_name)
    return str(ref)


def join_words(parts: Iterable[Words | str], sep: str = " ") -> Words:
    """Several words as one: the parts' renderings joined by `sep` (empty parts left out)."""
    kept = [p for p in parts if p]
    refs = tuple((f"p{i}", p if isinstance(p, Words) else Words(p.replace("{", "{{").replace("}", "}}")))
                 for i, p in enumerate(kept))
    return Words(sep.replace("{", "{{").replace("}", "}}").join(f"{{p{i}}}" for i in range(len(kept))), refs)


def listed(refs: Iterable[Ref], joined: Callable[[list[str]], str] = and_list) -> Words:
    """References listed in a sentence ("the King of Swords and the Queen of Cups"), each
    its own field; `joined` puts the fields together (`and_list` by default, or
    `", ".join`)."""
    found = list(refs)
    return Words(joined([f"{{r{i}}}" for i in range(len(found))]),
                 tuple((f"r{i}", r) for i, r in enumerate(found)))


def each_seat(indexes: Iterable[int], joined: Callable[[list[str]], str] = and_list) -> Words:
    """Seats each named in full ("seat 1, seat 2 and seat 3"), each a `Seat` reference;
    `joined` as in `listed`."""
    return listed((Seat(i) for i in indexes), joined)


def as_template(text: str, **markers: str) -> str:
    """Text already written, as a `Words` template: braces doubled, then each marker (a
    stand-in the caller wrote in place of a seat or a card, such as "\x00") made its field:
    `as_template("\x00 leads.", Seat="\x00") == "{Seat} leads."`."""
    out = text.replace("{", "{{").replace("}", "}}")
    for field_name, marker in markers.items():
        out = out.replace(marker, f"{{{field_name}}}")
    return out


def plain(text: str) -> Words:
    """Text with no seat or card in it, as words (braces kept as they are)."""
    return Words(text.replace("{", "{{").replace("}", "}}"))


_FORMATTER = string.Formatter()


def with_hands(head: Words, hands: Sequence[Sequence[str]] | None) -> Words:
    """A deal's words followed by the hands dealt open, when they were ("...; Hands:
    seat 1: 9S KD; seat 2: ...")."""
    if not hands:
        return head
    shown = join_words([Words.of("{seat}: {cards}", seat=Seat(s), cards=" ".join(h))
                        for s, h in enumerate(hands) if h], "; ")
    return Words.of("{head}. Hands: {shown}", head=head, shown=shown)
