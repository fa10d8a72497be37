"""`companion recognize`, `companion watch` and `companion deck learn` from the command line."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cli import main
from vision import learn
from vision.art import render_card
from vision.mats import get_mat
from vision.synthetic import Degradations, Placement, Scene, SyntheticCamera

MAT = get_mat("yokir")


@pytest.fixture(scope="module")
def table_photo(tmp_path_factory):
    """A camera picture of the Yokir mat with three cards face up and one face down."""
    camera = SyntheticCamera(MAT, "yokir", seed=4, size=(960, 540), degrade=Degradations(noise=0.3, blur=0.3))
    spots = [MAT.zone("play-0").center_mm, MAT.zone("trick").center_mm, MAT.zone("play-1").center_mm]
    placements = (Placement("MT", spots[0], 5), Placement("IA", spots[1], 30), Placement("RL", spots[2], 90),
                  Placement("SM", MAT.zone("upcard").center_mm, 0, face_up=False))
    image, truth = camera.render(Scene(MAT, "yokir", placements), 0.0)
    path = tmp_path_factory.mktemp("photos") / "table.png"
    cv2.imwrite(str(path), image)
    return path, truth


def one_line_error(capsys, args) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_recognize_prints_each_card_with_its_corners_as_json(capsys, table_photo):
    path, truth = table_photo
    assert main(["recognize", str(path), "--deck", "yokir", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["image"] == str(path)
    assert sorted(c["code"] for c in out["cards"]) == ["IA", "MT", "RL"]
    assert len(out["unknown"]) == 1 and len(out["unknown"][0]["corners"]) == 4
    true = {t.code: np.asarray(t.corners_px) for t in truth.cards}
    for card in out["cards"]:
        assert 0.5 <= card["confidence"] <= 1.0
        assert np.abs(np.asarray(card["corners"]) - true[card["code"]]).max() < 3.0


def test_recognize_with_the_mat_and_annotated_images(capsys, table_photo, tmp_path):
    path, _ = table_photo
    assert main(["recognize", str(path), str(path), "--deck", "yokir", "--game", "yokir",
                 "--annotate", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out.count("3 cards, 1 unknown") == 2 and "MT" in out and "RL" in out
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == ["table-2.png", "table.png"]
    assert cv2.imread(str(tmp_path / "out" / "table.png")).shape == (540, 960, 3)


def test_recognize_bad_input_is_one_line(capsys, tmp_path, table_photo):
    path, _ = table_photo
    assert "no such image: 'nope.png'" in one_line_error(capsys, ["recognize", "nope.png", "--deck", "yokir"])
    junk = tmp_path / "junk.png"
    junk.write_text("not an image")
    assert "cannot read" in one_line_error(capsys, ["recognize", str(junk), "--deck", "yokir"])
    assert "unknown deck 'yokr'" in one_line_error(capsys, ["recognize", str(path), "--deck", "yokr"])
    assert "no card art" in one_line_error(capsys, ["recognize", str(path), "--deck", "ahyoheek"])


def test_watch_prints_observations_from_the_synthetic_table(capsys):
    assert main(["watch", "synthetic:yokir?frames=75&degrade=clean&seed=2", "--game", "yokir",
                 "--json"]) == 0
    captured = capsys.readouterr()
    events = [json.loads(line) for line in captured.out.splitlines()]
    assert events and all(e["kind"] in ("placed", "removed", "moved") for e in events)
    assert all(e["zone"] and e["code"] for e in events)
    assert events[0]["kind"] == "placed"
    assert "75 frames" in captured.err and "mat found" in captured.err


def test_watch_bad_input_is_one_line(capsys):
    one_line_error(capsys, ["watch", "nosuch:thing", "--game", "yokir"])
    assert "piktas" in one_line_error(capsys, ["watch", "synthetic:yokir", "--game", "pictas"])
    one_line_error(capsys, ["watch", "synthetic:yokir", "--game", "yokir", "--frames", "0"])


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(learn.ENV_VAR, str(tmp_path / "data"))
    return tmp_path / "data"


def test_deck_learn_from_photos_lists_what_is_missing(capsys, data_dir, tmp_path):
    photos = tmp_path / "photos"
    photos.mkdir()
    for code in ("AS", "KH"):
        canvas = np.full((500, 420, 3), (40, 70, 40), np.uint8)
        card = cv2.resize(render_card("standard", code, 6.0), (252, 352), interpolation=cv2.INTER_AREA)
        canvas[70:422, 80:332] = card
        cv2.imwrite(str(photos / f"{code}.jpg"), canvas)
    cv2.imwrite(str(photos / "QD.jpg"), np.full((100, 100, 3), 40, np.uint8))
    assert main(["deck", "learn", "mine", "--base", "standard", "--from", str(photos)]) == 2  # refused
    captured = capsys.readouterr()
    out = captured.out
    assert "learned 2 cards into the deck 'mine'" in out
    assert "missing (52):" in out and "refused QD.jpg: no whole card found" in captured.err
    assert main(["recognize", str(photos / "AS.jpg"), "--deck", "mine", "--json"]) == 0
    assert [c["code"] for c in json.loads(capsys.readouterr().out)["cards"]] == ["AS"]


def test_deck_learn_bad_input_is_one_line(capsys, data_dir, tmp_path):
    assert "--from DIR" in one_line_error(capsys, ["deck", "learn", "mine"])
    missing = str(tmp_path / "x")
    assert "no such folder" in one_line_error(capsys, ["deck", "learn", "mine", "--from", missing])
    assert "built-in" in one_line_error(capsys, ["deck", "learn", "yokir", "--from", str(tmp_path)])


def test_deck_learn_from_the_camera_asks_card_by_card_and_keeps_what_it_got(capsys, data_dir):
    # The synthetic table deals one card and leaves it alone a while: it is taken as the
    # card asked for (the user's deck is new to us: the user is trusted); then the view
    # never empties, the frames end, and what was taken is kept.
    source = "synthetic:yokir?frames=40&degrade=clean"
    code = main(["deck", "learn", "mine", "--from-camera", "--source", source, "--cards", "AS,KH"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("1/2: lay Ace of Spades (AS)") and "got AS; take it away" in out
    assert "learned 1 card into the deck 'mine'" in out and "missing (53)" in out
    assert (data_dir / "decks" / "mine" / "AS.png").is_file()
