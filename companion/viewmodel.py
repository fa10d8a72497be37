"""What the screen and the seat LEDs show: the session publishes a `ViewModel` after
every change, and the kiosk and the panel only read it (no rules outside the engines).

Plain frozen data, JSON-able with `to_json()`, so it can cross threads and be logged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from companion.games.base import Action
from companion.words import Words


@dataclass(frozen=True)
class Verdict:
    """The referee's call on the last input.

    ok: the input was accepted. text: the call in words, naming the seat, the card and the
    rule. awaiting: an illegal input that the players must acknowledge (confirm accepts the
    referee's call, undo removes the last event); the panel lights red and beeps meanwhile.
    """

    ok: bool
    text: str
    seat: int | None = None
    rule: str | None = None
    awaiting: bool = False
    # The accepted (or undone, redone) events of `text` as data, one `Words` a sentence: a
    # template with seat and card references. `companion.words.render(w, seat_name)` gives
    # each sentence with the players' names; empty for a rejection (its `text` only).
    words: tuple[Words, ...] = ()


@dataclass(frozen=True)
class QuestionView:
    """A card lying still that the camera cannot name, as the screen asks about it.

    key: the card's key on the table (answer with `Session.answer(key, code)`).
    candidates: (code, name in words) of the likely cards, best first, one button each.
    crop: whether the camera's picture of the card exists (`Session.question_crop(key)`
    gives its PNG bytes: they stay out of this JSON-able picture). waiting: how many
    questions are pending in all (this one is the oldest).
    """

    key: str
    zone: str
    seat: int | None
    candidates: tuple[tuple[str, str], ...]
    crop: bool = False
    waiting: int = 1


@dataclass(frozen=True)
class ViewModel:
    """One published picture of a game in play (see `State.view()` for the engine's part)."""

    game: str  # registry name, "yokir"
    title: str  # "Yokir"
    players: tuple[str, ...]  # names by seat
    turn: int | None  # seat to act, None when nobody (chance, over)
    phase: str = ""
    next: str = ""  # what the players must do next, in words
    limit: str = ""  # the rule that limits the seat to act
    legal: tuple[str, ...] = ()  # codes (or labels) the seat to act may play, when known
    trick: tuple[dict[str, Any], ...] = ()  # [{"seat": s, "card": code}]
    last_trick: dict[str, Any] | None = None  # {"cards": [...], "winner": s, "why": text}
    scores: tuple[int | float, ...] = ()
    verdict: Verdict | None = None
    over: bool = False
    winners: tuple[int, ...] = ()
    events: int = 0  # number of accepted events in the log
    can_undo: bool = False
    can_redo: bool = False
    table: dict[str, Any] = field(default_factory=dict)  # game extras (trump, field, picked...)
    camera: str = "ok"  # "ok", "no camera", "mat lost"
    question: QuestionView | None = None  # the oldest card the camera asks the players to name
    # `next`, `limit` and the table's facts in words (Yokir's "upcard_state") as data: a
    # template with seat and card references (companion.words), so a screen puts the
    # players' names in. `render(next_words) == next`, `render(limit_words) == limit`,
    # `render(facts_words[key]) == table[key]`; `render(w, seat_name)` names the seats.
    next_words: Words = field(default_factory=lambda: Words(""))
    limit_words: Words = field(default_factory=lambda: Words(""))
    facts_words: dict[str, Words] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["next_words"], out["limit_words"] = self.next_words.to_json(), self.limit_words.to_json()
        out["facts_words"] = {k: w.to_json() for k, w in self.facts_words.items()}
        return out


class SessionPort(Protocol):
    """What the panel and the kiosk may ask of a session (companion.session.Session).
    `source` names where an input came from ("touch", "panel", "vision") for the log."""

    def act(self, action: Action, source: str = "touch") -> Verdict:
        """Apply an action through the engine; a rejected one is logged with the reason."""

    def legal_actions(self) -> Sequence[Action]:
        """The legal actions of the seat to act now (empty at a chance node or the end)."""

    def undo(self, source: str = "touch") -> bool:
        """Drop the last accepted event (False at the start of the game)."""

    def redo(self, source: str = "touch") -> bool:
        """Re-apply the last undone event (False when there is none)."""

    def confirm(self, source: str = "touch") -> None:
        """Accept the referee's call on an awaiting verdict."""

    def view(self) -> ViewModel:
        """The current picture."""

    def subscribe(self, callback: Callable[[ViewModel], None]) -> Callable[[], None]:
        """Call `callback(view_model)` after every change, once committed to storage;
        returns a function that unsubscribes."""
