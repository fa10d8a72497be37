"""Two processes write one database file at once (the kiosk and a CLI), even the same game:
the file stays whole, every event either writer committed is there exactly once, and
every game still replays."""

import itertools
import json
import random
import sqlite3
import subprocess
import sys

from companion.eventlog import dumps, parse_lines, replay
from companion.session import Session
from companion.storage import Store, Timeline

WRITER = """
import contextlib, io, json, os, random, sys, time
from companion.cli import main
from companion.errors import IllegalAction
from companion.session import Session
from companion.storage import Store

db, game_id, go, role, steps = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
store = Store(db)
session = Session.resume(store, game_id)
rng = random.Random(role)
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.002)
appended = 0  # events this process added to the shared game
for step in range(steps):
    time.sleep(rng.random() / 500)  # people, not a benchmark: leave the other writer a gap
    if role == "cli" and step % 15 == 0:  # what a person at a terminal does meanwhile
        own = Session.start(store, "ahyoheek", [f"cli{step}a", f"cli{step}b"])
        for _ in range(4):
            own.step_bot(rng, source="cli")
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["export", str(game_id), "--db", db]) == 0
            assert main(["history", "--json", "--db", db]) == 0
    if session.view().over:
        appended += session.undo(role)  # keep the shared game going: reopen it
        continue
    roll = rng.random()
    if roll < 0.1:
        appended += session.undo(role)
    elif roll < 0.2:
        appended += session.redo(role)
    else:
        try:
            session.step_bot(rng, source=role)
            appended += 1
        except IllegalAction:
            pass  # the other writer ended the game just now
print(json.dumps({"appended": appended}), flush=True)
"""


def start_writer(db, game_id, go, role, steps):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(game_id), str(go), role,
                             str(steps)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    return proc


def test_the_kiosk_and_a_cli_writing_at_once_never_corrupt_the_file(tmp_path):
    db, go = tmp_path / "companion.db", tmp_path / "go"
    with Store(db) as store:
        shared = Session.start(store, "ahyoheek", ["Ann", "Bob", "Cy", "Dee", "Eve"]).game_id
    writers = [start_writer(db, shared, go, role, 120) for role in ("kiosk", "cli")]
    go.touch()  # both are ready: let them loose together
    appended = 0
    for proc in writers:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        appended += json.loads(out.strip().splitlines()[-1])["appended"]

    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.close()
    with Store(db) as store:
        events = store.events(shared)
        assert len(events) == appended  # every event either writer committed, once
        # the two really wrote in turns (else this test would prove nothing)
        assert sum(a.source != b.source for a, b in itertools.pairwise(events)) >= 2
        Timeline.of(events)  # no gap, every undo and redo names the right event
        records = store.games()
        assert len(records) == 1 + len(range(0, 120, 15))
        for record in records:
            session = Session.resume(store, record.id)  # the engine accepts every stored move
            result = replay(parse_lines(dumps(e) for e in store.export(record.id)))
            assert result.state == session.state()
            assert result.ended == (record.status == "finished") == session.view().over


def test_many_processes_opening_a_new_file_at_once_make_one_database(tmp_path):
    db = tmp_path / "new.db"
    code = ("import sys; from companion.storage import Store; s = Store(sys.argv[1]); "
            "s.player(sys.argv[2]); s.close()")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(db), f"P{i}"], stderr=subprocess.PIPE,
                              text=True) for i in range(4)]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    with Store(db) as store:
        assert sorted(p.name for p in store.players()) == ["P0", "P1", "P2", "P3"]


def test_opening_a_file_another_process_holds_for_a_moment_is_tried_again(tmp_path, monkeypatch):
    """SQLite answers "locked" at once, without waiting, to a process opening a file
    another is closing or switching to WAL: the open is tried again until BUSY_TIMEOUT_S
    has passed (clock injected), and then the error is the one of the last try."""
    import pytest

    from companion import storage

    now = [0.0]
    pauses: list[float] = []
    monkeypatch.setattr(storage, "_clock", lambda: now[0])

    def pause(seconds: float) -> None:
        pauses.append(seconds)
        now[0] += seconds

    monkeypatch.setattr(storage, "_pause", pause)
    real = storage.Store._open_once
    fails = [2]

    def held(self, create, make_dirs):
        if fails[0]:
            fails[0] -= 1
            raise storage._Busy(f"cannot open database {self.path!r}: database is locked")
        return real(self, create, make_dirs)

    monkeypatch.setattr(storage.Store, "_open_once", held)
    with Store(tmp_path / "a.db") as store:
        store.player("P0")
    assert len(pauses) == 2
    fails[0], now[0] = 10 ** 6, 0.0  # held for good
    with pytest.raises(storage.StorageError, match="database is locked"):
        Store(tmp_path / "b.db")
    assert now[0] == pytest.approx(storage.BUSY_TIMEOUT_S, abs=0.06)


def test_a_stale_reader_sees_a_whole_game(tmp_path):
    """A reader holding an old snapshot while the writer moves on never sees half an event."""
    db = tmp_path / "companion.db"
    with Store(db) as writer_store, Store(db) as reader:
        session = Session.start(writer_store, "ahyoheek", ["Ann", "Bob"])
        rng = random.Random(1)
        while not session.view().over:
            session.step_bot(rng)
            lines = reader.export(session.game_id)
            result = replay(parse_lines(dumps(e) for e in lines))
            assert result.state == session.state()
