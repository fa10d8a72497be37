"""The shape every game engine shares (after OpenSpiel's python games).

A `Game` holds the agreed options and makes an initial `State`. A state knows
whose turn it is (a seat, `CHANCE` for a deal or a draw, or `TERMINAL`), lists
its legal actions, applies an action (an illegal one raises `IllegalAction`
saying why), says when it is over and what everyone scores, and explains itself
in words. Dealing and drawing are explicit actions, so any game can be scripted
and replayed: the JSON form of a state is its game, options and action history.

Standard library only: this package never imports cv2, gpiozero, kivy or sqlite3.
"""

from __future__ import annotations

import copy
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.catalog import CATALOG, GameInfo
from companion.errors import BadLog, BadOption, IllegalAction
from companion.words import Seat, Seats, Words, plain, render, seat_words, seats_words

CHANCE = -1
TERMINAL = -2

# Keys an event line may carry besides the action's own: written by the session.
METADATA_KEYS = frozenset({"seq", "at", "source", "note"})


def _freeze(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


@dataclass(frozen=True, order=True)
class Action:
    """One move: a kind ("deal", "bid", "play", ...), the seat that makes it (None for
    chance) and its arguments. Hashable, so legal actions can be tested with `in`."""

    kind: str
    seat: int | None = None
    data: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def make(cls, kind: str, seat: int | None = None, **data: Any) -> Action:
        return cls(kind, seat, tuple(sorted((k, _freeze(v)) for k, v in data.items())))

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in self.data:
            if k == key:
                return v
        return default

    def __getitem__(self, key: str) -> Any:
        for k, v in self.data:
            if k == key:
                return v
        raise KeyError(key)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "seat": self.seat}
        out.update((k, _thaw(v)) for k, v in self.data)
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Action:
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise BadLog(f"an action needs a 'type' string, got {obj!r}")
        seat = obj.get("seat")
        if seat is not None and not isinstance(seat, int):
            raise BadLog(f"an action's seat must be a whole number, got {seat!r}")
        data = {k: v for k, v in obj.items() if k not in ("type", "seat") and k not in METADATA_KEYS}
        return cls.make(obj["type"], seat, **data)

    def __str__(self) -> str:
        args = " ".join(f"{k}={_thaw(v)}" for k, v in self.data)
        who = "chance" if self.seat is None else seat_words(self.seat)
        return f"{who} {self.kind} {args}".strip()


@dataclass(frozen=True)
class Option:
    """One agreed option of a game: the CLI and the kiosk's setup screen are built from it."""

    name: str
    type: type  # int, bool or str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    min: int | None = None
    max: int | None = None

    def check(self, value: Any, game: str) -> Any:
        if self.type is bool:
            if not isinstance(value, bool):
                raise BadOption(f"{game} option {self.name!r} must be true or false, got {value!r}")
        elif self.type is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadOption(f"{game} option {self.name!r} must be a whole number, got {value!r}")
            if self.min is not None and value < self.min:
                raise BadOption(f"{game} option {self.name!r} must be at least {self.min}, "
                                f"got {value}")
            if self.max is not None and value > self.max:
                raise BadOption(f"{game} option {self.name!r} must be at most {self.max}, "
                                f"got {value}")
        elif not isinstance(value, self.type):
            raise BadOption(f"{game} option {self.name!r} must be a {self.type.__name__}, "
                            f"got {value!r}")
        if self.choices and value not in self.choices:
            raise BadOption(f"{game} option {self.name!r} must be one of "
                            f"{', '.join(map(str, self.choices))}, got {value!r}")
        return value


# The facts a Game class takes from its catalog entry (companion.catalog).
CATALOG_FIELDS = ("title", "deck", "min_players", "max_players", "default_players")


class Game(ABC):
    """A game with agreed options. Subclasses set `name` and `options_spec` and write
    `new_state`; the title, deck and player range come from the game's entry in
    `companion.catalog` (a class that repeats one must agree with it, or it fails at import)."""

    name: ClassVar[str]  # registry key, also the CLI name: "yokir", "medieval-mastery"
    info: ClassVar[GameInfo]  # the catalog entry
    title: ClassVar[str]
    deck: ClassVar[str | None]  # deck name in companion.cards, None for Ahyoheek
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]
    options_spec: ClassVar[tuple[Option, ...]] = ()
    action_kinds: ClassVar[frozenset[str]]  # the "type" of every action line in a log
    outcome_kinds: ClassVar[frozenset[str]]  # the "type" of every outcome line in a log

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Fill in the catalog's facts for a game it lists. A game the catalog does not
        list (a test's stand-in) must set them itself."""
        super().__init_subclass__(**kwargs)
        name = vars(cls).get("name")
        if name is None or name not in CATALOG:
            return
        info = CATALOG[name]
        cls.info = info
        for attr in CATALOG_FIELDS:
            want = getattr(info, attr)
            if attr in vars(cls) and vars(cls)[attr] != want:
                raise TypeError(f"{cls.__name__}.{attr} is {vars(cls)[attr]!r} but the catalog "
                                f"says {want!r}: write it only in companion/catalog.py")
            setattr(cls, attr, want)

    def __init__(self, players: int | None = None, **options: Any) -> None:
        players = self.default_players if players is None else players
        if isinstance(players, bool) or not isinstance(players, int):
            raise BadOption(f"{self.name}: the number of players must be a whole number, "
                            f"got {players!r}")
        if not self.min_players <= players <= self.max_players:
            span = (str(self.min_players) if self.min_players == self.max_players
                    else f"{self.min_players} to {self.max_players}")
            raise BadOption(f"{self.title} is played by {span} players, not {players}")
        self.players = players
        spec = {o.name: o for o in self.options_spec}
        unknown = set(options) - set(spec)
        if unknown:
            raise BadOption(f"{self.name} has no option {sorted(unknown)[0]!r}; its options are: "
                            f"{', '.join(spec) or 'none'}")
        self.options: dict[str, Any] = {
            name: o.check(options[name], self.name) if name in options else o.default
            for name, o in spec.items()
        }

    def config(self) -> dict[str, Any]:
        """Everything needed to make an equal game: players and options."""
        return {"players": self.players, **self.options}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (self.name, self.config()) == (other.name,
                                                                          other.config())

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.config().items()))))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.config().items())})"

    @abstractmethod
    def new_state(self) -> State:
        """The state before anything has happened (usually a chance node: the deal)."""

    def bot_action(self, state: State, rng: random.Random) -> Action:
        """A sensible move for the seat to play. Games override this with a heuristic."""
        return rng.choice(list(state.legal_actions()))

    def public_action(self, action: Action) -> Action | None:
        """The action as the table shows it to the camera and the players (table mode):
        hidden parts (other players' hands, a face-down discard) become None; an action
        nobody can see at all gives None. Replaying the public actions of a full-information
        game in a fresh state must give the same scores and no verdicts."""
        return action

    def event_words(self, event: dict[str, Any]) -> Words | None:
        """Words for one action or outcome event of this game's log, as data: a template
        with seat and card references (None: the generic words). Engines write this one."""
        return None

    def describe(self, event: dict[str, Any]) -> str | None:
        """The text of `event_words` (None: the generic text)."""
        words = self.event_words(event)
        return None if words is None else render(words)

    def state_from_json(self, obj: dict[str, Any]) -> State:
        """Rebuild a state from `State.to_json()` by replaying its history."""
        if obj.get("game") != self.name:
            raise BadLog(f"this is a {obj.get('game')!r} state, not {self.name!r}")
        state = self.new_state()
        for i, item in enumerate(obj.get("history", []), start=1):
            try:
                state.apply(Action.from_json(item))
            except IllegalAction as exc:
                raise BadLog(f"history action {i} is illegal: {exc}") from exc
        return state


class State(ABC):
    """The state of one game in play. Engines implement the abstract methods."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.history: list[Action] = []

    # -- whose move ---------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """The seat to act, `CHANCE` when the next action is a deal or a draw, or `TERMINAL`."""

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance(self) -> bool:
        return self.current_player() == CHANCE

    # -- moves --------------------------------------------------------------
    @abstractmethod
    def legal_actions(self) -> Sequence[Action]:
        """The legal actions of the seat to act, in a stable order (empty when terminal).
        At a chance node the list may be empty: use `sample_chance` and `apply`."""

    @abstractmethod
    def sample_chance(self, rng: random.Random) -> Action:
        """A random deal or draw at a chance node (shuffling with `rng`)."""

    def check(self, action: Action) -> None:
        """Raise `IllegalAction` naming the action and the rule if `action` is not legal now.
        Engines override this for chance actions and for better reasons."""
        if self.is_terminal():
            raise IllegalAction(f"{action}: the game is over")
        if action not in self.legal_actions():
            raise IllegalAction(f"{action} is not legal now: {self.explain()}")

    @abstractmethod
    def _apply(self, action: Action) -> list[dict[str, Any]]:
        """Apply a checked action; return its outcome events (tricks won, hands scored)."""

    def apply(self, action: Action) -> list[dict[str, Any]]:
        """Check and apply `action`; return the outcome events it produced, as JSON objects
        each with a "type" from the game's `outcome_kinds`."""
        self.check(action)
        outcomes = self._apply(action)
        self.history.append(action)
        return outcomes

    # -- results ------------------------------------------------------------
    @abstractmethod
    def scores(self) -> list[int | float]:
        """Each seat's score so far; final when the game is over."""

    def winners(self) -> list[int]:
        """The seats that won (empty while the game goes on)."""
        if not self.is_terminal():
            return []
        scores = self.scores()
        best = max(scores)
        return [i for i, s in enumerate(scores) if s == best]

    @abstractmethod
    def explain(self) -> str:
        """The state in words, for a person: whose turn, what they may do and why."""

    # Every engine words its state with these three names (the view's "phase" and "limit",
    # and the end of `explain`); engines override the ones they have something to say in.
    def phase_words(self) -> str:
        """Where the game is, in a few words: "bidding, round 1", "trick 3 of 5"."""
        return ""

    def limit_words(self) -> str:
        """The rule that limits the seat to act, in a few words ("must follow Thought");
        "" when nothing does."""
        return ""

    # The same words as data (`companion.words.Words`: a template with seat and card
    # references), so a screen puts the players' names in instead of rewording the text.
    # Engines that name seats or cards in them override these and render their text from them.
    def explain_words(self) -> Words:
        """`explain()` as data: `render(self.explain_words()) == self.explain()`."""
        return plain(self.explain())

    def limit_as_words(self) -> Words:
        """`limit_words()` as data: `render(self.limit_as_words()) == self.limit_words()`."""
        return plain(self.limit_words())

    def facts_words(self) -> dict[str, Words]:
        """Facts of `view()["table"]` that are words, as data, by the same key (Yokir's
        "upcard_state": "taken up by seat 2"); each renders to the table's text."""
        return {}

    def result_words(self) -> str:
        """How the game ended, in a few words ("seat 2 won with 7 points", seats counted
        from 1); "" while it goes on."""
        if not self.is_terminal():
            return ""
        return f"{seats_words(self.winners())} won"

    def view(self) -> dict[str, Any]:
        """What the screen and the LEDs show, as JSON-able data. Keys:
        "turn" (seat or None), "phase" (short words: "bidding", "trick 3 of 5"),
        "next" (what the players must do next, in words), and where the game has them:
        "limit" (the rule that limits the seat to act: "must follow Thought"),
        "legal" (card codes the seat to act may play, when its hand is known),
        "trick" ([{"seat": s, "card": code}] on the table now),
        "last_trick" ({"cards": [...], "winner": s, "why": text}),
        "table" (game-specific extras: trump, upcard, field, stashes, pot, melds)."""
        turn = self.current_player()
        out: dict[str, Any] = {"turn": turn if turn >= 0 else None, "phase": self.phase_words(),
                               "next": self.explain()}
        limit = self.limit_words()
        if limit:
            out["limit"] = limit
        return out

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-able data (for equality and for the view model)."""

    # -- copies and JSON ----------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"game": self.game.name, "config": self.game.config(),
                "history": [a.to_json() for a in self.history]}

    def clone(self) -> State:
        return copy.deepcopy(self)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, State) and self.game == other.game
                and self.snapshot() == other.snapshot())

    __hash__ = None  # type: ignore[assignment]


Bot = Callable[[State, random.Random], Action]


def play_out(state: State, rng: random.Random, *, bot: bool = True, max_actions: int = 100_000,
             on_event: Callable[[dict[str, Any]], None] | None = None) -> State:
    """Play `state` to the end with seeded chance and bot (or random legal) moves.
    Every action and outcome goes to `on_event` as a JSON object, in log order."""
    game = state.game
    for _ in range(max_actions):
        if state.is_terminal():
            return state
        if state.is_chance():
            action = state.sample_chance(rng)
        elif bot:
            action = game.bot_action(state, rng)
        else:
            action = rng.choice(list(state.legal_actions()))
        outcomes = state.apply(action)
        if on_event:
            on_event(action.to_json())
            for out in outcomes:
                on_event(out)
    raise RuntimeError(f"{game.name} did not end within {max_actions} actions")


def event_words(game: Game, event: dict[str, Any]) -> Words:
    """The words of one log event as data (`companion.words.Words`: a template with seat
    and card references), the game's own (`Game.event_words`) or the generic ones."""
    kind = event.get("type")
    if kind == "start":
        opts = ", ".join(f"{k} {v}" for k, v in event.get("config", {}).items())
        seed = f", seed {event['seed']}" if "seed" in event else ""
        return plain(f"{game.title}: {opts}{seed}")
    if kind == "end":
        scores = [Words.of("{seat}: {score}", seat=Seat(i), score=s)
                  for i, s in enumerate(event.get("scores", []))]
        refs: dict[str, Any] = {f"s{i}": w for i, w in enumerate(scores)}
        listed = ", ".join(f"{{s{i}}}" for i in range(len(scores)))
        winners = tuple(event.get("winners", []))
        refs["who"] = Seats(winners) if winners else "nobody"
        return Words(f"Game over. Scores: {listed}. Winner: {{who}}.", tuple(refs.items()))
    words = game.event_words(event)
    if words is not None:
        return words
    if kind in game.action_kinds:
        action = Action.from_json(event)
        args = " ".join(f"{k}={_thaw(v)}" for k, v in action.data)
        if action.seat is None:
            return plain(str(action))
        return Words.of("{seat} {rest}", seat=Seat(action.seat),
                        rest=f"{action.kind} {args}".strip())
    rest = ", ".join(f"{k} {v}" for k, v in event.items() if k != "type")
    return plain(f"{kind}: {rest}")


def describe_event(game: Game, event: dict[str, Any]) -> str:
    """One line of words for a log event: the game's (`Game.describe`, the text of its
    `event_words`) or the generic words, as `event_words` gives them."""
    if event.get("type") not in ("start", "end"):
        text = game.describe(event)
        if text:
            return text
    return render(event_words(game, event))
