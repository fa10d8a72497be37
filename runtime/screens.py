"""One small controller per kiosk screen, without a toolkit: what each screen may ask of
the table (`runtime.table.Table`) and the little logic it needs, as plain methods and data.

The kiosk's Kivy app is a thin bridge: its properties show the table's state, its verbs
call these controllers (and turn a `CompanionError` into words on the screen). Nothing
here imports Kivy or the kiosk, so each controller is tested with a bare Table.

- `Home`: the games to pick, taking up a stored game.
- `Setup`: the options' spec and defaults, seating, the first dealer, starting.
- `Play`: every input of a game in play (touch menus, questions and answers, undo,
  confirm, dealing) and the hand the table knows.
- `History`: finished and unfinished games and the ratings.
- `Settings`: the camera source, corners, deck teaching, the lens calibration, the pin test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from companion.catalog import CATALOG, game_info, game_names
from companion.errors import CompanionError
from companion.menus import Option, options_spec
from companion.session import Session
from companion.storage import GameRecord, PlayerRating
from companion.viewmodel import Verdict

if TYPE_CHECKING:
    from companion.games import Action
    from runtime.table import Table


class Home:
    """The home screen: one tile per registered game; a stored game taken up again."""

    def __init__(self, table: Table) -> None:
        self.table = table

    @staticmethod
    def games() -> list[tuple[str, str, int, int]]:
        """(name, title, fewest players, most players) of every registered game."""
        return [(name, CATALOG[name].title, CATALOG[name].min_players, CATALOG[name].max_players)
                for name in game_names()]

    def in_play(self) -> bool:
        """Is a game open (to go back to)?"""
        return self.table.session is not None

    def resume(self, game_id: int) -> Session:
        """Take up the stored game `game_id` where its log stops."""
        return self.table.resume(game_id)


def step_for(option: Option) -> int:
    """How far one tap of + or - moves a whole-number option: 1 for small numbers,
    more for large ones (a target of 3125 moves by 100)."""
    size = max(abs(int(option.default or 1)), 1)
    return 10 ** max(0, len(str(size)) - 2)


class Setup:
    """The setup screen's answers: seats, names, the first dealer, the game's options."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def stored_players(self) -> list[str]:
        """The stored players' names, offered for each seat."""
        return self.table.players()

    @staticmethod
    def options(game: str) -> tuple[Option, ...]:
        return options_spec(game_info(game).name)

    @staticmethod
    def defaults(game: str) -> dict[str, Any]:
        """Every option of `game` at its default value."""
        return {o.name: o.default for o in options_spec(game_info(game).name)}

    @staticmethod
    def first_names(game: str, stored: Sequence[str]) -> list[str]:
        """A name for every seat `game` can have: stored players first, then "Player k"
        (in seat k, unless that name sits already)."""
        most = game_info(game).max_players
        names = list(stored[:most])
        k = len(names) + 1
        while len(names) < most:
            candidate = f"Player {k}"
            if candidate.casefold() not in {n.casefold() for n in names}:
                names.append(candidate)
            k += 1
        return names

    @staticmethod
    def seat_name(names: Sequence[str], seat: int, name: str) -> list[str] | None:
        """`names` with `name` at `seat`; a name seated elsewhere swaps the two seats.
        None when `name` is blank."""
        name = " ".join(name.split())
        if not name:
            return None
        names = list(names)
        for other, n in enumerate(names):
            if other != seat and n.casefold() == name.casefold():
                names[other] = names[seat]
                break
        names[seat] = name
        return names

    @staticmethod
    def bumped(game: str, name: str, value: Any, direction: int) -> int:
        """A whole-number option `name` one tap of + (1) or - (-1) on from `value`,
        kept within its bounds."""
        option = next(o for o in options_spec(game_info(game).name) if o.name == name)
        bumped = int(value if value is not None else option.default) + direction * step_for(option)
        if option.min is not None:
            bumped = max(option.min, bumped)
        if option.max is not None:
            bumped = min(option.max, bumped)
        return bumped

    def dealer_seats(self, game: str, players: int, options: dict[str, Any]) -> list[int]:
        """The seats the table may name as first dealer ([] when the game decides)."""
        return self.table.dealer_seats(game, players, options)

    def start(self, game: str, names: Sequence[str], options: dict[str, Any] | None = None,
              dealer: int | None = None) -> Session:
        """Hand everything to the engine; it refuses a bad combination (CompanionError)."""
        return self.table.start(game, list(names), options, dealer)


class Play:
    """A game in play: each input goes to the session through the table. With no game
    open the inputs do nothing (a late touch after the game was closed)."""

    def __init__(self, table: Table) -> None:
        self.table = table

    @property
    def session(self) -> Session | None:
        return self.table.session

    def act(self, action: Action) -> Verdict | None:
        return self.table.act(action) if self.session is not None else None

    def play_card(self, code: str) -> Verdict | None:
        return self.table.play_card(code)

    def bid(self, label: str) -> Verdict | None:
        return self.table.bid(label)

    def pick(self, seat: int, item: str) -> Verdict | None:
        return self.table.pick(seat, item)

    def choose(self, index: int) -> Verdict | None:
        return self.table.choose(index)

    def count(self, index: int, value: int) -> Verdict | None:
        return self.table.count(index, value)

    def deal(self) -> Verdict | None:
        return self.table.deal()

    def undo(self) -> bool:
        return self.session is not None and self.table.undo()

    def redo(self) -> bool:
        return self.session is not None and self.table.redo()

    def confirm(self) -> None:
        if self.session is not None:
            self.table.confirm()

    def answer(self, key: str, code: str) -> Verdict | None:
        """One touch names the card the camera asked about; the referee judges it."""
        if self.session is None:
            return None
        return self.session.answer(key, code, source="touch")

    def withdraw(self, key: str) -> None:
        """Let the players enter the card by touch instead."""
        if self.session is not None:
            self.session.withdraw(key)

    def question_crop(self, key: str) -> bytes | None:
        """The PNG of the card asked about (None when answered or withdrawn meanwhile)."""
        if self.session is None:
            return None
        try:
            return self.session.question_crop(key)
        except CompanionError:
            return None

    def known_hand(self, seat: int | None) -> list[str]:
        """The cards of `seat`'s hand when the table knows them (dealt on screen: open
        hands), else []. Only engines that keep whole hands as lists of codes say so."""
        if self.session is None or seat is None:
            return []
        try:
            hands = getattr(self.session.state(), "hands", None)
        except CompanionError:
            return []
        if not isinstance(hands, (list, tuple)) or not 0 <= seat < len(hands):
            return []
        hand = hands[seat]
        if not isinstance(hand, (list, tuple)) or not all(isinstance(c, str) for c in hand):
            return []
        return list(hand)

    def end(self) -> None:
        """Close the game (it stays stored and can be resumed)."""
        self.table.detach()


class History:
    """The history screen's data."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def load(self) -> tuple[list[GameRecord], list[GameRecord], list[PlayerRating]]:
        """Finished and unfinished games (newest first) and the ratings."""
        return self.table.history()


class Settings:
    """The settings screen: camera source, corners, deck teaching, lens calibration, pins."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._lighting: Any = None  # the pin test whose LEDs are being walked

    # the camera and the corners
    def set_camera_source(self, source: str, *, wanted: bool = False) -> None:
        self.table.set_camera_source(source, wanted=wanted)

    def add_corner(self, x: float, y: float) -> None:
        self.table.add_corner(x, y)

    def clear_corners(self) -> None:
        self.table.corners = []

    def save_corners(self) -> None:
        self.table.save_corners()

    # teaching a deck
    def teach_start(self, deck: str) -> None:
        self.table.teach_start(deck)

    def teach_capture(self) -> None:
        self.table.teach_capture()

    def teach_skip(self) -> None:
        self.table.teach_skip()

    def teach_stop(self) -> None:
        self.table.teach_stop()

    # the lens calibration
    def calibration_start(self) -> None:
        self.table.calibration_start()

    def calibration_finish(self) -> str:
        return self.table.calibration_finish()

    def calibration_cancel(self) -> None:
        self.table.calibration_cancel()

    def calibration_words(self) -> str:
        """The calibration's progress in one line ("" when none runs)."""
        run = self.table.calibration
        return run.line() if run is not None else ""

    # the panel
    def panel_parts(self) -> list[tuple[str, str, str]]:
        return self.table.panel_parts()

    def panel_outputs(self) -> list[tuple[str, str]]:
        return self.table.panel_outputs()

    def start_pin_test(self) -> None:
        self.table.start_pin_test()

    def stop_pin_test(self) -> None:
        self.table.stop_pin_test()

    def light_outputs(self, step: float = 0.5) -> bool:
        """Start lighting each LED in turn, `step` seconds each; True when a sequence
        runs (then call `next_light` every `step` seconds until it says False)."""
        self.table.light_outputs(step)
        test = self.table.pin_test
        self._lighting = test if test is not None and test.lighting else None
        return self._lighting is not None

    def next_light(self) -> bool:
        """On to the next output; False when the sequence is over (or the test ended)."""
        test = self._lighting
        going = test is not None and self.table.pin_test is test and test.advance()
        if not going:
            self._lighting = None
        return going


@dataclass
class Controllers:
    """The five controllers of one table."""

    table: Table
    home: Home = field(init=False)
    setup: Setup = field(init=False)
    play: Play = field(init=False)
    history: History = field(init=False)
    settings: Settings = field(init=False)

    def __post_init__(self) -> None:
        self.home, self.setup, self.play = Home(self.table), Setup(self.table), Play(self.table)
        self.history, self.settings = History(self.table), Settings(self.table)
