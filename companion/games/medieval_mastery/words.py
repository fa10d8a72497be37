"""Medieval Mastery's words for its log events, as data (`companion.words.Words`): a
template with seat and card references, rendered to the sentence the log and the verdict
line show."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.games.medieval_mastery.rules import HAND_SIZE, check_group, name
from companion.words import CardRef, Seat, Words, join_words


def _seat_list(values: list[Any]) -> Words:
    return join_words([Words.of("{seat}: {v}", seat=Seat(s), v=str(v)) for s, v in enumerate(values)],
                      ", ")


def _deal(e: dict[str, Any]) -> Words:
    hands = e.get("hands")
    shown: Words | str = ""
    if hands is not None:
        listed = join_words([Words.of("{seat}: {cards}", seat=Seat(s),
                                      cards=" ".join(c or "?" for c in h) if h else "hidden")
                             for s, h in enumerate(hands)], "; ")
        shown = Words.of(" ({listed})", listed=listed)
    dealer = e.get("dealer")
    return Words.of("{Seat} deals {n} cards to each player{shown}; the rest is the stock.",
                    seat=Seat(dealer) if isinstance(dealer, int) else "somebody", n=HAND_SIZE,
                    shown=shown)


def _play(e: dict[str, Any]) -> Words:
    return Words.of("{Seat} plays {card} ({code}).", seat=Seat(e["seat"]),
                    card=CardRef(e["card"], f"the {name(e['card'])}"), code=e["card"])


def _meld(e: dict[str, Any]) -> Words:
    groups = e.get("groups") or []
    if not groups:
        return Words.of("{Seat} has no family or commune on the table.", seat=Seat(e["seat"]))
    laid = "; ".join(f"{check_group(g).title}: {' '.join(g)}" for g in groups)
    return Words.of("{Seat}'s tableau: {laid}.", seat=Seat(e["seat"]), laid=laid)


def _refill(e: dict[str, Any]) -> Words:
    parts = [Words.of("{seat} draws {n}{cards}", seat=Seat(s), n=len(c),
                      cards=f" ({' '.join(x or '?' for x in c)})" if any(c) else "")
             for s, c in enumerate(e.get("cards", [])) if c]
    return Words.of("Refill from the stock: {parts}.",
                    parts=join_words(parts, ", ") if parts else "nobody draws")


def _trick(e: dict[str, Any]) -> Words:
    return Words.of("{Seat} wins trick {trick}: {why}.", seat=Seat(e["winner"]), trick=e["trick"],
                    why=str(e["why"]))


def _arrangement(e: dict[str, Any]) -> Words:
    laid = [f"{' '.join(e[key])} from the {where}" for key, where
            in (("from_trick", "trick"), ("from_hand", "hand")) if e.get(key)]
    rest = [f"the tableau is worth {e['points']} points"]
    if e.get("rejects"):
        rest.append(f"rejects: {' '.join(e['rejects'])}")
    if e.get("to_stock"):
        rest.append(f"{' '.join(e['to_stock'])} go{'es' * (len(e['to_stock']) == 1)} under the stock")
    return Words.of("{Seat} lays down {laid}; {rest}.", seat=Seat(e["seat"]),
                    laid=" and ".join(laid) if laid else "nothing new", rest="; ".join(rest))


def _round(e: dict[str, Any]) -> Words:
    return Words.of("Round {round} ends after trick {tricks}: {why}. Points: {points}. Totals: "
                    "{totals}.{end}", round=e["round"], tricks=e["tricks"], why=str(e["why"]),
                    points=_seat_list(e["points"]), totals=_seat_list(e["totals"]),
                    end=" The game is over." if e.get("over") else "")


def _verdict(e: dict[str, Any]) -> Words:
    return Words.of("Referee: {text}", text=str(e["text"]))


_WORDS: dict[str, Callable[[dict[str, Any]], Words]] = {
    "deal": _deal, "play": _play, "meld": _meld, "refill": _refill, "trick": _trick,
    "arrangement": _arrangement, "round": _round, "verdict": _verdict}


def event_words(event: dict[str, Any]) -> Words | None:
    """Words for one event of a Medieval Mastery log; None for one it does not know."""
    make = _WORDS.get(str(event.get("type")))
    return make(event) if make else None
