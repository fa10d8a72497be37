"""The catalog: every fact about each game in one declarative place (after OpenSpiel's
GameInfo). Name, title, deck, player range, the play mat's zones, the table adapter, the
engine module and the command-line commands are written here once; the engines
(`companion.games.base.Game` takes its title, deck and players from here), the mats
(`vision.mats`), the adapters, the CLI, the demo and the kiosk all read them.

Pure: standard library only, so `companion.games` and `vision` may both import it. Modules
are named by dotted path, never imported here. Adding a game: docs/adding-a-game.md.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from companion.errors import UnknownGame


@dataclass(frozen=True)
class SeatZone:
    """One zone of each seat's block on a ring mat: name prefix ("play" gives "play-0",
    "play-1", ...), kind (a `vision.mats.ZONE_KINDS` word) and length along the edge, mm."""

    name: str
    kind: str
    length_mm: float


@dataclass(frozen=True)
class SharedZone:
    """A zone of the mat's middle that belongs to no seat: name, kind, width and height, mm."""

    name: str
    kind: str
    width_mm: float
    height_mm: float


@dataclass(frozen=True)
class MatInfo:
    """A game's play mat as data; `vision.mats` turns it into geometry.

    `layout` is "ring" (the seats' blocks round the edges, the shared zones in a row in the
    middle, on the smallest of `sizes_mm` that seats everyone) or "yokir" (three fixed seats
    and the upcard at the top). `depth_mm` is how deep each seat's band is. `first_marker`
    is the id of its first ArUco marker (each mat has its own four, so the camera can tell
    which mat it sees). `max_players`, when set, is fewer than the game's: the mat says so
    instead of drifting silently."""

    first_marker: int
    seat: tuple[SeatZone, ...]
    shared: tuple[SharedZone, ...]
    sizes_mm: tuple[tuple[float, float], ...]
    depth_mm: float
    layout: str = "ring"
    max_players: int | None = None


@dataclass(frozen=True)
class GameInfo:
    """Every fact about one game that is not a rule.

    `name` is the registry key and the CLI word ("medieval-mastery"); `deck` the deck name
    in `companion.cards` (None: no cards, Ahyoheek's picks come from buttons); `engine`,
    `adapter` and `commands` the dotted names of its engine module, table adapter module
    (None: no camera adapter) and CLI command module (None: only `companion play`);
    `cli` every command line the game has besides `play`, as words ("trick yokir")."""

    name: str
    title: str
    deck: str | None
    min_players: int
    max_players: int
    default_players: int
    engine: str
    adapter: str | None = None
    commands: str | None = None
    cli: tuple[str, ...] = ()
    mat: MatInfo | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.min_players <= self.default_players <= self.max_players:
            raise ValueError(f"{self.name}: players must satisfy 1 <= min <= default <= max, got "
                             f"{self.min_players}, {self.default_players}, {self.max_players}")

    @property
    def players_span(self) -> str:
        """"3", "2 to 10": the player range in words."""
        if self.min_players == self.max_players:
            return str(self.min_players)
        return f"{self.min_players} to {self.max_players}"

    @property
    def mat_players(self) -> tuple[int, int] | None:
        """The player counts the play mat seats (None: the game has no mat)."""
        if self.mat is None:
            return None
        return self.min_players, min(self.max_players, self.mat.max_players or self.max_players)


GAMES: tuple[GameInfo, ...] = (
    GameInfo(
        name="ahyoheek", title="Ahyoheek", deck=None,
        min_players=2, max_players=5, default_players=3,
        engine="companion.games.ahyoheek",
        commands="companion.commands.ahyoheek", cli=("score ahyoheek",),
    ),
    GameInfo(
        name="medieval-mastery", title="Medieval Mastery", deck="ideal",
        # 14 hands of 9 leave 4 cards of the 130 for the stock
        min_players=3, max_players=14, default_players=4,
        engine="companion.games.medieval_mastery",
        adapter="companion.adapters.medieval_mastery",
        commands="companion.commands.medieval_mastery",
        cli=("trick medieval-mastery", "meld medieval-mastery"),
        # families and communes are laid out in front of each player
        mat=MatInfo(first_marker=12, seat=(SeatZone("meld", "meld", 230.0),),
                    shared=(SharedZone("trick", "trick", 220.0, 130.0),
                            SharedZone("stock", "pile", 80.0, 105.0)),
                    sizes_mm=((700.0, 500.0), (900.0, 620.0), (1150.0, 800.0), (1400.0, 900.0)),
                    depth_mm=110.0),
    ),
    GameInfo(
        name="piktas", title="Piktas", deck="piktas",
        min_players=2, max_players=11, default_players=4,
        engine="companion.games.piktas",
        adapter="companion.adapters.piktas",
        commands="companion.commands.piktas", cli=("score piktas", "hint piktas"),
        # a player shows up to six cards fanned (76 mm cards, 19 mm apart) in front of
        # them; the field is six cards in two rows
        mat=MatInfo(first_marker=4, seat=(SeatZone("show", "play", 170.0),),
                    shared=(SharedZone("field", "field", 256.0, 172.0),),
                    sizes_mm=((594.0, 420.0), (880.0, 600.0)), depth_mm=92.0),
    ),
    GameInfo(
        name="yokir", title="Yokir", deck="yokir",
        min_players=3, max_players=3, default_players=3,
        engine="companion.games.yokir",
        adapter="companion.adapters.yokir",
        commands="companion.commands.yokir", cli=("trick yokir", "legal yokir"),
        # three seats round the trick; the upcard where no one sits, at the top
        mat=MatInfo(first_marker=0, seat=(SeatZone("play", "play", 110.0),),
                    shared=(SharedZone("trick", "trick", 150.0, 124.0),
                            SharedZone("upcard", "pile", 100.0, 110.0)),
                    sizes_mm=((480.0, 400.0),), depth_mm=110.0, layout="yokir"),
    ),
    GameInfo(
        name="yonac", title="Yonac", deck="standard",
        min_players=2, max_players=10, default_players=4,
        engine="companion.games.yonac",
        adapter="companion.adapters.yonac",
        commands="companion.commands.yonac", cli=("yonac set",),
        # the Set a player draws, face up, on their left; the Stash on their right
        mat=MatInfo(first_marker=8, seat=(SeatZone("set", "play", 150.0),
                                           SeatZone("stash", "stash", 80.0)),
                    shared=(SharedZone("pile", "pile", 300.0, 170.0),),
                    sizes_mm=((594.0, 420.0), (700.0, 500.0), (900.0, 600.0), (1200.0, 700.0)),
                    depth_mm=100.0),
    ),
)

CATALOG: dict[str, GameInfo] = {g.name: g for g in GAMES}


def game_key(name: str) -> str:
    """A game name as the catalog keys it: lower case, hyphens for spaces and underscores."""
    return str(name).strip().lower().replace("_", "-").replace(" ", "-")


def game_names() -> tuple[str, ...]:
    """Every game's name, in name order."""
    return tuple(sorted(CATALOG))


def game_info(name: str) -> GameInfo:
    """The catalog entry for `name` (any case; spaces or underscores for hyphens);
    UnknownGame names the games there are."""
    key = game_key(name)
    if key not in CATALOG:
        near = difflib.get_close_matches(key, list(CATALOG), n=1)
        hint = f"; did you mean {near[0]}?" if near else ""
        raise UnknownGame(f"unknown game {name!r}: the games are {', '.join(game_names())}{hint}")
    return CATALOG[key]


def mat_game_names() -> tuple[str, ...]:
    """The games that have a play mat, in name order."""
    return tuple(n for n in game_names() if CATALOG[n].mat is not None)

