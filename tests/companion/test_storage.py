"""The SQLite store: schema, versions and migrations, players, the append-only log."""

import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion import storage
from companion.errors import BadLog, CompanionError
from companion.storage import (
    APP_ID,
    SCHEMA_VERSION,
    BadDatabase,
    BadName,
    Event,
    NoDatabase,
    Store,
    Timeline,
    UnknownGameId,
)


@pytest.fixture
def db(tmp_path):
    return tmp_path / "companion.db"


def raw(path):
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


def test_a_new_file_is_ours_in_wal_mode_at_the_current_version(db):
    with Store(db) as store:
        assert store.path == str(db)
    conn = raw(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APP_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"players", "games", "seats", "events", "results", "ratings"} <= tables


def test_the_path_comes_from_the_environment_or_the_user_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv(storage.ENV_VAR, str(tmp_path / "env.db"))
    assert storage.default_path() == tmp_path / "env.db"
    monkeypatch.delenv(storage.ENV_VAR)
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_data_dir", lambda app: str(tmp_path / "data" / app))
    assert storage.default_path() == tmp_path / "data" / "table-companion" / "companion.db"
    with Store() as store:  # the data directory is made on first use
        assert store.path == str(tmp_path / "data" / "table-companion" / "companion.db")


def test_reading_never_creates_a_file(db):
    with pytest.raises(NoDatabase, match="no database at"):
        Store(db, create=False)
    assert not db.exists()


def test_players_are_one_by_name_whatever_the_case(db):
    with Store(db) as store:
        ann = store.player("Ann")
        assert store.player("ANN") == ann and store.player("  ann ") == ann
        assert store.player("Émile").id == store.player("ÉMILE").id
        assert store.player("Mary  Lou") .name == "Mary Lou"
        assert [p.name for p in store.players()] == ["Ann", "Émile", "Mary Lou"]


@pytest.mark.parametrize("name, message", [("", "cannot be empty"), ("   ", "cannot be empty"),
                                           ("x" * 41, "at most 40"), ("a\x00b", "control"),
                                           (3, "must be text")])
def test_bad_player_names_are_refused(db, name, message):
    with Store(db) as store, pytest.raises(BadName, match=message):
        store.player(name)


def test_a_game_with_a_player_twice_is_refused_and_nothing_is_stored(db):
    with Store(db) as store:
        with pytest.raises(BadName, match="named twice"):
            store.create_game("ahyoheek", {"players": 3}, ["Ann", "Bob", "ann"])
        assert store.games() == [] and store.players() == []


def test_a_game_keeps_its_config_and_seats(db):
    with Store(db) as store:
        game_id = store.create_game("ahyoheek", {"players": 2, "cycle": "summary"}, ["Bob", "Ann"])
        record = store.game(game_id)
        assert record.players == ("Bob", "Ann") and record.config == {"players": 2, "cycle": "summary"}
        assert record.status == "playing" and record.finished is None and record.scores == ()
        with pytest.raises(UnknownGameId, match=r"no game with id 99 .*\(1 games stored\)"):
            store.game(99)
        with pytest.raises(UnknownGameId), store.write(99):
            pass


def append(store, game_id, kind, data, **kw):
    with store.write(game_id) as tx:
        return tx.append(kind, data, source="test", **kw)


def test_events_are_append_only_even_for_raw_sql(db):
    with Store(db) as store:
        game_id = store.create_game("ahyoheek", {"players": 2}, ["Ann", "Bob"])
        event = append(store, game_id, "accepted", {"type": "pick", "seat": 0, "pick": "pen"})
        assert event.seq == 1 and store.events(game_id) == [event]
    conn = raw(db)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE events SET data = '{}'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM events")


def test_a_failed_transaction_leaves_nothing(db):
    with Store(db) as store:
        game_id = store.create_game("ahyoheek", {"players": 2}, ["Ann", "Bob"])
        with pytest.raises(RuntimeError), store.write(game_id) as tx:
            tx.append("accepted", {"type": "pick", "seat": 0, "pick": "pen"}, source="test")
            raise RuntimeError("power cut")
        assert store.events(game_id) == []
        assert append(store, game_id, "rejected", {}, reason="no").seq == 1


def test_finishing_records_results_and_ratings_and_reopening_withdraws_them(db):
    with Store(db) as store:
        first = store.create_game("ahyoheek", {"players": 2}, ["Ann", "Bob"])
        second = store.create_game("ahyoheek", {"players": 2}, ["Ann", "Cy"])
        for game_id, scores in ((first, [3, 1]), (second, [0, 3])):
            with store.write(game_id) as tx:
                tx.finish(scores, [scores.index(max(scores))])
        assert store.game(first).scores == (3, 1) and store.game(first).winners == (0,)
        rated = {r.name: r for r in store.ratings("ahyoheek")}
        assert rated["Ann"].games == 2 and rated["Bob"].rating == 1484 and rated["Cy"].rating > 1500
        assert [r.id for r in store.games("finished")] == [first, second]
        with store.write(second) as tx:
            tx.reopen()
        assert store.game(second).status == "playing" and store.game(second).scores == ()
        rated = {r.name: r for r in store.ratings()}
        assert set(rated) == {"Ann", "Bob"} and rated["Ann"] == storage.PlayerRating("Ann", "ahyoheek",
                                                                                     1516, 1)


def test_export_is_the_log_in_effect_with_the_outcomes_recorded(db):
    with Store(db) as store:
        game_id = store.create_game("ahyoheek", {"players": 2, "cycle": "example"}, ["Ann", "Bob"])
        pick = {"type": "pick", "seat": 0, "pick": "pen"}
        append(store, game_id, "accepted", pick)
        append(store, game_id, "rejected", {"action": {"type": "pick", "seat": 0, "pick": "rock"}},
               reason="a pick is pen, page or beetle")
        append(store, game_id, "accepted", {"type": "pick", "seat": 1, "pick": "page"},
               outcomes=[{"type": "round", "round": 1}])
        append(store, game_id, "undo", {"target": 3})
        append(store, game_id, "accepted", {"type": "pick", "seat": 1, "pick": "beetle"},
               outcomes=[{"type": "round", "round": 1, "x": 1}])
        lines = store.export(game_id)
        timeline = store.timeline(game_id)
        assert [e.seq for e in timeline.done] == [1, 5] and timeline.undone == []
    assert lines[0]["type"] == "start" and lines[0]["players"] == ["Ann", "Bob"]
    assert lines[0]["config"] == {"players": 2, "cycle": "example"}
    assert [(e["type"], e.get("seq")) for e in lines[1:]] == [("pick", 1), ("pick", 5), ("round", None)]
    assert lines[2]["pick"] == "beetle" and lines[2]["source"] == "test" and lines[3]["x"] == 1


# -- the fold of raw events into the log in effect ---------------------------------------

def ev(seq, kind, target=None):
    return Event(seq, kind, {} if target is None else {"target": target}, "t", "test")


def test_timeline_folds_undo_redo_and_calls():
    t = Timeline.of([ev(1, "accepted"), ev(2, "accepted"), ev(3, "undo", 2), ev(4, "rejected")])
    assert [e.seq for e in t.done] == [1] and [e.seq for e in t.undone] == [2]
    assert t.awaiting.seq == 4  # a rejection keeps the redo stack
    t.add(ev(5, "redo", 2))
    assert [e.seq for e in t.done] == [1, 2] and t.undone == [] and t.awaiting is None
    t.add(ev(6, "undo", 2))
    t.add(ev(7, "accepted"))
    assert [e.seq for e in t.done] == [1, 7] and t.undone == []  # a new event ends redo


@pytest.mark.parametrize("events, message", [
    ([ev(1, "accepted"), ev(3, "accepted")], "gap"),
    ([ev(1, "accepted"), ev(2, "undo", 7)], "not the last one in effect"),
    ([ev(1, "undo", 1)], "not the last one in effect"),
    ([ev(1, "accepted"), ev(2, "redo", 1)], "not the last one undone"),
    ([ev(1, "dance")], "unknown kind"),
])
def test_a_log_that_does_not_add_up_is_refused(events, message):
    with pytest.raises(BadLog, match=message):
        Timeline.of(events)


@given(st.lists(st.sampled_from(["new", "undo", "redo", "reject", "confirm"]), max_size=60))
def test_any_events_and_undos_leave_the_events_not_undone(ops):
    """The model: a list of events in effect and a stack of undone ones."""
    timeline, done, undone, seq = Timeline(), [], [], 0
    for op in ops:
        if (op == "undo" and not done) or (op == "redo" and not undone):
            continue
        seq += 1
        if op == "new":
            timeline.add(ev(seq, "accepted"))
            done.append(seq)
            undone.clear()
        elif op == "undo":
            timeline.add(ev(seq, "undo", done[-1]))
            undone.append(done.pop())
        elif op == "redo":
            timeline.add(ev(seq, "redo", undone[-1]))
            done.append(undone.pop())
        else:
            timeline.add(ev(seq, "rejected" if op == "reject" else "confirm"))
    assert [e.seq for e in timeline.done] == done
    assert [e.seq for e in timeline.undone] == undone


# -- versions ------------------------------------------------------------------------------

def make_file(path, app_id, version, sql="CREATE TABLE notes (text TEXT)"):
    conn = sqlite3.connect(path)
    conn.execute(sql)
    conn.execute(f"PRAGMA application_id = {app_id}")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    return path.read_bytes()


def test_a_newer_file_is_refused_untouched(db):
    before = make_file(db, APP_ID, SCHEMA_VERSION + 1)
    with pytest.raises(BadDatabase, match=rf"{db.name}.*newer.*schema version {SCHEMA_VERSION + 1}"):
        Store(db)
    assert db.read_bytes() == before


@pytest.mark.parametrize("app_id, version, message", [(0, 0, "tables notes"), (0x1234, 3, "0x1234"),
                                                      (APP_ID, 0, "no schema version")])
def test_a_foreign_file_is_refused_untouched(db, app_id, version, message):
    before = make_file(db, app_id, version)
    with pytest.raises(BadDatabase, match=f"not a Table Companion database|{message}") as err:
        Store(db)
    assert message in str(err.value) and str(db) in str(err.value)
    assert db.read_bytes() == before


def test_a_file_that_is_not_sqlite_is_refused_untouched(db):
    db.write_text("shopping list: eggs, milk\n" * 100)
    with pytest.raises(BadDatabase, match="not a Table Companion database"):
        Store(db)
    assert db.read_text().startswith("shopping list")
    with pytest.raises(BadDatabase, match="is a directory"):
        Store(db.parent)


def test_errors_are_companion_errors():
    assert issubclass(BadDatabase, CompanionError) and issubclass(storage.StorageError, OSError)


def test_an_older_file_is_backed_up_then_migrated(db, monkeypatch):
    with Store(db) as store:  # a version-2 file with a finished game in it
        game_id = store.create_game("ahyoheek", {"players": 2}, ["Ann", "Bob"])
        append(store, game_id, "accepted", {"type": "pick", "seat": 0, "pick": "pen"})

    def v2_to_v3(conn):
        conn.execute("ALTER TABLE players ADD COLUMN colour TEXT NOT NULL DEFAULT 'blue'")

    monkeypatch.setattr(storage, "SCHEMA_VERSION", 3)
    monkeypatch.setitem(storage.MIGRATIONS, 2, v2_to_v3)
    with Store(db) as store:
        assert store.game(game_id).players == ("Ann", "Bob") and len(store.events(game_id)) == 1
    conn = raw(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    assert [r[0] for r in conn.execute("SELECT colour FROM players")] == ["blue", "blue"]
    backups = list(db.parent.glob(f"{db.name}.v2-*.bak"))
    assert len(backups) == 1
    assert raw(backups[0]).execute("PRAGMA user_version").fetchone()[0] == 2
    assert raw(backups[0]).execute("SELECT count(*) FROM events").fetchone()[0] == 1


def test_a_version_1_file_is_migrated_so_that_games_can_be_abandoned(db):
    conn = sqlite3.connect(db, isolation_level=None)  # a file as version 1 made it
    for sql in storage._V1:
        conn.execute(sql)
    conn.execute(f"PRAGMA application_id = {APP_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO players VALUES (1, 'Ann', 'ann', 't'), (2, 'Bob', 'bob', 't')")
    conn.execute("INSERT INTO games VALUES (1, 'ahyoheek', '{\"players\": 2}', 't', NULL, 'playing')")
    conn.execute("INSERT INTO seats VALUES (1, 0, 1), (1, 1, 2)")
    conn.execute("""INSERT INTO events VALUES (1, 1, 'accepted',
                 '{"type": "pick", "seat": 0, "pick": "pen"}', '[]', NULL, 't', 'cli', NULL)""")
    conn.close()
    with Store(db) as store:
        assert [e.data["pick"] for e in store.events(1)] == ["pen"]
        store.abandon(1, "the power went out")
        record = store.game(1)
        assert (record.status, record.reason) == ("abandoned", "the power went out")
        assert [e.kind for e in store.events(1)] == ["accepted", "abandon"]
    conn = raw(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):  # the triggers came along
        conn.execute("DELETE FROM events")
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert len(list(db.parent.glob(f"{db.name}.v1-*.bak"))) == 1


def test_a_failed_migration_leaves_the_file_at_its_old_version(db, monkeypatch):
    with Store(db):
        pass

    def broken(conn):
        conn.execute("ALTER TABLE players ADD COLUMN colour TEXT")
        conn.execute("ALTER TABLE nowhere ADD COLUMN x")

    monkeypatch.setattr(storage, "SCHEMA_VERSION", 3)
    monkeypatch.setitem(storage.MIGRATIONS, 2, broken)
    with pytest.raises(CompanionError):
        Store(db)
    conn = raw(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    assert "colour" not in [r[1] for r in conn.execute("PRAGMA table_info(players)")]
