"""Ahyoheek's words for its log events, as data (`companion.words.Words`): a template with
seat references, rendered to the sentence the log and the verdict line show."""

from __future__ import annotations

from typing import Any

from companion.words import Seat, Seats, Words, join_words


def _round(e: dict[str, Any]) -> Words:
    shown = join_words([Words.of("{seat} {pick} ({score})", seat=Seat(i), pick=p, score=f"{s:+d}")
                        for i, (p, s) in enumerate(zip(e["picks"], e["scores"], strict=True))
                        if p is not None], ", ")
    won = join_words([Words.of("{seat} wins a {pick}", seat=Seat(w), pick=e["picks"][w])
                      for w in e["winners"]], "; ")
    return Words.of("Round {round}: {shown}. {won}", round=e["round"], shown=shown,
                    won=won if e["winners"] else "Nobody wins the round.")


def event_words(event: dict[str, Any]) -> Words | None:
    """Words for one event of an Ahyoheek log; None for one Ahyoheek does not know."""
    kind = event["type"]
    if kind == "pick":  # secret until the reveal: the round line shows every pick
        return Words.of("{Seat} has picked", seat=Seat(event["seat"]))
    if kind == "round":
        return _round(event)
    if kind == "sudden_death":
        return Words.of("Tie: sudden death between {seats}", seats=Seats(tuple(event["seats"])))
    if kind == "match":
        return Words.of("{Seat} wins the match: {why}", seat=Seat(event["winner"]), why=str(event["why"]))
    return None
