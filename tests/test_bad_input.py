"""Bad input never crashes, every output is safe to write, nothing is left half-done (issue 20).

Every command is fed what a new user (or a damaged disk) gives it: images that are not
images or claim 100000 x 100000 pixels, logs nested ten thousand deep or cut short,
pin maps and databases that are not what they say, outputs that are devices, folders or
existing files. Each must end in one line on stderr with exit status 2 (or the status
the command documents), never a traceback, and leave every file that was already there
exactly as it was. A table holds the cases the issue lists; hypothesis then generates
more, for every command.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import sqlite3
import stat
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.session import Session
from companion.storage import NotPlaying, Store

#: More examples for a longer hunt (COMPANION_FUZZ_SCALE=20 pytest tests/test_bad_input.py);
#: the suite runs them at 1, within its time.
SCALE = max(1, int(os.environ.get("COMPANION_FUZZ_SCALE", "1") or 1))

# -- files every case can use ----------------------------------------------------------------


def png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims width x height pixels (and holds one row of data)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 16)) + chunk(b"IEND", b""))


def jpeg_bytes(size: int = 96) -> bytes:
    rng = np.random.default_rng(1)
    ok, data = cv2.imencode(".jpg", rng.integers(0, 255, (size, size, 3), dtype=np.uint8))
    assert ok
    return data.tobytes()


def bot_log(game: str = "ahyoheek", seed: int = 3) -> list[str]:
    from companion.eventlog import bot_game, dumps
    from companion.games import make_game

    return [dumps(e) for e in bot_game(make_game(game), seed)[1]]


def damaged_db(path: Path, column: str, value: str) -> None:
    """A database with one finished game whose events.data or games.config is `value`
    (written past the append-only triggers, as a bad disk or a hand edit would)."""
    with Store(path) as store:
        gid = store.create_game("ahyoheek", {"players": 2}, ["Ann", "Bob"])
        with store.write(gid) as tx:
            tx.append("accepted", {"type": "pick", "seat": 0, "pick": "pen"}, source="cli")
            tx.append("accepted", {"type": "pick", "seat": 1, "pick": "page"}, source="cli")
    conn = sqlite3.connect(path, isolation_level=None)
    if column == "data":
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute("UPDATE events SET data = ? WHERE seq = 2", (value,))
    else:
        conn.execute("UPDATE games SET config = ?", (value,))
    conn.close()


def make_files(root: Path) -> dict[str, Path]:
    """The bad (and a few good) files the cases name, in `root`."""
    f: dict[str, Path] = {}

    def put(name: str, data: bytes | str) -> None:
        path = root / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        f[name] = path

    put("huge.png", png_claiming(100_000, 100_000))
    put("trunc.jpg", jpeg_bytes()[:700])
    put("text.png", "this is not a picture\n")
    put("empty.png", b"")
    log = bot_log()
    put("game.jsonl", "\n".join(log) + "\n")
    put("noend.jsonl", "\n".join(log[:-1]) + "\n")
    put("deep.jsonl", "[" * 100_000 + "]" * 100_000 + "\n")
    put("deepstart.jsonl", json.dumps({"type": "start", "game": "ahyoheek", "config": 1})[:-1]
        + ', "x": ' + "[" * 5000 + "]" * 5000 + "}\n")
    put("binary.jsonl", bytes(range(256)) * 4)
    put("nan.jsonl", '{"type": "start", "game": "ahyoheek", "config": {"players": NaN}}\n')
    put("badpins.toml", "[seat.0\nbuttons = [2, 2]\n")
    put("clashpins.toml", "[[seats]]\nbuttons = [2, 2]\nled = 2\n")
    put("garbage.db", b"SQLite format 2\x00" + b"\x01" * 4000)
    put("zero.db", b"")
    put("kept.pdf", b"%PDF-1.4 precious\n")
    put("kept.jsonl", "precious\n")
    put("afile", "a file where a folder should be\n")
    # Devices to refuse, made here so that a command that failed to refuse one replaces only
    # this copy, never the machine's /dev/full: a device node when we may make one (root),
    # and a link to /dev/null, which must be refused as well.
    f["device"] = root / "full"
    try:
        os.mknod(f["device"], stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except OSError:
        f["device"].symlink_to("/dev/null")
    f["devlink"] = root / "null-link"
    f["devlink"].symlink_to("/dev/null")
    (root / "frames").mkdir()
    (root / "frames" / "a.jpg").write_bytes(jpeg_bytes()[:700])
    f["frames"] = root / "frames"
    foreign = root / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    f["foreign.db"] = foreign
    damaged_db(root / "badrow.db", "data", "{not json")
    damaged_db(root / "deeprow.db", "data", "[" * 50_000 + "]" * 50_000)
    damaged_db(root / "badconfig.db", "config", "players=2")
    f.update(badrow=root / "badrow.db", deeprow=root / "deeprow.db", badconfig=root / "badconfig.db")
    with Store(root / "good.db") as store:  # game 1 finished, game 2 still playing
        session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
        rng = random.Random(0)
        while not session.view().over:
            session.step_bot(rng)
        Session.start(store, "ahyoheek", ["Ann", "Cy"])
    f["good.db"] = root / "good.db"
    return f


def snapshot(root: Path) -> dict[str, str]:
    """Every regular file under `root` with the hash of its bytes (sqlite's -wal and -shm
    files aside: they come and go with every reader)."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.name.endswith(("-wal", "-shm")):
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@contextlib.contextmanager
def environment(**values: str | None) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run(args: list[str], root: Path, **env: str | None) -> tuple[int, str, str]:
    """`companion ARGS` in this process with its own data directory; an exception that
    escapes main() (a traceback) fails the test where it happens."""
    out, err = io.StringIO(), io.StringIO()
    values: dict[str, str | None] = {"COMPANION_DATA_DIR": str(root / "data"),
                                     "COMPANION_DB": str(root / "none.db"), "DISPLAY": None,
                                     "WAYLAND_DISPLAY": None, "SDL_VIDEODRIVER": None, **env}
    with environment(**values), contextlib.chdir(root), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def assert_refused(code: int, err: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and lines[0].startswith("companion: error:"), err
    assert "Traceback" not in err
    for word in words:
        assert word in err, (word, err)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, dict[str, Path]]:
    root = tmp_path_factory.mktemp("bad")
    return root, make_files(root)


# -- the table: each case the issue lists, and its neighbours ----------------------------------

# (arguments with {name} for a file above, words the one error line must hold)
CASES = [
    # unwritable or unsafe outputs: refused before any drawing, nothing replaced
    ("deck pdf yokir -o {device}", "exists and is not a regular file"),
    ("deck pdf yokir -o {device} --force", "is not a regular file"),
    ("mat pdf yokir -o {device} --force", "is not a regular file"),
    ("mat pdf yokir -o {devlink} --force", "/dev/null exists and is not a regular file"),
    ("mat pdf yokir -o {kept.pdf}", "exists: add --force"),
    ("deck pdf yokir -o {kept.pdf}", "exists: add --force"),
    ("deck pdf yokir -o {frames}", "is a folder"),
    ("mat pdf yokir -o {afile}/mat.pdf", "Not a directory"),
    ("mat pdf yokir -o {root}/nowhere/mat.pdf", "no such folder"),
    ("deck pdf tarot -o {kept.pdf}", "unknown deck 'tarot'"),
    ("deck render yokir --out {afile}", "is not a folder"),
    ("deck render yokir --out {devlink}", "is not a folder"),
    ("export 1 --db {good.db} -o {kept.jsonl}", "exists: add --force"),
    ("export 1 --db {good.db} -o {device} --force", "not a regular file"),
    ("demo --headless --record {afile}", "is not a folder"),
    ("demo --headless --record {devlink}", "is not a folder"),
    ("recognize {game.jsonl} --deck yokir --annotate {afile}", "is not a folder"),
    ("camera board -o {device} --force", "not a regular file"),
    ("export 1 --db {good.db} -o ''", "an output file needs a name"),
    ("deck render yokir --out ''", "an output folder needs a name"),
    ("demo --headless --record ''", "an output folder needs a name"),
    ("record ahyoheek Ann Bob --db {afile}/c.db", "cannot open database"),
    # images
    ("recognize {huge.png} --deck yokir", "more pixels than the 64,000,000"),
    ("recognize {trunc.jpg} --deck yokir", "damaged image"),
    ("recognize {text.png} --deck yokir", "not an image file"),
    ("recognize {empty.png} --deck yokir", "not an image file"),
    ("recognize {frames} --deck yokir", "no such image"),
    ("watch file:{huge.png} --game yokir", "more pixels than the 64,000,000"),
    ("watch file:{trunc.jpg} --game yokir", "damaged image"),
    ("watch dir:{frames} --game yokir", "damaged image"),
    ("watch file:{text.png} --game yokir --frames 0", "--frames must be 1 or more"),
    ("camera calibrate --source file:{huge.png}", "more pixels than the 64,000,000"),
    ("watch synthetic:yokir?seed=-1 --game yokir --frames 1", "seed must be 0 or more"),
    ("watch synthetic:yokir?calibration={devlink} --game yokir --frames 1", "not a regular file"),
    # logs
    ("replay {deep.jsonl}", "line 1: JSON nested more than 64 deep"),
    ("replay {deepstart.jsonl}", "line 1: JSON nested more than 64 deep"),
    ("replay {noend.jsonl}", "no 'end' line"),
    ("replay {binary.jsonl}", "cannot read log file"),
    ("replay {nan.jsonl}", "NaN is not a JSON number"),
    ("replay {frames}", "not a regular file"),
    ("replay {devlink}", "not a regular file"),
    ("replay {empty.png}", "the log is empty"),
    # damaged databases: named by game and event, never a traceback
    ("export 1 --db {badrow}", "game 1, event 2: not valid JSON"),
    ("export 1 --db {deeprow}", "game 1, event 2: JSON nested more than 64 deep"),
    ("export 1 --db {badconfig}", "game 1's config: not valid JSON"),
    ("history --db {garbage.db}", "is not a Table Companion database"),
    ("history --all --db {foreign.db}", "is not a Table Companion database"),
    ("players --db {frames}", "is a directory"),
    ("games abandon 1 --reason crash --db {good.db}", "game 1 is finished"),
    ("games abandon 2 --reason '' --db {good.db}", "a reason is 1 to 200"),
    ("games abandon 9 --reason crash --db {good.db}", "no game with id 9"),
    ("games abandon x --reason crash --db {good.db}", "no game with id 'x'"),
    # a missing database is said, not shown as an empty history
    ("history --db {root}/typo.db", "no database at"),
    ("history --all --json --db {root}/typo.db", "no database at"),
    ("players --db {root}/typo.db", "no database at"),
    ("history --db {zero.db}", "is empty"),
    # seeds and other words
    ("play yokir --seed -1", "a seed is 0 or more"),
    ("record ahyoheek Ann Bob --seed -7 --db {root}/new.db", "a seed is 0 or more"),
    ("demo --seed -3 --headless", "a seed is 0 or more"),
    ("play yokir --seed 1e3", "a seed is a whole number"),
    ("players --game '' --db {good.db}", "unknown game ''"),
    ("record ahyoheek Ann ann --db {root}/new2.db", "named twice"),
    # kiosk: its one line comes before any Kivy log
    ("kiosk --check --db {garbage.db}", "is not a Table Companion database"),
    ("kiosk --check --db {root}/k.db --source file:{root}/missing.mp4", "no such file"),
    ("kiosk --check --db {root}/k.db --source dir:{frames}", "damaged image"),
    ("kiosk --check --db {root}/k.db --pins {badpins.toml}", "badpins.toml"),
    ("kiosk --check --db {root}/k.db --source nonsense", "unknown camera source"),
    ("panel test --pins {badpins.toml} --mock --seconds 0", "badpins.toml"),
    ("panel test --pins {devlink} --mock --seconds 0", "not a regular file"),
    ("kiosk --check --db {root}/k.db --pins {devlink}", "not a regular file"),
]


def _args(template: str, root: Path, f: dict[str, Path]) -> list[str]:
    import re
    import shlex

    names = {"root": str(root), **{k: str(v) for k, v in f.items()}}
    return shlex.split(re.sub(r"\{([\w.]+)\}", lambda m: shlex.quote(names[m[1]]), template))


@pytest.mark.parametrize(("template", "words"), CASES, ids=[c[0] for c in CASES])
def test_each_bad_input_is_one_line_and_changes_nothing(files, template, words):
    root, f = files
    before = snapshot(root)
    code, _out, err = run(_args(template, root, f), root)
    assert_refused(code, err, words)
    after = snapshot(root)
    assert {k: after.get(k) for k in before} == before, "a file that was there changed"
    assert not f["device"].is_file() and not f["devlink"].is_file(), "a device was replaced"
    assert not list(root.glob("**/.*.tmp")), "a temporary file was left behind"


def test_history_lists_a_damaged_game_by_name_and_the_others_as_they_are(files):
    root, f = files
    code, out, err = run(["history", "--all", "--db", str(f["badconfig"])], root)
    assert code == 0 and err == "" and "damaged (game 1's config: not valid JSON" in out
    code, out, err = run(["history", "--all", "--db", str(f["badrow"])], root)
    assert code == 0 and err == "" and "#1" in out  # events are read by export and resume


def test_an_abandoned_game_is_shown_as_abandoned_and_takes_no_more_moves(tmp_path):
    db = tmp_path / "c.db"
    with Store(db) as store:
        store.create_game("ahyoheek", {"players": 2}, ["Ann", "Bob"])
    code, out, err = run(["games", "abandon", "1", "--reason", "the power  went out", "--db", str(db)],
                         tmp_path)
    assert code == 0 and "Game 1 abandoned (the power went out)" in out
    code, out, _ = run(["history", "--all", "--db", str(db)], tmp_path)
    assert "abandoned (the power went out)" in out and "still playing" not in out
    assert run(["history", "--db", str(db)], tmp_path)[1] == "No finished games yet.\n"
    code, _, err = run(["games", "abandon", "1", "--reason", "again", "--db", str(db)], tmp_path)
    assert_refused(code, err, "game 1 is abandoned")
    with Store(db) as store:
        session = Session.resume(store, 1)
        assert session.view().over and not session.view().can_undo
        with pytest.raises(NotPlaying, match="abandoned"):
            session.step_bot(random.Random(0))
        assert [e.kind for e in store.events(1)] == ["abandon"]
        code, out, _ = run(["export", "1", "--db", str(db)], tmp_path)
        assert code == 0 and '"type": "end"' not in out  # abandoned: no result, no end line


def test_an_open_session_sees_another_process_abandon_its_game(tmp_path):
    with Store(tmp_path / "c.db") as store, Store(tmp_path / "c.db") as other:
        session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
        rng = random.Random(1)
        session.step_bot(rng)
        other.abandon(session.game_id, "players left", source="touch")
        with pytest.raises(NotPlaying):
            session.step_bot(rng)
        assert session.view().over and session.view().verdict.text == "Abandoned: players left."


def test_pdf_outputs_are_refused_before_the_drawing_and_replaced_only_with_force(files, monkeypatch):
    root, f = files
    import vision.printing

    drawn = []
    monkeypatch.setattr(vision.printing, "render_mat", lambda *a, **k: drawn.append(a) or 1 / 0)
    code, _, err = run(["mat", "pdf", "yokir", "-o", str(f["kept.pdf"])], root)
    assert_refused(code, err, "exists")
    assert drawn == []  # refused before any drawing
    target = root / "out" / "mat.pdf"
    target.parent.mkdir(exist_ok=True)
    monkeypatch.undo()
    target.write_bytes(b"old")
    assert run(["mat", "pdf", "yokir", "-o", str(target), "--force", "--px-per-mm", "1"], root)[0] == 0
    assert target.read_bytes().startswith(b"%PDF") and not list(target.parent.glob(".*.tmp"))


def test_the_kiosk_broken_settings_are_kept_side_by_side_with_a_time(tmp_path, caplog):
    from datetime import UTC, datetime

    from kiosk.prefs import Prefs, load

    path = tmp_path / "kiosk.json"
    times = iter([datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)] * 2)
    for text in ('{"camera": ', '{"corners": [[1, 2, 3]]}'):
        path.write_text(text)
        assert load(path, now=lambda: next(times)) == Prefs()
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == ["kiosk.json.bad-20260102T030405Z", "kiosk.json.bad-20260102T030405Z-2"]
    assert (tmp_path / kept[0]).read_text() == '{"camera": '  # the first one was not replaced
    said = [r.getMessage() for r in caplog.records]
    assert "could not be used (it is not valid JSON: expecting value on line 1" in said[0]
    assert "corners must be four [x, y] pairs" in said[1] and "kept as kiosk.json.bad-" in said[1]


def test_kiosk_check_says_its_one_line_before_any_kivy_log(files):
    root, f = files
    proc = subprocess.run([sys.executable, "-m", "companion", "kiosk", "--check", "--db",
                           str(f["garbage.db"])], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "DISPLAY": ":99", "COMPANION_DATA_DIR": str(root / "data")})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [proc.stderr.strip()] and "[INFO" not in proc.stderr
    assert proc.stderr.startswith("companion: error:") and "is not a Table Companion database" in proc.stderr


def test_a_file_standing_in_for_the_database_folder_is_one_line(files):
    root, f = files
    code, _, err = run(["record", "ahyoheek", "Ann", "Bob"], root, COMPANION_DB=f"{f['afile']}/sub/c.db")
    assert_refused(code, err, "afile/sub/c.db")


# -- generated: hypothesis makes files and arguments for every command ---------------------------

IMAGE_COMMANDS = [
    lambda p: ["recognize", p, "--deck", "yokir"],
    lambda p: ["watch", f"file:{p}", "--game", "yokir", "--frames", "2"],
    lambda p: ["camera", "calibrate", "--source", f"file:{p}", "--frames", "1"],
]


def _bad_image() -> st.SearchStrategy[bytes]:
    real = jpeg_bytes(64)
    _ok, png = cv2.imencode(".png", np.zeros((64, 64, 3), np.uint8))
    png = png.tobytes()
    return st.one_of(
        st.binary(max_size=300),
        st.integers(8, len(real) - 200).map(lambda n: real[:n]),  # cut short
        st.integers(33, len(png) - 1).map(lambda n: png[:n]),
        st.tuples(st.integers(20_000, 2**31 - 1), st.integers(20_000, 2**31 - 1))
          .map(lambda wh: png_claiming(*wh)),  # header claims too many pixels
        st.tuples(st.integers(0, len(real) - 1), st.binary(min_size=1, max_size=40))
          .map(lambda t: real[:t[0]] + t[1]),
    )


@settings(max_examples=25 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_bad_image(), command=st.sampled_from(IMAGE_COMMANDS), suffix=st.sampled_from([".png", ".jpg"]))
def test_generated_images_never_crash(tmp_path_factory, data, command, suffix):
    root = tmp_path_factory.mktemp("img")
    path = root / f"photo{suffix}"
    path.write_bytes(data)
    before = snapshot(root)
    code, _, err = run(command(str(path)), root)
    # a few bytes appended to a whole JPEG still make a picture: that may be read (status 0)
    assert code in (0, 2) and "Traceback" not in err and len(err.strip().splitlines()) <= 3, err
    if code == 2:
        assert_refused(code, err)
    assert {k: v for k, v in snapshot(root).items() if not k.startswith("data")} == \
        {k: v for k, v in before.items() if not k.startswith("data")}


def _bad_log() -> st.SearchStrategy[str]:
    lines = bot_log("ahyoheek", 5)
    mutate = st.tuples(st.integers(0, len(lines) - 1), st.sampled_from([
        lambda line: "",  # a line removed
        lambda line: line[: len(line) // 2],  # cut short
        lambda line: line.replace("pen", "pencil"),
        lambda line: line.replace('"seat": 0', '"seat": -1').replace('"seat": 1', '"seat": 7'),
        lambda line: "[" * 3000 + line + "]" * 3000,
        lambda line: line.replace("{", '{"x": ' + "{" * 200 + "}" * 200 + ", ", 1),
        lambda line: line.replace("2", "1e999"),
        lambda line: line.replace('"type": "', '"type": "x'),
    ]))
    return st.one_of(
        st.text(max_size=200),
        st.lists(mutate, min_size=1, max_size=3).map(
            lambda ms: "\n".join(_apply(lines, ms)) + "\n"),
    )


def _apply(lines: list[str], mutations) -> list[str]:
    out = list(lines)
    for index, change in mutations:
        out[index] = change(out[index])
    return out


@settings(max_examples=30 * SCALE, deadline=None)
@given(text=_bad_log(), as_json=st.booleans())
def test_generated_logs_never_crash(tmp_path_factory, text, as_json):
    root = tmp_path_factory.mktemp("log")
    path = root / "game.jsonl"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    before = snapshot(root)
    code, _out, err = run(["replay", str(path)] + (["--json"] if as_json else []), root)
    assert code in (0, 2) and "Traceback" not in err  # a harmless change may still replay
    if code == 2:
        assert_refused(code, err)
    assert snapshot(root) == before


@settings(max_examples=20 * SCALE, deadline=None)
@given(text=st.one_of(st.text(max_size=120), st.binary(max_size=120).map(lambda b: b.decode("latin-1")),
                      st.sampled_from(["[[seats]]\nbuttons = [2, 2]\nled = 2\n",
                                       "[table]\nconfirm = 99\n", "seats = 3\n", "[" * 500])))
def test_generated_pin_maps_never_crash(tmp_path_factory, text):
    root = tmp_path_factory.mktemp("pins")
    path = root / "pins.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    before = snapshot(root)
    for args in (["panel", "test", "--pins", str(path), "--mock", "--seconds", "0", "--step", "0"],
                 ["kiosk", "--check", "--db", str(root / "k.db"), "--pins", str(path)]):
        code, _, err = run(args, root)
        # a text that happens to be a good map passes the pins and stops at the display
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert {k: v for k, v in snapshot(root).items() if k == "pins.toml"} == before


def _bad_database(root: Path) -> st.SearchStrategy[Path]:
    def write(kind_and_bytes) -> Path:
        kind, data = kind_and_bytes
        path = root / f"db-{hashlib.sha1(data).hexdigest()[:12]}-{kind}.db"
        if kind == "bytes":
            path.write_bytes(data)
        elif kind in ("data", "config") and not path.exists():
            damaged_db(path, kind, data.decode("latin-1"))
        return path
    return st.tuples(st.sampled_from(["bytes", "data", "config"]),
                     st.one_of(st.binary(max_size=200),
                               st.just(b"SQLite format 3\x00" + bytes(200)),
                               st.just(b"[" * 2000 + b"]" * 2000))).map(write)


DB_COMMANDS = [
    ["history"], ["history", "--all"], ["history", "--all", "--json"], ["players"],
    ["players", "--game", "ahyoheek", "--json"], ["export", "1"],
    ["games", "abandon", "1", "--reason", "crash"],
]


@settings(max_examples=30 * SCALE, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), command=st.sampled_from(DB_COMMANDS))
def test_generated_databases_never_crash(tmp_path, data, command):
    db = data.draw(_bad_database(tmp_path))
    before = snapshot(tmp_path)
    code, _out, err = run([*command, "--db", str(db)], tmp_path)
    assert code in (0, 2) and "Traceback" not in err and len(err.strip().splitlines()) <= 1, err
    damaged_row = "-data.db" in db.name or "-config.db" in db.name
    if command[0] == "export" and damaged_row:
        assert_refused(code, err, "game 1")
    if not damaged_row:  # only a real database can be read or changed
        assert code == 2 and snapshot(tmp_path) == before


SOURCES = st.one_of(
    st.tuples(st.sampled_from(["file:", "dir:", "synthetic:", "cv:", "picamera2:", "x:", ""]),
              st.sampled_from(["", "yokir", "piktas", "/dev/null", "/", "-1", "0", "..",
                               "medieval-mastery", "chess"]),
              st.lists(st.tuples(st.sampled_from(["seed", "frames", "fps", "degrade", "players",
                                                  "width", "height", "calibration", "blur", "x"]),
                                 st.sampled_from(["", "-1", "0", "1", "nan", "inf", "1e9", "abc", "hard",
                                                  "/dev/null", "none", "2"])), max_size=3))
      .map(lambda t: t[0] + t[1] + ("?" + "&".join(f"{k}={v}" for k, v in t[2]) if t[2] else "")),
    st.text(max_size=30))


@settings(max_examples=20 * SCALE, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=SOURCES)
def test_generated_sources_never_crash(tmp_path, source):
    code, _out, err = run(["watch", source, "--game", "yokir", "--frames", "1"], tmp_path)
    # a good source (synthetic:yokir) reads its frame and stops: status 0
    assert code in (0, 2) and "Traceback" not in err, (source, err)
    if code == 2:
        assert_refused(code, err)


WORDS = st.one_of(st.text(max_size=12), st.sampled_from(
    ["-1", "0", "", "x", "1e9", "99999999999999999999", "--", "-", "\x00", "../", "/",
     "yokir", "piktas", "standard", "AH", "ZZ", "trump", "pen"]))

ARG_COMMANDS = [
    ["play", "yokir", "--seed"], ["play", "piktas", "--players"], ["record", "yonac"],
    ["trick", "yokir", "--trump"], ["legal", "yokir", "--trump", "L", "--hand"],
    ["score", "piktas", "--hand"], ["hint", "piktas", "--field"], ["yonac", "set"],
    ["trick", "medieval-mastery"], ["meld", "medieval-mastery"], ["score", "ahyoheek"],
    ["cards"], ["deck", "render"], ["deck", "pdf"], ["mat", "pdf"], ["recognize"],
    ["watch"], ["replay"], ["export"], ["players", "--game"], ["games", "abandon"],
    ["demo", "--seed"], ["demo", "--game"], ["kiosk", "--size"], ["kiosk", "--source"],
    ["camera", "board", "-o"], ["deck", "learn"], ["panel", "test", "--pins"],
]


@settings(max_examples=50 * SCALE, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(ARG_COMMANDS), words=st.lists(WORDS, min_size=1, max_size=3))
def test_generated_arguments_never_crash(tmp_path, command, words):
    (tmp_path / "kept.pdf").write_bytes(b"precious")
    before = snapshot(tmp_path)
    args = command + words
    if args[0] in ("deck", "mat", "camera") and "-o" not in args:
        args += ["-o", str(tmp_path / "kept.pdf")]  # never draws: the file is there
    if args[:2] == ["deck", "render"]:
        args += ["--out", str(tmp_path / "kept.pdf")]
    if args[0] in ("demo", "kiosk", "play", "record"):
        args += ["--frames-never-given"]  # an unknown option: its words parsed, never run
    if args[0] in ("export", "players", "games", "record"):
        args += ["--db", str(tmp_path / "none.db")]
    code, _out, err = run(args, tmp_path)
    # the words may happen to be right (`cards yokir`): then it prints and says nothing
    assert code in (0, 2) and "Traceback" not in err, (args, err)
    assert len(err.strip().splitlines()) == (1 if code == 2 else 0), (args, err)
    after = snapshot(tmp_path)
    assert {k: after.get(k) for k in before} == before
