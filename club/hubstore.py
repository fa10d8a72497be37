"""The hub's SQLite: every outbox message once (by table and seq), each game's result as the
table reported it, the director's corrections, and the live state of every table.

`messages` is the hub's copy of every table's outbox: the primary key (table, seq) is
the de-duplication, so a message sent again after a reconnect is dropped on insert.
A game's result is folded from its result, reopen and confirm messages in seq order,
so it is right whatever order copies arrive in. A result is final once the other side
confirmed it at the table, or once the director corrected it; `corrections` is the
director's own append-only event log, each with its reason.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from club import topics
from club.errors import BadCorrection, BadMessage, ClubError
from club.sqlite import immediate
from companion import ratings as elo

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS messages (
        tbl      TEXT NOT NULL,
        seq      INTEGER NOT NULL,
        kind     TEXT NOT NULL,
        game_id  INTEGER NOT NULL,
        created  REAL NOT NULL,
        received REAL NOT NULL,
        body     TEXT NOT NULL,
        PRIMARY KEY (tbl, seq)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS games (
        tbl        TEXT NOT NULL,
        game_id    INTEGER NOT NULL,
        game       TEXT NOT NULL,
        players    TEXT NOT NULL,
        events     INTEGER NOT NULL DEFAULT 0,
        status     TEXT NOT NULL DEFAULT 'playing',
        scores     TEXT,
        winners    TEXT,
        result_seq INTEGER,
        finished   TEXT,
        confirmed  INTEGER,
        PRIMARY KEY (tbl, game_id))""",
    """CREATE TABLE IF NOT EXISTS corrections (
        id       INTEGER PRIMARY KEY,
        tbl      TEXT NOT NULL,
        game_id  INTEGER NOT NULL,
        scores   TEXT NOT NULL,
        winners  TEXT NOT NULL,
        reason   TEXT NOT NULL,
        director TEXT NOT NULL,
        at       REAL NOT NULL)""",
    """CREATE TRIGGER IF NOT EXISTS corrections_append_only BEFORE UPDATE ON corrections
        BEGIN SELECT RAISE(ABORT, 'corrections are append-only: correct again instead'); END""",
    """CREATE TRIGGER IF NOT EXISTS corrections_no_delete BEFORE DELETE ON corrections
        BEGIN SELECT RAISE(ABORT, 'corrections are append-only: correct again instead'); END""",
    """CREATE TABLE IF NOT EXISTS tables (
        tbl       TEXT PRIMARY KEY,
        status    TEXT NOT NULL DEFAULT 'unknown',
        status_at REAL,
        state     TEXT,
        state_at  REAL)""",
)
MAX_STATE = 64 * 1024


@dataclass(frozen=True)
class Stored:
    """What one batch did: new messages stored, copies dropped, tables whose mark moved."""

    new: int
    duplicates: int
    tables: frozenset[str]


class HubStore:
    """The hub's database at `path`; thread-safe (one connection behind a lock)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(path, timeout=10.0, isolation_level=None,
                                         check_same_thread=False)
            self._conn.row_factory = sqlite3.Row
            if path != ":memory:":
                self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")  # acknowledged after this commit
            with self._tx() as conn:
                for sql in SCHEMA:
                    conn.execute(sql)
        except sqlite3.Error as exc:
            raise ClubError(f"cannot open the hub's database {path!r}: {exc}") from None
        self.version = 0  # bumped after every change: the scoreboard's cue to refresh
        self.duplicates = 0
        self.refused = 0
        self._marks: dict[str, int] = {}
        with self._lock:
            for (tbl,) in self._conn.execute("SELECT DISTINCT tbl FROM messages").fetchall():
                self._advance(tbl)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return immediate(self._conn, self._lock)

    # -- storing -------------------------------------------------------------------------
    def store(self, messages: Iterable[topics.Message], received: float | None = None) -> Stored:
        """Store checked outbox messages in one transaction; copies already held are dropped."""
        received = time.time() if received is None else received
        new = dups = 0
        touched: set[str] = set()
        results: set[tuple[str, int]] = set()
        with self._tx() as conn:
            for m in messages:
                cur = conn.execute("INSERT OR IGNORE INTO messages (tbl, seq, kind, game_id, created, "
                                   "received, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                   (m.table, m.seq, m.kind, m.game_id, m.created, received, m.raw))
                if cur.rowcount == 0:
                    dups += 1
                    continue
                new += 1
                touched.add(m.table)
                conn.execute("INSERT INTO games (tbl, game_id, game, players, events) VALUES "
                             "(?, ?, ?, ?, ?) ON CONFLICT(tbl, game_id) DO UPDATE SET "
                             "events = events + excluded.events",
                             (m.table, m.game_id, m.body["game"], json.dumps(m.body["players"]),
                              int(m.kind == "event")))
                if m.kind != "event":
                    results.add((m.table, m.game_id))
            for tbl, game_id in results:
                _fold_result(conn, tbl, game_id)
        moved = frozenset(t for t in touched if self._advance(t))
        self.duplicates += dups
        if new:
            self.version += 1
        return Stored(new, dups, moved)

    def _advance(self, tbl: str) -> bool:
        """Move the table's mark over every seq now stored after it; True if it moved."""
        with self._lock:
            mark = self._marks.get(tbl, 0)
            start = mark
            for (seq,) in self._conn.execute("SELECT seq FROM messages WHERE tbl = ? AND seq > ? "
                                             "ORDER BY seq", (tbl, mark)):
                if seq != mark + 1:
                    break
                mark = seq
            self._marks[tbl] = mark
            return mark != start

    def marks(self) -> dict[str, int]:
        """Per table, the highest seq stored with every one before it."""
        with self._lock:
            return dict(self._marks)

    def set_status(self, tbl: str, status: str, at: float | None = None) -> None:
        if status not in ("online", "offline"):
            raise BadMessage(f"a table's status is 'online' or 'offline', got {status[:40]!r}")
        with self._tx() as conn:
            conn.execute("INSERT INTO tables (tbl, status, status_at) VALUES (?, ?, ?) ON CONFLICT(tbl) "
                         "DO UPDATE SET status = excluded.status, status_at = excluded.status_at",
                         (topics.check_table_name(tbl), status, time.time() if at is None else at))
        self.version += 1

    def set_state(self, tbl: str, payload: bytes, at: float | None = None) -> None:
        """A table's retained live state, checked: a JSON object with scores and players."""
        if len(payload) > MAX_STATE:
            raise BadMessage(f"a live state of {len(payload)} bytes is over {MAX_STATE}")
        try:
            state = json.loads(payload)
        except ValueError as exc:
            raise BadMessage(f"a live state must be JSON: {exc}") from None
        if not isinstance(state, dict) or not isinstance(state.get("players"), list) or not isinstance(
                state.get("scores"), list) or not isinstance(state.get("game"), str):
            raise BadMessage("a live state is an object with game, players and scores")
        with self._tx() as conn:
            conn.execute("INSERT INTO tables (tbl, state, state_at) VALUES (?, ?, ?) ON CONFLICT(tbl) "
                         "DO UPDATE SET state = excluded.state, state_at = excluded.state_at",
                         (topics.check_table_name(tbl), json.dumps(state), time.time() if at is None else at))
        self.version += 1

    # -- the director ----------------------------------------------------------------------
    def correct(self, tbl: str, game_id: int, scores: list[float], winners: list[int], reason: str,
                director: str = "director") -> int:
        """Correct a game's result: an appended correction with its reason (final at once)."""
        reason = (reason or "").strip()
        if not reason or len(reason) > 300 or any(ord(c) < 32 for c in reason):
            raise BadCorrection(f"a correction needs a reason of 1 to 300 printable characters, "
                                f"got {reason[:60]!r}")
        with self._tx() as conn:
            row = conn.execute("SELECT players FROM games WHERE tbl = ? AND game_id = ?",
                               (tbl, game_id)).fetchone()
            if row is None:
                raise BadCorrection(f"no game {game_id} from table {tbl!r} at the hub")
            players = json.loads(row["players"])
            if len(scores) != len(players):
                raise BadCorrection(f"game {game_id} at {tbl} has {len(players)} players; "
                                    f"{len(scores)} scores were given")
            if not winners or any(not 0 <= w < len(players) for w in winners):
                shown = [w + 1 for w in winners]  # as people count seats
                raise BadCorrection(f"winners must be seats 1 to {len(players)}, got {shown}")
            cur = conn.execute("INSERT INTO corrections (tbl, game_id, scores, winners, reason, "
                               "director, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                               (tbl, game_id, json.dumps(scores), json.dumps(sorted(set(winners))),
                                reason, director, time.time()))
        self.version += 1
        assert cur.lastrowid is not None
        return cur.lastrowid

    # -- reading -------------------------------------------------------------------------
    def message_keys(self, tbl: str) -> list[int]:
        with self._lock:
            return [r[0] for r in self._conn.execute(
                "SELECT seq FROM messages WHERE tbl = ? ORDER BY seq", (tbl,))]

    def results(self) -> list[dict[str, Any]]:
        """Every game the hub knows, with its result in effect (corrections applied)."""
        with self._lock:
            games = self._conn.execute("SELECT * FROM games ORDER BY tbl, game_id").fetchall()
            corr: dict[tuple[str, int], sqlite3.Row] = {}
            for c in self._conn.execute("SELECT * FROM corrections ORDER BY id"):
                corr[(c["tbl"], c["game_id"])] = c
        out = []
        for g in games:
            item = {"table": g["tbl"], "game_id": g["game_id"], "game": g["game"],
                    "players": json.loads(g["players"]), "events": g["events"],
                    "status": g["status"], "scores": _loads(g["scores"]),
                    "winners": _loads(g["winners"]), "finished": g["finished"],
                    "confirmed_by": g["confirmed"], "correction": None}
            c = corr.get((g["tbl"], g["game_id"]))
            if c is not None:
                item.update(scores=json.loads(c["scores"]), winners=json.loads(c["winners"]),
                            status="finished", correction={"reason": c["reason"], "at": c["at"],
                                                           "director": c["director"]})
            item["final"] = c is not None or (g["status"] == "finished" and g["confirmed"] is not None)
            out.append(item)
        return out

    def tables(self) -> list[dict[str, Any]]:
        """Every table: online or not, its live state, its mark and its games."""
        with self._lock:
            rows = {r["tbl"]: r for r in self._conn.execute("SELECT * FROM tables")}
            counts = {r[0]: (r[1], r[2]) for r in self._conn.execute(
                "SELECT tbl, count(*), max(received) FROM messages GROUP BY tbl")}
        results = self.results()
        marks = self.marks()
        out = []
        for name in sorted(set(rows) | set(counts)):
            r = rows.get(name)
            out.append({"table": name, "status": r["status"] if r else "unknown",
                        "state": _loads(r["state"]) if r else None,
                        "mark": marks.get(name, 0), "messages": counts.get(name, (0, None))[0],
                        "last_message": counts.get(name, (0, None))[1],
                        "games": [g for g in results if g["table"] == name]})
        return out

    def standings(self) -> dict[str, Any]:
        """Final results only: per game, each player's Elo rating over the evening (every
        table's games in finishing order), games and wins; and the evening's table of wins."""
        by_game: dict[str, list[elo.Result]] = {}
        wins: dict[str, dict[str, Any]] = {}
        finals = sorted((g for g in self.results() if g["final"]),
                        key=lambda g: (g["finished"] or "", g["table"], g["game_id"]))
        for g in finals:
            keys = [p.casefold() for p in g["players"]]
            by_game.setdefault(g["game"], []).append(elo.Result(keys, g["scores"], g["winners"]))
            for seat, (key, name) in enumerate(zip(keys, g["players"], strict=True)):
                w = wins.setdefault(key, {"player": name, "games": 0, "wins": 0})
                w["games"] += 1
                w["wins"] += int(seat in g["winners"])
        games = {}
        for game, results in sorted(by_game.items()):
            rated = elo.rate(results)
            games[game] = sorted(({"player": wins[p]["player"], "rating": round(r.rating, 1),
                                   "games": r.games} for p, r in rated.items()),
                                 key=lambda x: (-x["rating"], x["player"]))
        players = sorted(wins.values(), key=lambda w: (-w["wins"], w["games"], w["player"]))
        return {"final_results": len(finals), "games": games, "players": players}


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _fold_result(conn: sqlite3.Connection, tbl: str, game_id: int) -> None:
    status, scores, winners, result_seq, finished, confirmed = "playing", None, None, None, None, None
    for row in conn.execute("SELECT seq, kind, body FROM messages WHERE tbl = ? AND game_id = ? AND "
                            "kind != 'event' ORDER BY seq", (tbl, game_id)):
        body = json.loads(row["body"])
        if row["kind"] == "result":
            status, scores, winners = "finished", body["scores"], body["winners"]
            result_seq, finished, confirmed = row["seq"], body.get("at"), None
        elif row["kind"] == "reopen":
            status, scores, winners, result_seq, finished, confirmed = ("playing", None, None, None,
                                                                        None, None)
        elif row["kind"] == "confirm" and status == "finished":
            confirmed = body["seat"]
    conn.execute("UPDATE games SET status = ?, scores = ?, winners = ?, result_seq = ?, finished = ?, "
                 "confirmed = ? WHERE tbl = ? AND game_id = ?",
                 (status, None if scores is None else json.dumps(scores),
                  None if winners is None else json.dumps(winners), result_seq, finished, confirmed,
                  tbl, game_id))
