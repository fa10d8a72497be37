"""Yonac's words for its log events, as data (`companion.words.Words`): a template with
seat and card references, rendered to the sentence the log and the verdict line show."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from companion.games.yonac.rules import DECK, P_SUDDEN_DEATH, WON_BY, card_list, card_name, cards_word
from companion.words import CardRef, Seat, Seats, Words, and_list


def sudden_death_words(seats: Sequence[int]) -> Words:
    """The players left when Sudden Death begins."""
    return Words.of("Sudden Death: {seats} are left; the next player to lose ends the game "
                    "({rule}).", seats=Seats(tuple(seats)), rule=P_SUDDEN_DEATH)


def win_words(event: dict[str, Any]) -> Words:
    """Why the winner won, from a win event."""
    how, counts, tied = event["by"], event["cards"], event["tied"]
    if how == "spades_with_clubs":
        return Words.of("{why}", why=WON_BY[how])
    mine = counts[str(event["seat"])]
    if how == "most_cards":
        if len(counts) > 1:
            return Words.of("{why} ({mine})", why=WON_BY[how], mine=mine)
        return Words.of("the last player left ({cards})", cards=cards_word(mine))
    return Words.of("{tied} tie on {cards}; {seat} {why}", tied=Seats(tuple(tied)),
                    cards=cards_word(mine), seat=Seat(event["seat"]), why=WON_BY[how])


def _card(code: str) -> CardRef:
    return CardRef(code, DECK[code].name)


def _lose(e: dict[str, Any]) -> Words:
    left = e["left"]
    return Words.of("{Seat} picked up the Ace of Spades and is out: {cards} go back into the Pile; "
                    "{left} {verb} still in.", seat=Seat(e["seat"]), cards=cards_word(len(e["cards"])),
                    left=Seats(tuple(left)), verb="is" if len(left) == 1 else "are")


def _aside(e: dict[str, Any]) -> Words:
    what = ("it protects them from the next Ace of Spades" if e["card"] == "AH"
            else "they may play it on a later turn")
    return Words.of("{Seat} sets the {card} aside: {what}.", seat=Seat(e["seat"]), card=_card(e["card"]),
                    what=what)


def _stash(e: dict[str, Any]) -> Words:
    cards = e.get("cards") or []
    return Words.of("{cards} {verb} into {seat}'s Stash ({now} there now).", cards=card_list(cards),
                    verb="goes" if len(cards) == 1 else "go", seat=Seat(e["seat"]),
                    now=cards_word(e["stash"]))


_WORDS: dict[str, Callable[[dict[str, Any]], Words]] = {
    "collect": lambda e: Words.of("{Seat} collects {cards} from the Pile.", seat=Seat(e["seat"]),
                                  cards=cards_word(e["count"])),
    "add": lambda e: Words.of("{Seat} adds {cards} to the Set (the Ace of Diamonds asks for more).",
                              seat=Seat(e["seat"]), cards=cards_word(e["count"])),
    "draw": lambda e: Words.of("Shown face up: {cards}.", cards=", ".join(
        DECK[c].name if c in DECK else str(c) for c in e.get("cards") or [])),
    "play_clubs": lambda e: Words.of("{Seat} plays the Ace of Clubs and picks up one card.",
                                     seat=Seat(e["seat"])),
    "swap": lambda e: Words.of("{Seat} swaps the Joker ({joker}) for {target}'s {ace}; the Joker goes "
                               "into {target}'s Stash.", seat=Seat(e["seat"]), joker=str(e["joker"]),
                               target=Seat(e["target"]), ace=_card(e["ace"])),
    "stash": _stash,
    "aside": _aside,
    "removed": lambda e: Words.of("The Joker removes {cards} from {seat}'s Set: back into the Pile.",
                                  cards=and_list([card_name(c) for c in e.get("cards") or []]),
                                  seat=Seat(e["seat"])),
    "saved": lambda e: Words.of("{Seat}'s Ace of Hearts saves them from the Ace of Spades: the Set "
                                "({cards}) goes back into the Pile.", seat=Seat(e["seat"]),
                                cards=card_list(e.get("cards") or [])),
    "lose": _lose,
    "sudden_death": lambda e: sudden_death_words(e["seats"]),
    "win": lambda e: Words.of("{Seat} wins: {why}.", seat=Seat(e["seat"]), why=win_words(e)),
    "verdict": lambda e: Words.of("Referee, {seat} ({rule}): {text}", seat=Seat(e["seat"]),
                                  rule=str(e["rule"]), text=str(e["text"])),
}


def event_words(event: dict[str, Any]) -> Words | None:
    """Words for one event of a Yonac log; None for one Yonac does not know."""
    make = _WORDS.get(str(event.get("type")))
    return make(event) if make else None
