"""`companion deck render`: one PNG per card named by its code, at the size asked."""

from __future__ import annotations

import cv2
import pytest

from companion.cards import get_deck
from companion.cli import main


@pytest.mark.parametrize("deck", ["yokir", "piktas", "yonac", "ideal"])
def test_deck_render_writes_one_png_per_card_named_by_code(tmp_path, capsys, deck):
    out = tmp_path / "cards" / deck
    assert main(["deck", "render", deck, "--out", str(out), "--px-per-mm", "1"]) == 0
    codes = get_deck(deck).codes
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{c}.png" for c in codes)
    said = capsys.readouterr().out
    assert f"wrote {len(codes)} cards" in said and str(out) in said
    image = cv2.imread(str(out / f"{codes[0]}.png"))
    assert image.shape[:2] == ((76, 76) if deck == "piktas" else (88, 63))


@pytest.mark.parametrize(("args", "words"), [
    (["deck", "render", "yokir", "--out", "o", "--px-per-mm", "41"],
     "must be 1 to 40 pixels per mm, got '41'"),
    (["deck", "render", "yokir", "--out", "o", "--px-per-mm", "fine"], "must be a number of pixels per mm"),
    (["deck", "render", "tarot", "--out", "o"], "unknown deck 'tarot'"),
    (["deck", "render", "ahyoheek", "--out", "o"], "the Ahyoheek picks deck has no card art"),
    (["deck", "render", "yokir"], "the following arguments are required: --out"),
    (["deck", "render", "yokir", "--out", "a-file"], "and a-file is not a folder"),
])
def test_bad_arguments_are_one_line_errors(args, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
