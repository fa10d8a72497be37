"""Kill -9 a process in the middle of a game, start again: the game resumes at the last
committed event, nothing lost and nothing doubled.

A script of inputs (moves, rejected moves, undos, redos, calls) is made once by a
reference session. Child processes work through it against a database file, each
resuming where the file says the last one stopped, and are killed at arbitrary points;
in the end the file must hold exactly the reference's log.
"""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys

from companion.games import Action
from companion.session import Session
from companion.storage import Store

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve"]

CHILD = """
import json, sys
from companion.games import Action
from companion.session import Session
from companion.storage import Store

db, script, players = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
ops = json.load(open(script))
store = Store(db)
stored = store.games()
session = Session.resume(store, stored[0].id) if stored else Session.start(store, "ahyoheek", players)
done = len(store.events(session.game_id))  # every op of the script appends exactly one event
for i, op in enumerate(ops[done:], start=done + 1):
    if op["op"] == "act":
        session.act(Action.from_json(op["action"]), op["source"])
    elif op["op"] == "undo":
        assert session.undo()
    elif op["op"] == "redo":
        assert session.redo()
    else:
        session.confirm()
    print(i, flush=True)  # committed: the parent may count on it
print("done", flush=True)
"""


def make_script(seed):
    """Inputs for one whole game, each of which appends one event; and the log they make."""
    rng = random.Random(seed)
    with Store(":memory:") as store:
        session = Session.start(store, "ahyoheek", PLAYERS)
        ops = []
        while not session.view().over:
            view, roll = session.view(), rng.random()
            if view.verdict and view.verdict.awaiting and roll < 0.5:
                op = {"op": "confirm"}
                session.confirm()
            elif view.can_redo and roll < 0.4:
                op = {"op": "redo"}
                session.redo()
            elif roll < 0.1 and view.can_undo:
                op = {"op": "undo"}
                session.undo()
            else:
                state = session.state()
                action = (Action.make("pick", state.current_player(), pick="rock") if roll < 0.2
                          else session.game.bot_action(state, rng))
                op = {"op": "act", "action": action.to_json(), "source": rng.choice(["panel", "touch"])}
                session.act(action, op["source"])
            ops.append(op)
        return ops, essence(store.events(session.game_id)), store.export(session.game_id)


def essence(events):
    """What an event says, without its time stamp."""
    return [(e.seq, e.kind, e.data, e.source, e.reason, e.outcomes) for e in events]


def run_child(db, script, kill_after=None):
    """Run the child; kill it with SIGKILL right after it reports `kill_after` commits.
    Returns the last commit it reported (0 if none) and whether it finished."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(db), str(script), ",".join(PLAYERS)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    last, seen, finished = 0, 0, False
    for line in proc.stdout:
        if line.strip() == "done":
            finished = True
            break
        last, seen = int(line), seen + 1
        if kill_after is not None and seen >= kill_after:
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait(timeout=60)
    err = proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    if kill_after is None or finished:
        assert proc.returncode == 0, err
    else:  # a child on a starved machine may have finished before the signal landed
        assert proc.returncode in (-signal.SIGKILL, 0), err
    return last, finished or proc.returncode == 0


def check_file(db):
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.close()


def test_a_killed_game_resumes_at_the_last_committed_event(tmp_path):
    ops, reference, reference_export = make_script(seed=9)  # a long game that uses every kind of input
    assert len(ops) > 60 and {op["op"] for op in ops} == {"act", "undo", "redo", "confirm"}
    script = tmp_path / "script.json"
    script.write_text(json.dumps(ops))
    db = tmp_path / "companion.db"
    rng = random.Random(5)
    committed, kills = 0, 0
    while True:
        remaining = len(ops) - committed
        kill_after = rng.randint(1, max(1, remaining // 5)) if kills < 4 and remaining > 3 else None
        last, finished = run_child(db, script, kill_after)
        if finished:
            break
        kills += 1
        check_file(db)
        with Store(db) as store:
            stored = store.events(store.games()[0].id)
        # nothing lost: every commit the child reported is there; nothing doubled: the
        # stored log is exactly the first events of the reference, with no gap and no repeat
        assert len(stored) >= last > committed
        assert essence(stored) == reference[:len(stored)]
        committed = len(stored)
    assert kills >= 1  # four are planned; a child on a starved machine may finish first
    check_file(db)
    with Store(db) as store:
        game_id = store.games()[0].id
        assert essence(store.events(game_id)) == reference
        record = store.game(game_id)
        session = Session.resume(store, game_id)
        assert record.status == "finished" and session.view().over
        assert record.scores == session.view().scores and record.winners == session.view().winners

        def plain(lines):
            return [{k: v for k, v in e.items() if k != "at"} for e in lines]

        assert plain(store.export(game_id)) == plain(reference_export)
