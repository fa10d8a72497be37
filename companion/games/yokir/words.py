"""Yokir's words for its log events, as data (`companion.words.Words`): a template with
seat and card references, rendered to the sentence the log and the verdict line show."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from companion.games.yokir.rules import PLAYERS, SUITS, card_name, suit_name, title
from companion.words import CardRef, Seat, Seats, Words, join_words, plain, with_hands


def card(code: str, *, the: bool = False) -> CardRef:
    """A card reference in Yokir's words ("Master of Thought"; "the ..." with `the`)."""
    name = card_name(code)
    return CardRef(code, f"the {name}" if the else name)


def cards_words(cards: Sequence[str], trump: str | None = None) -> str:
    """Cards by their titles under `trump`, comma separated."""
    return ", ".join(title(c, trump) for c in cards)


def tie_words(scores: list[int], target: int) -> Words | None:
    """After a hand: the leaders who share the lead at or over the target (play goes on)."""
    best = max(scores)
    leaders = [s for s, p in enumerate(scores) if p == best]
    if best < target or len(leaders) == 1:
        return None
    return Words.of("{Seats} share the lead with {best}: play goes on.", seats=Seats(tuple(leaders)),
                    best=best)


def _deal(e: dict[str, Any]) -> Words:
    upcard = card(e["upcard"], the=True)
    if e.get("dealer") is not None:
        head = Words.of("{Seat} deals; the upcard is {upcard}", seat=Seat(e["dealer"]), upcard=upcard)
    else:
        head = Words.of("The next dealer deals; the upcard is {upcard}", upcard=upcard)
    return with_hands(head, e.get("hands"))


def _bid(e: dict[str, Any]) -> Words:
    bid, seat = e.get("bid"), Seat(e["seat"])
    if bid == "pass":
        return Words.of("{Seat} passes", seat=seat)
    if bid == "accept":
        return Words.of("{Seat} accepts the upcard", seat=seat)
    if bid in SUITS:
        return Words.of("{Seat} calls {suit}", seat=seat, suit=suit_name(bid))
    return Words.of("{Seat} bids {bid}", seat=seat, bid=str(bid))


def _discard(e: dict[str, Any]) -> Words:
    code = e.get("card")
    if code:
        return Words.of("{Seat} discards {card}", seat=Seat(e["seat"]), card=card(code, the=True))
    return Words.of("{Seat} discards a card face down", seat=Seat(e["seat"]))


def _play(e: dict[str, Any]) -> Words:
    return Words.of("{Seat} plays {card}", seat=Seat(e["seat"]), card=card(e["card"]))


def _trump(e: dict[str, Any]) -> Words:
    caller = e["caller"]
    others = tuple(s for s in range(PLAYERS) if s != caller)
    return Words.of("{suit} is trump: {seat} plays alone against {others}. The Oracle is "
                    "{oracle}, the Sage {sage}.", suit=suit_name(e["suit"]), seat=Seat(caller),
                    others=Seats(others), oracle=card(e["oracle"], the=True),
                    sage=card(e["sage"], the=True))


def _turned_down(e: dict[str, Any]) -> Words:
    return Words.of("Everybody passed: {card} is turned down. Round 2: name another suit or "
                    "pass.", card=card(e["card"], the=True))


def _trick(e: dict[str, Any]) -> Words:
    return Words.of("Trick {trick}: {seat} wins, {why}.", trick=e["trick"], seat=Seat(e["winner"]),
                    why=str(e["why"]))


def _hand(e: dict[str, Any]) -> Words:
    scores = ", ".join(str(p) for p in e["scores"])
    return Words.of("Hand {hand}: {why}. Scores: {scores}.", hand=e["hand"], why=str(e["why"]),
                    scores=scores)


def _game(e: dict[str, Any]) -> Words:
    return Words.of("{Seat} wins the game: {why}.", seat=Seat(e["winner"]), why=str(e["why"]))


def _verdict(e: dict[str, Any]) -> Words:
    return Words.of("Referee: {text}", text=str(e["text"]))


_WORDS: dict[str, Callable[[dict[str, Any]], Words]] = {
    "deal": _deal, "bid": _bid, "discard": _discard, "play": _play, "trump": _trump,
    "turned_down": _turned_down, "trick": _trick, "hand": _hand, "game": _game,
    "verdict": _verdict}


def event_words(event: dict[str, Any], target: int) -> Words | None:
    """Words for one event of a Yokir log; None for an event Yokir does not know or cannot
    read (the generic words then), so wording never fails. `target`: the game's target,
    for the tie after a hand."""
    make = _WORDS.get(str(event.get("type")))
    if make is None:
        return None
    try:
        words = make(event)
        if event["type"] == "hand":
            tie = tie_words(event["scores"], target)
            if tie is not None:
                words = join_words([words, tie])
        return words
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


__all__ = ["card", "cards_words", "event_words", "plain", "tie_words"]
