"""The table side's outbox and confirmations, in the table's own SQLite file.

Why not paho's queue: it lives in memory and drops messages when full, so a power cut or
a long evening offline would lose them. Here every change a `GameWriter` makes (each
event, a result, a reopened game) enters `club_outbox` through a storage write hook, in
the same transaction as the change itself: committed together or not at all. The
outbox numbers its rows with one sequence per table (all games), which is what the hub
de-duplicates on. A row stays until the broker acknowledges it (QoS 1 PUBACK:
`acked`), and the hub's own mark (every seq up to it is stored at the hub) says which
rows are delivered end to end; rows past the mark are sent again after a reconnect.

A confirmation ("the other side agrees with the result", as on a Bridgemate) is a row
of `club_confirmations` plus an outbox row, also in one transaction.

These tables live beside the companion's own (storage.py is not migrated for them):
`CREATE TABLE IF NOT EXISTS` on first use, in a file the `Store` has already made.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from club.errors import ClubError, NotConfirmable
from club.sqlite import immediate
from companion.storage import MEMORY, Event, GameWriter, Store, now

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS club_outbox (
        seq      INTEGER PRIMARY KEY AUTOINCREMENT,
        kind     TEXT NOT NULL CHECK (kind IN ('event', 'result', 'reopen', 'confirm')),
        game_id  INTEGER NOT NULL,
        body     TEXT NOT NULL,
        created  REAL NOT NULL,
        acked    REAL)""",
    "CREATE INDEX IF NOT EXISTS club_outbox_unacked ON club_outbox(acked, seq)",
    """CREATE TABLE IF NOT EXISTS club_confirmations (
        game_id   INTEGER NOT NULL,
        finished  TEXT NOT NULL,
        seat      INTEGER NOT NULL,
        at        TEXT NOT NULL,
        source    TEXT NOT NULL,
        PRIMARY KEY (game_id, finished))""",
    """CREATE TABLE IF NOT EXISTS club_meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL)""",
)


@dataclass(frozen=True)
class Row:
    """One outbox row: what `encode` needs to publish it."""

    seq: int
    body: dict[str, Any]
    created: float


@dataclass(frozen=True)
class Confirmation:
    game_id: int
    seat: int
    player: str
    seq: int  # its outbox row


def _players(conn: sqlite3.Connection, game_id: int) -> list[str]:
    return [r[0] for r in conn.execute(
        "SELECT p.name FROM seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = ? "
        "ORDER BY s.seat", (game_id,))]


def _insert(conn: sqlite3.Connection, kind: str, game_id: int, body: dict[str, Any],
            clock: Callable[[], float]) -> int:
    cur = conn.execute("INSERT INTO club_outbox (kind, game_id, body, created) VALUES (?, ?, ?, ?)",
                       (kind, game_id, json.dumps(body, separators=(",", ":"), ensure_ascii=False),
                        clock()))
    assert cur.lastrowid is not None
    return cur.lastrowid


class Outbox:
    """The outbox of the table whose companion database is at `path` (made by a `Store`).
    Its own connection, so the publisher's thread never waits on the session's lock."""

    def __init__(self, path: str, *, clock: Callable[[], float] = time.time) -> None:
        if path == MEMORY:
            raise ClubError("a club table needs its games in a database file, not in memory "
                            "(the outbox must survive the process)")
        self.path = path
        self.clock = clock
        self.wake = threading.Event()  # set when a row is added: the publisher looks sooner
        self.added = threading.Event()  # a row is being added (it shows once its commit is done)
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(path, timeout=10.0, isolation_level=None,
                                         check_same_thread=False)
            # acks and marks may be lost in a power cut without harm: the row is only sent again
            self._conn.execute("PRAGMA synchronous = NORMAL")
            with self._tx() as conn:
                for sql in SCHEMA:
                    conn.execute(sql)
        except sqlite3.Error as exc:
            raise ClubError(f"cannot open the outbox in {path!r}: {exc}") from None

    @classmethod
    def attach(cls, store: Store, **kw: Any) -> Outbox:
        """The outbox of `store`'s file, hooked into its writes from now on."""
        outbox = cls(store.path, **kw)
        store.write_hooks.append(outbox.hook)
        return outbox

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return immediate(self._conn, self._lock)

    # -- in the writer's transaction ----------------------------------------------------
    def hook(self, conn: sqlite3.Connection, writer: GameWriter, change: str, payload: Any) -> None:
        """The storage write hook: one outbox row per change, in the change's transaction."""
        head = {"game_id": writer.game_id, "game": writer.game,
                "players": _players(conn, writer.game_id)}
        if change == "event":
            assert isinstance(payload, Event)
            body = {"kind": "event", **head, "event": {
                "seq": payload.seq, "kind": payload.kind, "data": payload.data, "at": payload.at,
                "source": payload.source, "reason": payload.reason,
                "outcomes": list(payload.outcomes)}}
        elif change == "finish":
            body = {"kind": "result", **head, "scores": payload["scores"],
                    "winners": payload["winners"], "at": now()}
        elif change == "reopen":
            body = {"kind": "reopen", **head, "at": now()}
        else:
            return
        _insert(conn, body["kind"], writer.game_id, body, self.clock)
        self.added.set()
        self.wake.set()

    # -- confirmation ---------------------------------------------------------------------
    def confirm(self, game_id: int, seat: int, source: str = "touch") -> Confirmation:
        """The player at `seat` confirms the result of finished game `game_id`. Only the
        other side may: a seat that did not win (any seat when every seat won). Once per
        result: a game reopened by an undo and finished again needs a new confirmation."""
        if type(seat) is not int:
            raise NotConfirmable(f"a seat is a number, got {seat!r}")
        with self._tx() as conn:
            row = conn.execute("SELECT status, finished FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise NotConfirmable(f"no game with id {game_id!r} at this table")
            status, finished = row
            if status != "finished":
                raise NotConfirmable(f"game {game_id} is {status}: only a finished game's result "
                                     f"can be confirmed")
            players = _players(conn, game_id)
            if not 0 <= seat < len(players):
                raise NotConfirmable(f"game {game_id} has seats 1 to {len(players)}, not {seat + 1}")
            results = conn.execute("SELECT seat, score, winner FROM results WHERE game_id = ? "
                                   "ORDER BY seat", (game_id,)).fetchall()
            winners = [r[0] for r in results if r[2]]
            if seat in winners and len(winners) < len(players):
                raise NotConfirmable(f"seat {seat + 1} ({players[seat]}) won game {game_id}: the other "
                                     f"side confirms a result (a seat that did not win)")
            done = conn.execute("SELECT seat FROM club_confirmations WHERE game_id = ? AND "
                                "finished = ?", (game_id, finished)).fetchone()
            if done is not None:
                raise NotConfirmable(f"game {game_id}'s result is already confirmed by seat {done[0] + 1}")
            at = now()
            conn.execute("INSERT INTO club_confirmations (game_id, finished, seat, at, source) "
                         "VALUES (?, ?, ?, ?, ?)", (game_id, finished, seat, at, source))
            game = conn.execute("SELECT game FROM games WHERE id = ?", (game_id,)).fetchone()[0]
            seq = _insert(conn, "confirm", game_id, {
                "kind": "confirm", "game_id": game_id, "game": game, "players": players,
                "seat": seat, "at": at, "scores": [r[1] for r in results], "winners": winners},
                self.clock)
        self.wake.set()
        return Confirmation(game_id, seat, players[seat], seq)

    def confirmed(self, game_id: int) -> int | None:
        """The seat that confirmed the game's current result, or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT c.seat FROM club_confirmations c JOIN games g ON g.id = c.game_id "
                "AND g.finished = c.finished WHERE c.game_id = ?", (game_id,)).fetchone()
        return None if row is None else row[0]

    # -- for the publisher ---------------------------------------------------------------
    def rows_after(self, seq: int, limit: int) -> list[Row]:
        """Up to `limit` rows after `seq`, in order (acknowledged by the broker or not)."""
        with self._lock:
            rows = self._conn.execute("SELECT seq, body, created FROM club_outbox WHERE seq > ? "
                                      "ORDER BY seq LIMIT ?", (seq, limit)).fetchall()
        return [Row(s, json.loads(b), c) for s, b, c in rows]

    def mark_acked(self, seqs: Iterable[int]) -> None:
        """The broker acknowledged these rows (PUBACK)."""
        seqs = list(seqs)
        if not seqs:
            return
        at = self.clock()
        with self._tx() as conn:
            conn.executemany("UPDATE club_outbox SET acked = ? WHERE seq = ? AND acked IS NULL",
                             [(at, s) for s in seqs])

    def last_seq(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT coalesce(max(seq), 0) FROM club_outbox").fetchone()[0]

    def unacked(self) -> int:
        """Rows the broker has not acknowledged yet."""
        with self._lock:
            return self._conn.execute("SELECT count(*) FROM club_outbox WHERE acked IS NULL"
                                      ).fetchone()[0]

    def hub_mark(self) -> int:
        """The hub's latest word: it stores every seq up to this one (it can go back, when the
        hub starts a new database: the rows after it are then sent again)."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM club_meta WHERE key = 'hub_mark'").fetchone()
        return int(row[0]) if row else 0

    def set_hub_mark(self, mark: int) -> None:
        with self._tx() as conn:
            conn.execute("INSERT INTO club_meta (key, value) VALUES ('hub_mark', ?) ON CONFLICT(key) "
                         "DO UPDATE SET value = excluded.value", (str(mark),))

    def all_bodies(self) -> list[tuple[int, dict[str, Any]]]:
        """Every row as (seq, body): for comparing a table with the hub."""
        with self._lock:
            return [(s, json.loads(b)) for s, b in self._conn.execute(
                "SELECT seq, body FROM club_outbox ORDER BY seq")]
