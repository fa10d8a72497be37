"""Simulated tables: real sessions (bots play through the referee and the table's own
SQLite), each with its outbox and publisher. Used by `companion club demo`, the tests
and the benchmark. `audit` compares the hub with every table's own database."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from club.hubstore import HubStore
from club.table import ClubTable, other_side
from companion.adapters import register_all
from companion.session import Session

GAMES = ("yonac", "ahyoheek", "yokir")
SEATS = {"yonac": 4, "ahyoheek": 3, "yokir": 3}
PEOPLE = ("Ada", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu")


def players_for(index: int, seats: int) -> list[str]:
    """Seat names for table `index`: overlapping groups, so standings cross tables."""
    return [PEOPLE[(index * 2 + s) % len(PEOPLE)] for s in range(seats)]


@dataclass
class SimTable:
    """One simulated table: `play_game` plays a whole bot game through a real session."""

    club: ClubTable
    index: int
    game: str
    seed: int
    games_played: list[int] = field(default_factory=list)

    @classmethod
    def make(cls, folder: Path, index: int, broker: str, password: str, game: str | None = None,
             seed: int = 0, **publisher: Any) -> SimTable:
        register_all()
        name = f"table-{index + 1}"
        club = ClubTable.open(folder / f"{name}.db", name, broker, password=password, **publisher)
        return cls(club, index, game or GAMES[index % len(GAMES)], seed + index)

    @property
    def name(self) -> str:
        return self.club.name

    def start(self) -> SimTable:
        self.club.publisher.start()
        return self

    def play_game(self, *, confirm: bool = True, pace: Callable[[], bool] | None = None,
                  events: int | None = None) -> Session:
        """One bot game, to its end (or `events` moves); the other side confirms the result.
        `pace()` is called between moves; it returns True to stop the game there."""
        seats = SEATS.get(self.game, 3)
        session = Session.start(self.club.store, self.game, players_for(self.index, seats))
        unwatch = self.club.publisher.watch(session)
        rng = random.Random(self.seed * 1000 + len(self.games_played))
        moves = 0
        try:
            while not session.state().is_terminal():
                if events is not None and moves >= events:
                    break
                if pace is not None and pace():
                    break
                session.step_bot(rng)
                moves += 1
            if confirm and session.state().is_terminal():
                state = session.state()
                self.club.confirm(session.game_id, other_side(state.scores(), state.winners()),
                                  source="bot")
        finally:
            unwatch()
        self.games_played.append(session.game_id)
        return session


def run_tables(tables: list[SimTable], stop: threading.Event, rate: float) -> list[threading.Thread]:
    """Each table plays game after game at about `rate` moves a second until `stop`."""
    def loop(t: SimTable) -> None:
        gap = 1.0 / rate
        def pace() -> bool:
            return stop.wait(gap)
        while not stop.is_set():
            t.play_game(pace=pace)
            stop.wait(3 * gap)
    threads = [threading.Thread(target=loop, args=(t,), daemon=True, name=f"sim-{t.name}") for t in tables]
    for th in threads:
        th.start()
    return threads


@dataclass(frozen=True)
class Audit:
    """The hub against every table's own database."""

    lost: dict[str, list[int]]  # per table, outbox seqs the hub does not hold
    extra: dict[str, list[int]]  # per table, seqs the hub holds that the table never wrote
    wrong_results: list[str]  # a finished game whose result at the hub differs from the table's
    wrong_counts: list[str]  # a game whose event count at the hub differs from the table's

    @property
    def ok(self) -> bool:
        return not (any(self.lost.values()) or any(self.extra.values()) or self.wrong_results
                    or self.wrong_counts)

    def words(self) -> str:
        lost = sum(len(v) for v in self.lost.values())
        extra = sum(len(v) for v in self.extra.values())
        return (f"{lost} lost, {extra} unknown at the hub, {len(self.wrong_results)} results differ, "
                f"{len(self.wrong_counts)} event counts differ")


def audit(hub: HubStore, tables: list[ClubTable]) -> Audit:
    """Compare the hub with each table: every outbox row once, every result and every
    game's event count as the table's own database has them."""
    lost: dict[str, list[int]] = {}
    extra: dict[str, list[int]] = {}
    wrong_results: list[str] = []
    wrong_counts: list[str] = []
    at_hub = {(g["table"], g["game_id"]): g for g in hub.results()}
    for t in tables:
        mine = {seq for seq, _ in t.outbox.all_bodies()}
        theirs = set(hub.message_keys(t.name))
        lost[t.name] = sorted(mine - theirs)
        extra[t.name] = sorted(theirs - mine)
        for record in t.store.games():
            g = at_hub.get((t.name, record.id))
            events = len(t.store.events(record.id))
            if g is None:
                if events:
                    wrong_counts.append(f"{t.name} game {record.id}: not at the hub")
                continue
            if g["events"] != events:
                wrong_counts.append(f"{t.name} game {record.id}: {events} events, hub {g['events']}")
            if record.status == "finished" and g["correction"] is None and (
                    g["status"] != "finished" or list(g["scores"]) != list(record.scores)
                    or list(g["winners"]) != list(record.winners)):
                wrong_results.append(f"{t.name} game {record.id}: table {record.scores} "
                                     f"{record.winners}, hub {g['status']} {g['scores']} {g['winners']}")
    return Audit(lost, extra, wrong_results, wrong_counts)


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Return once `condition()` holds; TimeoutError naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout:g} s")
        time.sleep(0.02)
