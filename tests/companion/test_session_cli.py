"""`companion record / history / players / export / replay` against a database file."""

import json
import subprocess
import sys

import pytest

from companion.cli import main
from companion.eventlog import bot_game
from companion.games import make_game
from companion.games.base import describe_event
from companion.storage import ENV_VAR


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    return str(tmp_path / "companion.db")


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, *words):
    assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("companion: error:"), err
    for word in words:
        assert word in err, err


def test_record_history_players_export_replay_end_to_end(db, tmp_path, capsys):
    code, out, _ = run(capsys, "record", "ahyoheek", "Ann", "Bob", "Cy", "--seed", "1", "--db", db)
    assert code == 0 and out.startswith("Stored game 1: Ahyoheek")
    run(capsys, "record", "ahyoheek", "ann", "Dee", "--seed", "2", "--db", db)
    expected, _ = bot_game(make_game("ahyoheek", 3), seed=1)  # the session plays the bot game

    code, out, _ = run(capsys, "history", "--json", "--db", db)
    history = json.loads(out)
    assert [(h["id"], h["players"]) for h in history] == [(1, ["Ann", "Bob", "Cy"]), (2, ["Ann", "Dee"])]
    assert history[0]["scores"] == expected.scores() and history[0]["winners"] == expected.winners()
    assert history[0]["winner_names"] == [["Ann", "Bob", "Cy"][w] for w in expected.winners()]
    code, out, _ = run(capsys, "history", "--db", db)
    assert code == 0 and len(out.splitlines()) == 2 and "#1" in out and "winner:" in out

    code, out, _ = run(capsys, "players", "--json", "--db", db)
    listed = json.loads(out)
    assert listed["players"] == ["Ann", "Bob", "Cy", "Dee"]
    assert {r["player"]: r["games"] for r in listed["ratings"]} == {"Ann": 2, "Bob": 1, "Cy": 1, "Dee": 1}
    code, out, _ = run(capsys, "players", "--game", "Ahyoheek", "--db", db)
    assert code == 0 and "Ann" in out and "(2 games)" in out

    target = tmp_path / "game1.jsonl"
    assert run(capsys, "export", "1", "-o", str(target), "--db", db)[0] == 0
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert lines[0]["type"] == "start" and lines[-1]["type"] == "end"
    code, out, _ = run(capsys, "export", "1", "--db", db)
    assert out == target.read_text()

    code, out, _ = run(capsys, "replay", str(target), "--json")
    result = json.loads(out)
    assert code == 0 and result["finished"] and result["scores"] == expected.scores()
    assert result["winners"] == expected.winners()
    assert result["verdicts"] == [e for e in lines if e["type"] in ("round", "sudden_death", "match")]
    code, out, _ = run(capsys, "replay", str(target))
    assert out.startswith("Ahyoheek, 3 players: Ann, Bob, Cy") and "Final scores: Ann" in out
    first = next(i for i, e in enumerate(lines, 1) if e["type"] == "round")
    assert f"line {first}: {describe_event(make_game('ahyoheek', 3), lines[first - 1])}\n" in out


def test_the_environment_variable_names_the_file_and_db_overrides_it(db, tmp_path, monkeypatch, capsys):
    other = tmp_path / "other.db"
    monkeypatch.setenv(ENV_VAR, str(other))
    run(capsys, "record", "ahyoheek", "Ann", "Bob")
    assert other.exists()
    assert len(json.loads(run(capsys, "history", "--json")[1])) == 1
    code, _, err = run(capsys, "history", "--json", "--db", db)  # --db wins, and is missing
    one_line_error(code, err, "no database at", db)


def test_reading_commands_on_a_missing_file_say_so_and_create_nothing(db, capsys):
    # a mistyped --db must not look like a history with no games in it
    for args in (["history"], ["history", "--all", "--json"], ["players", "--json"], ["export", "1"],
                 ["games", "abandon", "1", "--reason", "crash"]):
        code, out, err = run(capsys, *args, "--db", db)
        one_line_error(code, err, "no database at", db)
        assert out == ""
    import os

    assert not os.path.exists(db)


@pytest.mark.parametrize("game_id", ["7", "abc", "0", "-1", "1.5"])
def test_a_bad_game_id_is_named(db, capsys, game_id):
    run(capsys, "record", "ahyoheek", "Ann", "Bob", "--db", db)
    code, out, err = run(capsys, "export", game_id, "--db", db)
    one_line_error(code, err, f"no game with id {game_id!r}" if not game_id.isdigit() or game_id == "0"
                   else f"no game with id {game_id}")
    assert out == ""


def test_export_never_clobbers_a_file_unless_told(db, tmp_path, capsys):
    run(capsys, "record", "ahyoheek", "Ann", "Bob", "--db", db)
    target = tmp_path / "keep.jsonl"
    target.write_text("precious\n")
    code, _, err = run(capsys, "export", "1", "-o", str(target), "--db", db)
    one_line_error(code, err, "exists", "--force")
    assert target.read_text() == "precious\n"
    assert run(capsys, "export", "1", "-o", str(target), "--force", "--db", db)[0] == 0
    assert target.read_text().startswith('{"type": "start"')
    code, _, err = run(capsys, "export", "1", "-o", str(tmp_path / "no" / "dir.jsonl"), "--db", db)
    one_line_error(code, err, "no such folder")
    assert list(tmp_path.glob(".keep.jsonl.*")) == []


def test_a_foreign_database_is_refused_in_one_line_and_left_alone(tmp_path, capsys):
    bad = tmp_path / "notes.db"
    bad.write_text("not a database at all\n" * 50)
    code, _, err = run(capsys, "history", "--db", str(bad))
    one_line_error(code, err, str(bad), "not a Table Companion database")
    assert bad.read_text().startswith("not a database")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("exported")
    db = str(folder / "companion.db")
    assert main(["record", "ahyoheek", "Ann", "Bob", "Cy", "--seed", "4", "--db", db]) == 0
    assert main(["export", "1", "-o", str(folder / "game.jsonl"), "--db", db]) == 0
    return (folder / "game.jsonl").read_text()


@pytest.fixture
def logfile(exported, tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text(exported)
    capsys.readouterr()
    return path


def spoil(path, index, text):
    lines = path.read_text().splitlines()
    lines[index] = text
    path.write_text("\n".join(lines) + "\n")
    return path.read_bytes()


@pytest.mark.parametrize("index, text, message", [
    (3, "{broken", "line 4: not valid JSON"),
    (2, json.dumps({"type": "shuffle", "seat": 0}), "line 3: unknown event 'shuffle'"),
    (1, json.dumps({"type": "pick", "seat": 0, "pick": "rock"}), "line 2: the rules reject"),
    (0, json.dumps({"type": "start", "game": "chess"}), "line 1: unknown game 'chess'"),
])
def test_replay_names_the_bad_line_and_writes_nothing(logfile, capsys, index, text, message):
    before = spoil(logfile, index, text)
    code, out, err = run(capsys, "replay", str(logfile))
    one_line_error(code, err, message)
    assert out == "" and logfile.read_bytes() == before


def test_replay_of_an_unfinished_log_gives_the_scores_so_far(logfile, capsys):
    lines = logfile.read_text().splitlines()
    logfile.write_text("\n".join(lines[:len(lines) // 2]) + "\n")  # stopped half way
    code, out, _ = run(capsys, "replay", str(logfile))
    assert code == 0 and "stops before the game is over" in out
    assert json.loads(run(capsys, "replay", str(logfile), "--json")[1])["finished"] is False
    code, _, err = run(capsys, "replay", str(logfile.parent / "missing.jsonl"))
    one_line_error(code, err, "no such log file")


def test_the_installed_command_exits_2_with_one_line(db):
    proc = subprocess.run([sys.executable, "-m", "companion", "export", "3", "--db", db],
                          capture_output=True, text=True, timeout=60)
    one_line_error(proc.returncode, proc.stderr, "no database at")
