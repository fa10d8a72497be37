"""The companion's memory: players, games, their event logs, results and ratings in
one SQLite file (docs/session.md, "Storage").

The file lives in the user's data directory unless `COMPANION_DB` or an explicit
path says otherwise. It runs in WAL mode with full sync, so a commit survives a
killed process or a power cut, readers never block the writer, and several
processes (the kiosk, a CLI) can share it: every write is one short
`BEGIN IMMEDIATE` transaction.

A game's events are append-only (triggers refuse UPDATE and DELETE): an undo or a
redo is itself an event that names its target, and `Timeline` folds the raw events
into the log in effect. The schema version lives in `PRAGMA user_version` under
our own `PRAGMA application_id`; an older file is backed up and migrated, a newer
or foreign one is refused without being touched.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion import ratings as elo
from companion.errors import BadLog, CompanionError
from companion.eventlog import FORMAT, load_json

APP_ID = 0x54434F4D  # "TCOM" in the file header: this is a Table Companion database
SCHEMA_VERSION = 2
ENV_VAR = "COMPANION_DB"
MEMORY = ":memory:"
BUSY_TIMEOUT_S = 10.0
KINDS = ("accepted", "rejected", "undo", "redo", "confirm", "abandon")
STATUSES = ("playing", "finished", "abandoned")
MAX_NAME = 40


class StorageError(CompanionError, OSError):
    """The database cannot be opened, read or written (disk, permissions, locks)."""


class _Busy(StorageError):
    """Another process holds the database for a moment: opening it is tried again."""


_clock: Callable[[], float] = time.monotonic  # tests replace these two
_pause: Callable[[float], None] = time.sleep


class BadDatabase(CompanionError, ValueError):
    """A file that is not a Table Companion database, or one from a newer version."""


class NoDatabase(CompanionError, FileNotFoundError):
    """No database file where one was expected (read-only commands never create one)."""


class UnknownGameId(CompanionError, LookupError):
    """No stored game has this id."""


class BadName(CompanionError, ValueError):
    """A player name that is empty, too long or holds control characters."""


class BadReason(CompanionError, ValueError):
    """An empty, overlong or unprintable reason for abandoning a game."""


class NotPlaying(CompanionError, ValueError):
    """The game is finished or abandoned: it takes no more moves and cannot be abandoned."""


# -- schema and migrations ---------------------------------------------------------------

_V1 = (
    """CREATE TABLE players (
        id      INTEGER PRIMARY KEY,
        name    TEXT NOT NULL,
        key     TEXT NOT NULL UNIQUE,  -- the name case-folded: 'ann' and 'Ann' are one player
        created TEXT NOT NULL)""",
    """CREATE TABLE games (
        id       INTEGER PRIMARY KEY,
        game     TEXT NOT NULL,
        config   TEXT NOT NULL,
        started  TEXT NOT NULL,
        finished TEXT,
        status   TEXT NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'finished')))""",
    """CREATE TABLE seats (
        game_id   INTEGER NOT NULL REFERENCES games(id),
        seat      INTEGER NOT NULL CHECK (seat >= 0),
        player_id INTEGER NOT NULL REFERENCES players(id),
        PRIMARY KEY (game_id, seat),
        UNIQUE (game_id, player_id))""",
    """CREATE TABLE events (
        game_id     INTEGER NOT NULL REFERENCES games(id),
        seq         INTEGER NOT NULL CHECK (seq >= 1),
        kind        TEXT NOT NULL
                    CHECK (kind IN ('accepted', 'rejected', 'undo', 'redo', 'confirm')),
        data        TEXT NOT NULL,
        outcomes    TEXT,
        observation TEXT,
        at          TEXT NOT NULL,
        source      TEXT NOT NULL,
        reason      TEXT,
        PRIMARY KEY (game_id, seq)) WITHOUT ROWID""",
    """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
    """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
    """CREATE TABLE results (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seat    INTEGER NOT NULL,
        score   NUMERIC NOT NULL,
        winner  INTEGER NOT NULL CHECK (winner IN (0, 1)),
        PRIMARY KEY (game_id, seat))""",
    """CREATE TABLE ratings (
        player_id INTEGER NOT NULL REFERENCES players(id),
        game      TEXT NOT NULL,
        rating    REAL NOT NULL,
        games     INTEGER NOT NULL,
        PRIMARY KEY (player_id, game))""",
    "CREATE INDEX games_by_status ON games(status, finished)",
)


def _run(*statements: str) -> Callable[[sqlite3.Connection], None]:
    def step(conn: sqlite3.Connection) -> None:
        for sql in statements:
            conn.execute(sql)
    return step


# Version 2: a game can be abandoned (status 'abandoned', ended by an 'abandon' event with
# its reason). SQLite cannot change a CHECK constraint, so both tables are rebuilt and
# their rows copied (the caller turns foreign keys off around the migration).
_V2 = (
    """CREATE TABLE games_v2 (
        id       INTEGER PRIMARY KEY,
        game     TEXT NOT NULL,
        config   TEXT NOT NULL,
        started  TEXT NOT NULL,
        finished TEXT,
        status   TEXT NOT NULL DEFAULT 'playing'
                 CHECK (status IN ('playing', 'finished', 'abandoned')))""",
    "INSERT INTO games_v2 SELECT id, game, config, started, finished, status FROM games",
    "DROP TABLE games",
    "ALTER TABLE games_v2 RENAME TO games",
    "CREATE INDEX games_by_status ON games(status, finished)",
    """CREATE TABLE events_v2 (
        game_id     INTEGER NOT NULL REFERENCES games(id),
        seq         INTEGER NOT NULL CHECK (seq >= 1),
        kind        TEXT NOT NULL
                    CHECK (kind IN ('accepted', 'rejected', 'undo', 'redo', 'confirm', 'abandon')),
        data        TEXT NOT NULL,
        outcomes    TEXT,
        observation TEXT,
        at          TEXT NOT NULL,
        source      TEXT NOT NULL,
        reason      TEXT,
        PRIMARY KEY (game_id, seq)) WITHOUT ROWID""",
    "INSERT INTO events_v2 SELECT game_id, seq, kind, data, outcomes, observation, at, source, "
    "reason FROM events",
    "DROP TABLE events",  # its triggers go with it (a DROP fires no DELETE trigger)
    "ALTER TABLE events_v2 RENAME TO events",
    """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
    """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
)


# MIGRATIONS[v] turns a version-v file into version v + 1, inside the caller's transaction
# (statements one by one: executescript would commit half way). Version 0 is an empty file.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {0: _run(*_V1), 1: _run(*_V2)}


# -- records -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Player:
    """A person, by the name first typed for them."""

    id: int
    name: str


@dataclass(frozen=True)
class PlayerRating:
    """A player's Elo rating in one game (docs/session.md, "Ratings")."""

    name: str
    game: str
    rating: float
    games: int


@dataclass(frozen=True)
class GameRecord:
    """One stored game. `scores` and `winners` are empty until it is finished."""

    id: int
    game: str
    config: dict[str, Any]
    players: tuple[str, ...]
    started: str
    finished: str | None
    status: str
    scores: tuple[int | float, ...] = ()
    winners: tuple[int, ...] = ()
    reason: str | None = None  # why an abandoned game was abandoned
    damage: str | None = None  # what is wrong with a damaged row (its config read as {})


@dataclass(frozen=True)
class Event:
    """One raw row of a game's log. `data` is the action (accepted), {"action": ...} or
    {"observation": ...} (rejected), {"target": seq, ...} (undo, redo) or {} (confirm)."""

    seq: int
    kind: str
    data: dict[str, Any]
    at: str
    source: str
    reason: str | None = None
    outcomes: tuple[dict[str, Any], ...] = ()
    observation: dict[str, Any] | None = None


@dataclass
class Timeline:
    """The log in effect, folded from the raw events: the accepted events not undone, the
    undone ones that redo can bring back (last = next), and a rejection nobody has
    acknowledged yet. A new accepted event clears the redo stack; rejections do not."""

    done: list[Event] = field(default_factory=list)
    undone: list[Event] = field(default_factory=list)
    awaiting: Event | None = None
    last_seq: int = 0
    abandoned: Event | None = None

    def add(self, event: Event) -> None:
        """Fold one more raw event; BadLog if it does not follow from the ones before."""
        if event.seq != self.last_seq + 1:
            raise BadLog(f"event {event.seq} follows event {self.last_seq}: the log has a gap")
        if self.abandoned is not None:
            raise BadLog(f"event {event.seq} follows the game's abandonment (event "
                         f"{self.abandoned.seq})")
        if event.kind == "accepted":
            self.done.append(event)
            self.undone.clear()
            self.awaiting = None
        elif event.kind == "undo":
            if not self.done or self.done[-1].seq != event.data.get("target"):
                raise BadLog(f"event {event.seq} undoes event {event.data.get('target')}, "
                             f"which is not the last one in effect")
            self.undone.append(self.done.pop())
            self.awaiting = None
        elif event.kind == "redo":
            if not self.undone or self.undone[-1].seq != event.data.get("target"):
                raise BadLog(f"event {event.seq} redoes event {event.data.get('target')}, "
                             f"which is not the last one undone")
            self.done.append(self.undone.pop())
            self.awaiting = None
        elif event.kind == "rejected":
            self.awaiting = event
        elif event.kind == "confirm":
            self.awaiting = None
        elif event.kind == "abandon":
            self.abandoned = event
            self.awaiting = None
        else:
            raise BadLog(f"event {event.seq} has an unknown kind {event.kind!r}")
        self.last_seq = event.seq

    @classmethod
    def of(cls, events: Sequence[Event]) -> Timeline:
        timeline = cls()
        for event in events:
            timeline.add(event)
        return timeline


# -- helpers -----------------------------------------------------------------------------

def now() -> str:
    """The time stamp every row carries: UTC, ISO 8601, milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def default_path() -> Path:
    """`$COMPANION_DB` if set, else companion.db in the user's data directory."""
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("table-companion")) / "companion.db"


def clean_name(name: str) -> str:
    """A player name as stored: NFC, spaces collapsed; BadName says what is wrong."""
    if not isinstance(name, str):
        raise BadName(f"a player name must be text, got {name!r}")
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFC", name)).strip()
    if not text:
        raise BadName(f"a player name cannot be empty, got {name!r}")
    if len(text) > MAX_NAME:
        raise BadName(f"a player name has at most {MAX_NAME} characters, got {len(text)}: {text!r}")
    if any(unicodedata.category(c).startswith("C") for c in text):
        raise BadName(f"a player name cannot hold control characters: {name!r}")
    return text


def _sort_key(name: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", name.casefold())
                   if not unicodedata.combining(c))


def _key(name: str) -> str:
    return clean_name(name).casefold()


def _loads(text: str | None, what: str) -> Any:
    return None if text is None else load_json(text, what)


def _object(text: str | None, what: str) -> dict[str, Any]:
    value = load_json(text if text is not None else "null", what)
    if not isinstance(value, dict):
        raise BadLog(f"{what}: a JSON object was expected, got {type(value).__name__}")
    return value


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _event(row: sqlite3.Row) -> Event:
    """One stored event; BadLog names the game and the event when a row is damaged."""
    what = f"game {row['game_id']}, event {row['seq']}"
    outcomes = _loads(row["outcomes"], f"{what} (its outcomes)") or []
    observation = _loads(row["observation"], f"{what} (its observation)")
    if not isinstance(outcomes, list) or not all(isinstance(o, dict) for o in outcomes):
        raise BadLog(f"{what}: its outcomes must be a list of JSON objects")
    if observation is not None and not isinstance(observation, dict):
        raise BadLog(f"{what}: its observation must be a JSON object")
    return Event(seq=row["seq"], kind=row["kind"], data=_object(row["data"], what), at=row["at"],
                 source=row["source"], reason=row["reason"], outcomes=tuple(outcomes),
                 observation=observation)


def _header(conn: sqlite3.Connection) -> tuple[int, int, list[str]]:
    """Application id, schema version and tables, read in one snapshot (another process
    may be creating the schema right now)."""
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")]
    finally:
        if own:
            conn.execute("COMMIT")
    return app_id, version, tables


# -- the store ---------------------------------------------------------------------------

# A write hook (issue 21, the club outbox) sees every change a GameWriter makes, inside the
# same transaction: hook(conn, writer, change, payload) with change "event" (payload: the
# Event), "finish" ({"scores", "winners"}) or "reopen" ({}). What it writes to the same file
# commits or rolls back with the change itself.
WriteHook = Callable[[sqlite3.Connection, "GameWriter", str, Any], None]



@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction taken at once (BEGIN IMMEDIATE: no other writer can slip in
    between our reads and our writes); committed on success, rolled back on any
    exception. The club's stores use it too."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise

class Store:
    """One database file. Thread-safe: one connection behind a lock, so the panel's, the
    camera's and the UI's threads may share it. `create=False` refuses a missing file."""

    def __init__(self, path: str | Path | None = None, *, create: bool = True) -> None:
        self.path: str = MEMORY if path == MEMORY else str(
            default_path() if path is None else Path(path).expanduser())
        self._lock = threading.RLock()
        self._conn = self._open(create, make_dirs=path is None)
        self.write_hooks: list[WriteHook] = []  # see WriteHook

    # -- opening, checking, migrating --------------------------------------------------
    def _open(self, create: bool, make_dirs: bool) -> sqlite3.Connection:
        """The connection, tried again for up to BUSY_TIMEOUT_S while another process holds
        the file: SQLite answers "locked" at once, without waiting, to a process opening
        the file while another closes it (the last connection checkpoints and removes the
        write-ahead log) or switches a new file to WAL. Four processes creating one new
        file at once met this on a loaded machine."""
        deadline = _clock() + BUSY_TIMEOUT_S
        while True:
            try:
                return self._open_once(create, make_dirs)
            except _Busy:
                if _clock() >= deadline:
                    raise
                _pause(0.05)

    def _open_once(self, create: bool, make_dirs: bool) -> sqlite3.Connection:
        if self.path != MEMORY:
            file = Path(self.path)
            try:
                if file.is_dir():
                    raise BadDatabase(f"database {self.path!r} is a directory, not a file")
                if not file.exists():
                    if not create:
                        raise NoDatabase(f"no database at {self.path!r}")
                    if make_dirs:
                        file.parent.mkdir(parents=True, exist_ok=True)
                elif file.stat().st_size == 0 and not create:  # reading must not make it ours
                    raise BadDatabase(f"{self.path!r} is empty: not a Table Companion "
                                      f"database; it was left untouched")
            except OSError as exc:  # a file where a folder should be, a name too long, ...
                if isinstance(exc, CompanionError):
                    raise
                raise StorageError(f"cannot use the database path {self.path!r}: "
                                   f"{exc.strerror or exc}") from None
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                   check_same_thread=False)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open database {self.path!r}: {exc}") from None
        conn.row_factory = sqlite3.Row
        try:
            # A file of a byte or two is no database, but SQLite reads it as an empty one (and
            # would let us write into it). Checked through SQLite: opening and closing the file
            # ourselves would drop the locks of this process's other connections to it.
            if (self.path != MEMORY and Path(self.path).stat().st_size > 0
                    and conn.execute("PRAGMA page_count").fetchone()[0] == 0):
                raise BadDatabase(f"{self.path!r} is not a Table Companion database (too short "
                                  f"to be SQLite); it was left untouched")
            self._check(conn)
            if self.path != MEMORY:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if mode.lower() != "wal":
                    raise StorageError(f"database {self.path!r} cannot use WAL mode (got {mode})")
            conn.execute("PRAGMA synchronous = FULL")  # a commit is on disk: power cuts lose nothing
            conn.execute("PRAGMA foreign_keys = ON")
            if _header(conn)[1] < SCHEMA_VERSION:
                self._migrate(conn)
        except sqlite3.OperationalError as exc:  # locked, read-only, disk full: not the file's fault
            conn.close()
            error = _Busy if "locked" in str(exc) or "busy" in str(exc) else StorageError
            raise error(f"cannot open database {self.path!r}: {exc}") from None
        except sqlite3.DatabaseError as exc:  # not SQLite at all, or a damaged file
            conn.close()
            raise BadDatabase(f"{self.path!r} is not a Table Companion database ({exc})") from None
        except BaseException:
            conn.close()
            raise
        return conn

    def _check(self, conn: sqlite3.Connection) -> None:
        """Refuse a foreign or newer file before anything writes to it."""
        app_id, version, tables = _header(conn)
        if app_id == 0 and version == 0 and not tables:
            return  # new and empty: ours to create
        if app_id != APP_ID:
            what = f"application id {app_id:#x}" if app_id else f"tables {', '.join(tables)}"
            raise BadDatabase(f"{self.path!r} is not a Table Companion database ({what}); "
                              f"it was left untouched")
        if version > SCHEMA_VERSION:
            raise BadDatabase(f"{self.path!r} was written by a newer Table Companion (schema "
                              f"version {version}; this version reads up to {SCHEMA_VERSION}); "
                              f"it was left untouched: upgrade the companion")
        if version < 1:
            raise BadDatabase(f"{self.path!r} has no schema version: it was left untouched")

    def _migrate(self, conn: sqlite3.Connection) -> None:
        """Bring an empty or older file to SCHEMA_VERSION in one transaction; an older file
        is first copied to PATH.vN-TIME.bak so that nothing can be lost."""
        version = _header(conn)[1]
        if version and self.path != MEMORY:
            stamp = now().replace(":", "").replace("-", "")
            backup = sqlite3.connect(f"{self.path}.v{version}-{stamp}.bak")
            with backup:
                conn.backup(backup)
            backup.close()
        conn.execute("PRAGMA foreign_keys = OFF")  # tables are rebuilt: checked below instead
        conn.execute("BEGIN IMMEDIATE")
        try:
            self._check(conn)  # again, under the write lock: another process may have migrated
            version = _header(conn)[1]
            for v in range(version, SCHEMA_VERSION):
                if v not in MIGRATIONS:
                    raise BadDatabase(f"{self.path!r}: no migration from schema version {v}")
                MIGRATIONS[v](conn)
            broken = conn.execute("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise BadDatabase(f"{self.path!r}: {len(broken)} rows refer to missing rows; "
                                  f"it was left untouched")
            conn.execute(f"PRAGMA application_id = {APP_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        finally:
            conn.execute("PRAGMA foreign_keys = ON")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.path!r})"

    @contextmanager
    def _guard(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise StorageError(f"database {self.path!r}: {exc}") from None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._guard() as conn, immediate(conn):
            yield conn

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state."""
        with self._guard() as conn:
            if conn.in_transaction:  # already inside one: same snapshot
                yield conn
                return
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    # -- players -----------------------------------------------------------------------
    def player(self, name: str) -> Player:
        """The player called `name` (any case), created on first use."""
        with self._transaction() as conn:
            return _player(conn, name)

    def players(self) -> list[Player]:
        """Every player, in alphabetical order (accents and case aside)."""
        with self._guard() as conn:
            players = [Player(r["id"], r["name"]) for r in conn.execute("SELECT id, name FROM players")]
        return sorted(players, key=lambda p: (_sort_key(p.name), p.id))

    def ratings(self, game: str | None = None) -> list[PlayerRating]:
        """Every rating, best first within each game; only `game`'s when given."""
        sql = ("SELECT p.name, r.game, r.rating, r.games FROM ratings r "
               "JOIN players p ON p.id = r.player_id")
        args: tuple[Any, ...] = ()
        if game is not None:
            sql, args = sql + " WHERE r.game = ?", (game,)
        with self._guard() as conn:
            rows = conn.execute(sql + " ORDER BY r.game, r.rating DESC, p.key", args).fetchall()
        return [PlayerRating(r["name"], r["game"], r["rating"], r["games"]) for r in rows]

    # -- games -------------------------------------------------------------------------
    def create_game(self, game: str, config: dict[str, Any], players: Sequence[str]) -> int:
        """Store a new game with its players by seat; returns its id."""
        names = [clean_name(p) for p in players]
        seen: dict[str, str] = {}
        for name in names:
            if name.casefold() in seen:
                raise BadName(f"player {name!r} is named twice: one person, one seat")
            seen[name.casefold()] = name
        with self._transaction() as conn:
            game_id = conn.execute("INSERT INTO games (game, config, started) VALUES (?, ?, ?)",
                                   (game, _dumps(config), now())).lastrowid
            for seat, name in enumerate(names):
                conn.execute("INSERT INTO seats (game_id, seat, player_id) VALUES (?, ?, ?)",
                             (game_id, seat, _player(conn, name).id))
        assert game_id is not None
        return game_id

    def game(self, game_id: int) -> GameRecord:
        """The game with this id; UnknownGameId names it."""
        with self._snapshot() as conn:
            row = conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise UnknownGameId(_no_game(conn, game_id, self.path))
            return _record(conn, row)

    def games(self, status: str | None = None) -> list[GameRecord]:
        """Stored games, oldest first; only those with `status` (one of STATUSES)."""
        sql, args = "SELECT * FROM games", ()
        if status is not None:
            sql, args = sql + " WHERE status = ?", (status,)
        with self._snapshot() as conn:
            rows = conn.execute(sql + " ORDER BY coalesce(finished, started), id", args).fetchall()
            return [_record(conn, r) for r in rows]

    # -- events ------------------------------------------------------------------------
    def events(self, game_id: int, after: int = 0) -> list[Event]:
        """The raw events of a game after seq `after`, in order."""
        with self._guard() as conn:
            return _events(conn, game_id, after)

    def timeline(self, game_id: int) -> Timeline:
        """The game's log in effect (see `Timeline`)."""
        with self._snapshot():
            self.game(game_id)
            return Timeline.of(self.events(game_id))

    @contextmanager
    def write(self, game_id: int) -> Iterator[GameWriter]:
        """One write transaction on a game: other writers wait; on leaving, all of it is
        committed (and on disk) or, if anything raised, none of it."""
        with self._transaction() as conn:
            row = conn.execute("SELECT game FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise UnknownGameId(_no_game(conn, game_id, self.path))
            writer = GameWriter(conn, game_id, row["game"])
            writer.hooks = tuple(self.write_hooks)
            yield writer

    def abandon(self, game_id: int, reason: str, source: str = "cli") -> Event:
        """End an unfinished game without a result (a crash, players who left): an 'abandon'
        event with the reason, and the game's status 'abandoned'. It takes no more moves."""
        with self.write(game_id) as tx:
            return tx.abandon(reason, source)

    def export(self, game_id: int) -> list[dict[str, Any]]:
        """The game's log in effect as event-log objects (docs/events.md): a start line,
        every accepted action not undone followed by the outcomes it produced (as recorded
        at the table), and an end line once the game is finished. Rejected events and the
        undo/redo markers stay in the database only: `companion replay` reads no such lines."""
        with self._snapshot():
            record = self.game(game_id)
            if record.damage:
                raise BadLog(record.damage)
            try:
                timeline = Timeline.of(self.events(game_id))
            except BadLog as exc:
                text = str(exc)
                raise BadLog(text if text.startswith("game ") else f"game {game_id}: {text}") from None
        lines: list[dict[str, Any]] = [{"type": "start", "format": FORMAT, "game": record.game,
                                        "config": record.config, "players": list(record.players),
                                        "at": record.started}]
        for event in timeline.done:
            lines.append({**event.data, "seq": event.seq, "at": event.at, "source": event.source})
            lines.extend(event.outcomes)
        if record.status == "finished":
            lines.append({"type": "end", "scores": list(record.scores),
                          "winners": list(record.winners), "at": record.finished})
        return lines


class GameWriter:
    """What a session may do inside one write transaction on its game."""

    hooks: tuple[WriteHook, ...] = ()

    def __init__(self, conn: sqlite3.Connection, game_id: int, game: str) -> None:
        self._conn = conn
        self.game_id = game_id
        self.game = game

    def events_after(self, seq: int) -> list[Event]:
        """Events other writers committed after `seq` (a session catches up with them)."""
        return _events(self._conn, self.game_id, seq)

    def append(self, kind: str, data: dict[str, Any], *, source: str, reason: str | None = None,
               outcomes: Sequence[dict[str, Any]] = (),
               observation: dict[str, Any] | None = None) -> Event:
        """Append one raw event with the next seq; returns it as stored."""
        if kind not in KINDS:
            raise ValueError(f"event kind must be one of {', '.join(KINDS)}, got {kind!r}")
        seq = self._conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM events WHERE game_id = ?",
                                 (self.game_id,)).fetchone()[0]
        event = Event(seq, kind, json.loads(_dumps(data)), now(), source, reason,
                      tuple(json.loads(_dumps(list(outcomes)))),
                      None if observation is None else json.loads(_dumps(observation)))
        self._conn.execute(
            "INSERT INTO events (game_id, seq, kind, data, outcomes, observation, at, source, reason)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.game_id, seq, kind, _dumps(event.data),
             _dumps(list(event.outcomes)) if kind == "accepted" else None,
             None if observation is None else _dumps(observation), event.at, source, reason))
        self._tell("event", event)
        return event

    def _tell(self, change: str, payload: Any) -> None:
        for hook in self.hooks:
            hook(self._conn, self, change, payload)

    def status(self) -> str:
        """The game's status now: 'playing', 'finished' or 'abandoned'."""
        return self._conn.execute("SELECT status FROM games WHERE id = ?",
                                  (self.game_id,)).fetchone()["status"]

    def abandon(self, reason: str, source: str) -> Event:
        """Append the 'abandon' event and mark the game abandoned (see `Store.abandon`)."""
        reason = _clean_reason(reason)
        status = self.status()
        if status != "playing":
            raise NotPlaying(f"game {self.game_id} is {status}: only a game still being played "
                             f"can be abandoned")
        event = self.append("abandon", {"reason": reason}, source=source, reason=reason)
        self._conn.execute("UPDATE games SET status = 'abandoned', finished = ? WHERE id = ?",
                           (event.at, self.game_id))
        return event

    def finish(self, scores: Sequence[int | float], winners: Sequence[int]) -> None:
        """Record the result and recompute the game's ratings."""
        conn = self._conn
        conn.execute("UPDATE games SET status = 'finished', finished = ? WHERE id = ?",
                     (now(), self.game_id))
        conn.execute("DELETE FROM results WHERE game_id = ?", (self.game_id,))
        conn.executemany("INSERT INTO results (game_id, seat, score, winner) VALUES (?, ?, ?, ?)",
                         [(self.game_id, seat, score, int(seat in winners))
                          for seat, score in enumerate(scores)])
        self._rerate()
        self._tell("finish", {"scores": list(scores), "winners": list(winners)})

    def reopen(self) -> None:
        """An undo took back the last move: the game is playing again, its result is gone."""
        self._conn.execute("UPDATE games SET status = 'playing', finished = NULL WHERE id = ?",
                           (self.game_id,))
        self._conn.execute("DELETE FROM results WHERE game_id = ?", (self.game_id,))
        self._rerate()
        self._tell("reopen", {})

    def _rerate(self) -> None:
        # Ratings are a fold over the finished games in order, so an undone result is simply
        # left out: recomputing one game's table is cheap for any table's lifetime of games.
        conn = self._conn
        results = []
        for g in conn.execute("SELECT id FROM games WHERE game = ? AND status = 'finished' "
                              "ORDER BY finished, id", (self.game,)).fetchall():
            seats = conn.execute("SELECT s.player_id, r.score, r.winner FROM seats s JOIN results r "
                                 "ON r.game_id = s.game_id AND r.seat = s.seat WHERE s.game_id = ? "
                                 "ORDER BY s.seat", (g["id"],)).fetchall()
            results.append(elo.Result([r["player_id"] for r in seats], [r["score"] for r in seats],
                                      [i for i, r in enumerate(seats) if r["winner"]]))
        conn.execute("DELETE FROM ratings WHERE game = ?", (self.game,))
        conn.executemany("INSERT INTO ratings (player_id, game, rating, games) VALUES (?, ?, ?, ?)",
                         [(player, self.game, r.rating, r.games)
                          for player, r in elo.rate(results).items()])


MAX_REASON = 200


def _clean_reason(reason: str) -> str:
    """Why a game was abandoned: one line of 1 to MAX_REASON printable characters."""
    text = re.sub(r"\s+", " ", str(reason)).strip()
    if not text or len(text) > MAX_REASON or not text.isprintable():
        raise BadReason(f"a reason is 1 to {MAX_REASON} printable characters, got {reason!r}")
    return text


def _player(conn: sqlite3.Connection, name: str) -> Player:
    name = clean_name(name)
    row = conn.execute("SELECT id, name FROM players WHERE key = ?", (_key(name),)).fetchone()
    if row:
        return Player(row["id"], row["name"])
    cur = conn.execute("INSERT INTO players (name, key, created) VALUES (?, ?, ?)",
                       (name, _key(name), now()))
    assert cur.lastrowid is not None
    return Player(cur.lastrowid, name)


def _events(conn: sqlite3.Connection, game_id: int, after: int) -> list[Event]:
    rows = conn.execute("SELECT * FROM events WHERE game_id = ? AND seq > ? ORDER BY seq",
                        (game_id, after)).fetchall()
    return [_event(r) for r in rows]


def _record(conn: sqlite3.Connection, row: sqlite3.Row) -> GameRecord:
    players = conn.execute("SELECT p.name FROM seats s JOIN players p ON p.id = s.player_id "
                           "WHERE s.game_id = ? ORDER BY s.seat", (row["id"],)).fetchall()
    results = conn.execute("SELECT score, winner FROM results WHERE game_id = ? ORDER BY seat",
                           (row["id"],)).fetchall()
    try:
        config, damage = _object(row["config"], f"game {row['id']}'s config"), None
    except BadLog as exc:  # listed as damaged; export and resume refuse it by name
        config, damage = {}, str(exc)
    reason = None
    if row["status"] == "abandoned":
        ended = conn.execute("SELECT reason FROM events WHERE game_id = ? AND kind = 'abandon'",
                             (row["id"],)).fetchone()
        reason = ended["reason"] if ended else None
    return GameRecord(row["id"], row["game"], config,
                      tuple(p["name"] for p in players), row["started"], row["finished"],
                      row["status"], tuple(r["score"] for r in results),
                      tuple(i for i, r in enumerate(results) if r["winner"]), reason, damage)


def _no_game(conn: sqlite3.Connection, game_id: object, path: str) -> str:
    count = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    return f"no game with id {game_id!r} in {path!r} ({count} games stored)"
