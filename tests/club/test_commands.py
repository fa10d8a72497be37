"""The club's commands: `companion demo --headless --club`, `club confirm`, `club push`,
`club broker-config`; bad words are one line and exit status 2."""

from __future__ import annotations

import json
import socket
import urllib.request

import pytest
from club_support import table_password

from club.broker import free_port
from club.simulate import wait_for
from companion.cli import main
from companion.storage import Store


def test_the_demo_publishes_its_game_and_the_other_side_confirms(broker, make_hub, tmp_path, monkeypatch,
                                                                   capsys):
    hub = make_hub()
    db = tmp_path / "table-1.db"
    monkeypatch.setenv("COMPANION_DB", str(db))
    monkeypatch.setenv("COMPANION_CLUB_PASSWORD", table_password("table-1"))
    code = main(["demo", "--headless", "--game", "ahyoheek", "--club", broker.address, "--table", "table-1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "the other side, confirms the result" in out and "the hub stored it" in out
    (record,) = Store(db).games()
    tables = json.load(urllib.request.urlopen(hub.url + "api/tables", timeout=10))["tables"]
    (game,) = tables[0]["games"]
    assert (game["scores"], game["final"]) == (list(record.scores), True)


def test_confirm_then_push_from_the_command_line(broker, make_hub, make_tables, tmp_path, monkeypatch,
                                                 capsys):
    hub = make_hub()
    (t1,) = make_tables(1, start=False)
    session = t1.play_game(confirm=False)
    state = session.state()
    db = t1.club.store.path
    winner = state.winners()[0]
    loser = next(s for s in range(len(state.scores())) if s not in state.winners())
    monkeypatch.setenv("COMPANION_CLUB_PASSWORD", table_password(t1.name))
    if len(state.winners()) < len(state.scores()):
        assert main(["club", "confirm", str(session.game_id), "--seat", str(winner + 1), "--db", db]) == 2
        assert "the other side confirms" in capsys.readouterr().err
    assert main(["club", "confirm", str(session.game_id), "--seat", str(loser + 1), "--db", db,
                 "--table", t1.name, "--broker", broker.address]) == 0
    assert "stored at the hub" in capsys.readouterr().out
    wait_for(lambda: any(g["final"] for g in hub.store.results()), 10, "the confirmed result at the hub")


def test_broker_config_writes_hashed_passwords_and_the_acl(tmp_path, capsys):
    users = tmp_path / "users"
    users.write_text("hub:hubpw\ntable-1:one\n")
    argv = ["club", "broker-config", str(tmp_path / "conf"), "--users", str(users), "--port", "1884"]
    assert main(argv) == 0
    passwd = (tmp_path / "conf" / "passwd").read_text()
    assert "one" not in passwd and passwd.startswith("hub:$7$")
    assert "pattern write club/%u/events" in (tmp_path / "conf" / "acl").read_text()
    assert "listener 1884 0.0.0.0" in (tmp_path / "conf" / "mosquitto.conf").read_text()


def test_a_scoreboard_port_in_use_or_a_missing_password_file_is_one_line(capsys, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["club", "serve", "--broker", "127.0.0.1:1883", "--http", str(port),
                     "--db", str(tmp_path / "hub.db")]) == 2
    assert "cannot serve the scoreboard" in capsys.readouterr().err
    assert main(["club", "serve", "--broker", "127.0.0.1:1883", "--http", str(free_port()),
                 "--db", str(tmp_path / "hub.db"), "--password-file", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "cannot read the password file" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ["demo", "--headless", "--club", "127.0.0.1:1"],
    ["demo", "--headless", "--club", "nowhere", "--table", "t1"],
    ["demo", "--headless", "--club", "127.0.0.1:1883", "--table", "Bad Name"],
    ["club", "serve", "--broker", "127.0.0.1:1883", "--http", "99999"],
    ["club", "confirm", "1", "--seat", "0", "--broker", "127.0.0.1:1883"],
])
def test_bad_words_are_one_line_and_status_2(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DB", str(tmp_path / "x.db"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
