"""Piktas's words for its log events, as data (`companion.words.Words`): a template with
seat and card references, rendered to the sentence the log and the verdict line show."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from companion.games.piktas.rules import KIND_NAMES, is_void, position_card
from companion.words import Seat, Seats, Words, join_words, with_hands


def cards_words(cards: Sequence[str]) -> str:
    """Card codes in a row, "nothing" for none."""
    return " ".join(cards) if cards else "nothing"


def position_words(position: Sequence[str]) -> str:
    """A field position: its card, or its voids over the card under them."""
    if len(position) == 1:
        return position[0]
    card = position_card(position)
    voids = " and ".join(c for c in position if is_void(c))
    return f"{voids} over {card}" if card else f"{voids} (no card left to go under it)"


def units_words(units: list[dict[str, Any]]) -> str:
    """A scored pool's units: kind, cards and points of each."""
    return "; ".join(f"{KIND_NAMES.get(u['kind'], u['kind'])} {' '.join(u['cards'])} ({u['points']})"
                     for u in units) or "no scoring unit"


def _seat_list(values: Sequence[Any]) -> Words:
    return join_words([Words.of("{seat}: {v}", seat=Seat(s), v=str(v)) for s, v in enumerate(values)],
                      ", ")


def _deal(e: dict[str, Any]) -> Words:
    field = ", ".join(position_words(p) for p in e["field"])
    head = Words.of("{Seat} deals six cards to each player; the field: {field}", seat=Seat(e["dealer"]),
                    field=field)
    return with_hands(head, e.get("hands"))


def _round(e: dict[str, Any]) -> Words:
    won = Seats(tuple(e["winners"]))
    totals = _seat_list(e["scores"])
    if e.get("pot"):
        return Words.of("Round {round}: {won} wins, {why}. {Won} takes the pot of {pot}. Totals: "
                        "{totals}.", round=e["round"], won=won, why=str(e["why"]), pot=e["pot"],
                        totals=totals)
    return Words.of("Round {round}: {won} wins, {why}. Totals: {totals}.", round=e["round"], won=won,
                    why=str(e["why"]), totals=totals)


_SEAT_WORDS: dict[str, Callable[[dict[str, Any]], Words]] = {
    "pass": lambda e: Words.of("{Seat} passes", seat=Seat(e["seat"])),
    "swap": lambda e: Words.of("{Seat} takes {take} from the field and puts {give} in its place",
                               seat=Seat(e["seat"]), take=str(e["take"]), give=str(e["give"])),
    "void": lambda e: Words.of("{Seat} covers {on} with {void}", seat=Seat(e["seat"]),
                               on=str(e["on"]), void=str(e["void"])),
    "raise": lambda e: Words.of("{Seat} raises by {amount}", seat=Seat(e["seat"]), amount=e["amount"]),
    "match": lambda e: Words.of("{Seat} matches the bet", seat=Seat(e["seat"])),
    "fold": lambda e: Words.of("{Seat} folds", seat=Seat(e["seat"])),
    "stay": lambda e: Words.of("{Seat} stays", seat=Seat(e["seat"])),
    "show": lambda e: Words.of("{Seat} shows {hand}", seat=Seat(e["seat"]), hand=cards_words(e["hand"])),
    "score": lambda e: Words.of("{Seat} scores {total}: {units}", seat=Seat(e["seat"]),
                                total=e["total"], units=units_words(e["units"])),
    "deal": _deal,
    "draw": lambda e: Words.of("The dealer adds {cards} to the field", cards=position_words(e["cards"])),
    "buy_in": lambda e: Words.of("Everyone buys in {each}: the pot holds {pot}", each=e["each"],
                                 pot=e["pot"]),
    "round": _round,
    "verdict": lambda e: Words.of("Referee: {text}", text=str(e["text"])),
}


def event_words(event: dict[str, Any]) -> Words | None:
    """Words for one event of a Piktas log; None for one Piktas does not know or cannot read."""
    make = _SEAT_WORDS.get(str(event.get("type")))
    if make is None:
        return None
    try:
        return make(event)
    except (KeyError, TypeError, ValueError, IndexError):
        return None
