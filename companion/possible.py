"""Which cards can appear next: what the referee tells the camera.

A card that has already been played, turned down or shown can seldom lie on the table
again as a new card; a card nobody has seen yet can. Vision uses this as a prior (plain
codes, so vision imports no game): unseen cards are the likely set, a card already in
play needs a clearly higher margin, and between two close readings the possible one is
taken, with the reason in words for the log ("read as QS; KS is already played by seat
2"). The rules still judge every card the camera reports.

Pure: it reads the public actions of the log in effect (accepted, not undone).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: A new deal gathers every card back: what was seen before it can be seen again.
NEW_DEAL = ("deal",)
#: Games whose cards come back into play within a deal (Yonac's Pile never runs out,
#: Piktas swaps cards between hand and field, Medieval Mastery's cards go under the stock
#: and are drawn again): a card seen is no less likely there. In Medieval Mastery's hard
#: demo the prior turned a King of Staffs back from under the stock into the Reeve of
#: Swords, because the King counted as seen.
RETURNING = ("yonac", "piktas", "medieval-mastery")

#: Action fields that name cards laid open on the table (a card, or a list of cards or
#: of {"card": ...} entries). Cards dealt into hidden hands ("hands") are not among them.
CARD_FIELDS = ("card", "cards", "upcard", "set", "meld", "laid", "swap", "field")


def _codes(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        if isinstance(value.get("card"), str):
            yield value["card"]
    elif isinstance(value, Sequence):
        for item in value:
            yield from _codes(item)


def seen_cards(actions: Iterable[Mapping[str, Any]], deck_codes: Iterable[str]) -> dict[str, str]:
    """code -> where it was seen, in words ("played by seat 2"), for every card of the
    deck that the public actions show; the last sighting wins. Seats count from 1 here:
    these words are for people."""
    deck = set(deck_codes)
    out: dict[str, str] = {}
    for action in actions:
        if action.get("type") in NEW_DEAL:
            out.clear()
        seat = action.get("seat")
        kind = str(action.get("type", "move"))
        who = f" by seat {seat + 1}" if isinstance(seat, int) else ""
        for name in CARD_FIELDS:
            for code in _codes(action.get(name)):
                if code in deck:
                    out[code] = "already turned up" if name == "upcard" else f"already {_verb(kind)}{who}"
    return out


def _verb(kind: str) -> str:
    return {"play": "played", "discard": "discarded", "swap": "swapped", "meld": "laid",
            "lay": "laid", "set": "shown"}.get(kind, "in play")


def possible(actions: Iterable[Mapping[str, Any]], deck_codes: Sequence[str],
             game: str = "") -> tuple[frozenset[str], dict[str, str]]:
    """(the cards still unseen in this deal, where each seen card is in words). For a
    game whose cards come back (RETURNING) every card stays likely."""
    if game in RETURNING:
        return frozenset(deck_codes), {}
    seen = seen_cards(actions, deck_codes)
    return frozenset(c for c in deck_codes if c not in seen), seen
