"""Teaching a deck from photos of a standard deck in another maker's style, and from
frames at the table; the learned deck is then recognised by name."""

from __future__ import annotations

import json
import os
import shutil

import cv2
import numpy as np
import pytest

from companion.cards import get_deck
from vision import learn
from vision.identify import identify
from vision.templates import deck_templates

SIZE = (63.0, 88.0)
RED, BLACK = (30, 30, 190), (25, 25, 25)


def other_maker(code: str, ppm: float = 6.0) -> np.ndarray:
    """A standard card as another maker prints it: a cream paper, a serif index placed
    lower and further in than ours, suits as plain shapes, and a framed centre."""
    w, h = int(SIZE[0] * ppm), int(SIZE[1] * ppm)
    card = np.full((h, w, 3), (225, 240, 246), np.uint8)
    deck = get_deck("standard")
    c = deck[code]
    ink = RED if c.colour == "red" else BLACK
    rank = "JK" if c.kind == "joker" else (c.rank or "")
    suit = c.suit or ("S" if code == "JK1" else "H")

    def mark(img, cx, cy, s):
        s = int(s)
        if suit == "S":
            pts = np.array([[cx, cy - s], [cx + s, cy + s // 2], [cx - s, cy + s // 2]], np.int32)
            cv2.fillPoly(img, [pts], ink)
        elif suit == "H":
            cv2.circle(img, (cx, cy), s, ink, -1)
        elif suit == "D":
            pts = np.array([[cx, cy - s], [cx + s, cy], [cx, cy + s], [cx - s, cy]], np.int32)
            cv2.fillPoly(img, [pts], ink)
        else:
            cv2.rectangle(img, (cx - s, cy - s), (cx + s, cy + s), ink, -1)

    def index(img):
        scale = ppm * 0.27
        (tw, _), _ = cv2.getTextSize(rank, cv2.FONT_HERSHEY_TRIPLEX, scale, 3)
        x0 = int(4 * ppm)
        cv2.putText(img, rank, (x0, int(14 * ppm)), cv2.FONT_HERSHEY_TRIPLEX, scale, ink, 3, cv2.LINE_AA)
        mark(img, x0 + max(tw, int(6 * ppm)) // 2, int(20 * ppm), 2.8 * ppm)

    index(card)
    turned = cv2.rotate(card, cv2.ROTATE_180)
    index(turned)
    card = cv2.rotate(turned, cv2.ROTATE_180)
    cv2.rectangle(card, (int(16 * ppm), int(24 * ppm)), (w - int(16 * ppm), h - int(24 * ppm)), ink, 2)
    n = c.value if c.kind == "rank" and (c.value or 0) <= 10 else 1
    for i in range(n):
        mark(card, w // 2 + (i % 2) * int(9 * ppm) - int(4.5 * ppm) * (n > 1),
             int(30 * ppm + (i // 2) * 7 * ppm), 2.5 * ppm)
    if rank in ("J", "Q", "K", "JK"):
        cv2.putText(card, rank, (int(24 * ppm), int(52 * ppm)), cv2.FONT_HERSHEY_TRIPLEX, ppm * 0.5,
                    ink, 3, cv2.LINE_AA)
    cv2.rectangle(card, (0, 0), (w - 1, h - 1), (150, 150, 150), 1)
    return card


def other_back(ppm: float = 6.0) -> np.ndarray:
    """The other maker's back: a white border round a blue field with a lattice of dots."""
    w, h = int(SIZE[0] * ppm), int(SIZE[1] * ppm)
    back = np.full((h, w, 3), (225, 240, 246), np.uint8)
    m = int(4 * ppm)
    back[m:h - m, m:w - m] = (140, 60, 30)
    for y in range(m + 12, h - m, 24):
        for x in range(m + 12, w - m, 24):
            cv2.circle(back, (x, y), 5, (230, 200, 150), -1)
    return back


def photo(card: np.ndarray, rng: np.random.Generator, size=(600, 460), background: str = "wood"
          ) -> np.ndarray:
    """A phone photo: the card somewhere on a table, a little turned and tilted."""
    w, h = size
    if background == "wood":
        grain = np.sin(np.linspace(0, 40, w))[None, :] * 18 + rng.integers(-10, 10, (h, w))
        img = np.clip(np.stack([50 + grain, 80 + grain, 120 + grain], axis=2), 0, 255).astype(np.uint8)
    else:
        img = np.full((h, w, 3), 205, np.uint8)
    ch, cw = card.shape[:2]
    scale = rng.uniform(0.45, 0.7) * h / ch
    ang = np.radians(rng.uniform(-12, 12))
    R = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    half = np.array([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]])
    corners = (half * scale) @ R.T
    centre = np.array([rng.uniform(0.35, 0.65) * w, rng.uniform(0.4, 0.6) * h])
    dst = (corners + centre + rng.normal(0, 3, (4, 2))).astype(np.float32)
    src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    shadow = cv2.warpPerspective(np.full((ch, cw), 255, np.uint8), H, (w, h))
    img[cv2.dilate(shadow, np.ones((5, 5), np.uint8)) > 0] //= 2
    face = cv2.warpPerspective(card, H, (w, h))
    img[shadow > 128] = face[shadow > 128]
    return cv2.GaussianBlur(img, (3, 3), 0)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(learn.ENV_VAR, str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    """Photos of every standard card but four, named by code or by name, on two kinds
    of table; a photo of QS with no card in it, a KD that is no picture, a stray file."""
    folder = tmp_path_factory.mktemp("photos")
    rng = np.random.default_rng(7)
    deck = get_deck("standard")
    for i, card in enumerate(deck):
        if card.code in ("QS", "KD", "QC", "JK2"):
            continue
        name = card.name.replace(" ", "_") if i % 5 == 0 and card.kind != "joker" else card.code
        bg = "light" if i % 4 == 0 else "wood"
        ext = ".png" if i % 6 == 0 else ".jpg"
        cv2.imwrite(str(folder / f"{name}{ext}"), photo(other_maker(card.code), rng, background=bg))
    cv2.imwrite(str(folder / "back.jpg"), photo(other_back(), rng))
    cv2.imwrite(str(folder / "QS.png"), np.full((400, 300, 3), 90, np.uint8))  # no card in it
    (folder / "KD.jpg").write_bytes(b"not a picture")
    (folder / "notes.txt").write_text("shopping list")
    cv2.imwrite(str(folder / "my cat.png"), np.zeros((20, 20, 3), np.uint8))
    return folder


@pytest.fixture(scope="module")
def kitchen(photos, tmp_path_factory):
    """The photos taught once as the deck "kitchen": (data directory, report)."""
    data = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(learn.ENV_VAR, str(data))
        yield data, learn.learn_from_dir("kitchen", "standard", photos)


def test_find_card_finds_the_card_upright_in_a_photo():
    rng = np.random.default_rng(1)
    card = other_maker("7H")
    for bg in ("wood", "light"):
        img = photo(card, rng, background=bg)
        quad = learn.find_card(img, SIZE)
        assert quad is not None
        face = cv2.cvtColor(learn.extract_face(img, quad, SIZE, ppm=3.0), cv2.COLOR_BGR2GRAY)
        truth = cv2.cvtColor(cv2.resize(card, face.shape[1::-1], interpolation=cv2.INTER_AREA),
                             cv2.COLOR_BGR2GRAY)
        inner = (slice(6, -6), slice(6, -6))  # the face, not the table at its edge
        assert cv2.matchTemplate(face[inner], truth[inner], cv2.TM_CCOEFF_NORMED)[0, 0] > 0.85, bg


def test_learning_from_photos_lists_what_is_missing_or_unusable(kitchen):
    data_dir, report = kitchen
    assert len(report.learned) == 50 and "AC" in report.learned and "JK1" in report.learned
    assert report.back
    assert report.missing == ["QS", "KD", "QC", "JK2"]
    refused = dict(report.refused)
    assert sorted(refused) == ["KD.jpg", "QS.png", "my cat.png", "notes.txt"]
    assert "no whole card" in refused["QS.png"]
    assert "not an image" in refused["KD.jpg"] and "not an image" in refused["notes.txt"]
    assert "names no card" in refused["my cat.png"]
    manifest = json.loads((data_dir / "decks" / "kitchen" / "manifest.json").read_text())
    assert manifest["base"] == "standard" and len(manifest["faces"]) == 50
    # The other maker's index sits lower and further in than ours: the box follows it.
    x, y, w, h = manifest["index_box_mm"]
    assert 2.0 <= x <= 5.0 and 4.0 <= y <= 9.0 and x + w >= 10 and y + h >= 22


def test_a_learned_deck_is_a_deck_by_name_and_recognises_its_cards(kitchen):
    assert "kitchen" in learn.register_learned()
    deck = get_deck("kitchen")
    assert deck.parse("queen of hearts").code == "QH" and len(deck) == 54
    templates = deck_templates("kitchen")
    assert len(templates.card_codes) == 50
    rng = np.random.default_rng(3)
    for code in ("AS", "AC", "7H", "7D", "10S", "KH", "JK1"):
        img = photo(other_maker(code), rng, background="wood")
        quad = learn.find_card(img, SIZE)
        result = identify(img, quad, templates)
        assert result.code == code, (code, result)


def test_a_face_down_card_of_the_learned_deck_is_never_read(kitchen):
    img = photo(other_back(), np.random.default_rng(6))
    quad = learn.find_card(img, SIZE)
    result = identify(img, quad, deck_templates("kitchen"))
    assert result.code is None and result.best == "(back)"


def test_our_own_art_does_not_read_the_other_makers_cards_as_confidently(kitchen):
    rng = np.random.default_rng(4)
    img = photo(other_maker("9C"), rng)
    quad = learn.find_card(img, SIZE)
    ours = identify(img, quad, deck_templates("standard"))
    theirs = identify(img, quad, deck_templates("kitchen"))
    assert theirs.code == "9C" and theirs.score > ours.score


def test_teaching_more_photos_adds_to_the_deck(kitchen, data_dir, tmp_path):
    shutil.copytree(kitchen[0] / "decks", data_dir / "decks")
    extra = tmp_path / "extra"
    extra.mkdir()
    cv2.imwrite(str(extra / "QC.png"), photo(other_maker("QC"), np.random.default_rng(9)))
    report = learn.learn_from_dir("kitchen", "standard", extra)
    assert report.learned == ["QC"] and "QC" not in report.missing and "JK2" in report.missing


def test_bad_names_and_folders_are_one_line_errors(data_dir, tmp_path):
    with pytest.raises(learn.BadDeckName, match="built-in"):
        learn.learn_from_dir("standard", "standard", tmp_path)
    with pytest.raises(learn.BadDeckName, match="'my deck!'"):
        learn.learn_from_dir("my deck!", "standard", tmp_path)
    with pytest.raises(learn.LearnFailed, match="no such folder"):
        learn.learn_from_dir("mine", "standard", tmp_path / "nope")
    with pytest.raises(learn.LearnFailed, match="no card learned"):
        learn.learn_from_dir("mine", "standard", tmp_path)
    with pytest.raises(learn.LearnFailed, match="card art"):
        learn.learn_from_dir("mine", "ahyoheek", tmp_path)


def test_a_deck_without_templates_says_how_to_teach_it(data_dir):
    with pytest.raises(learn.NoTemplates, match="deck learn"):
        deck_templates("ahyoheek")


def table_frames(codes: list[str], rng: np.random.Generator, hold: int = 10, gap: int = 5):
    """Camera frames of cards laid one at a time on a dark table, each taken away."""
    w, h = 640, 480
    empty = np.full((h, w, 3), (45, 60, 40), np.uint8)
    for code in codes:
        for _ in range(3):
            yield empty.copy()
        card = other_maker(code)
        ch, cw = card.shape[:2]
        scale = 300 / ch
        dst = np.array([[220, 90], [220 + cw * scale, 95], [215 + cw * scale, 95 + ch * scale],
                        [215, 90 + ch * scale]], np.float32)
        H = cv2.getPerspectiveTransform(np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32), dst)
        face = cv2.warpPerspective(card, H, (w, h))
        mask = cv2.warpPerspective(np.full((ch, cw), 255, np.uint8), H, (w, h))
        for _ in range(hold):
            frame = empty.copy()
            frame[mask > 128] = face[mask > 128]
            yield np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
        for _ in range(gap):
            yield empty.copy()


def test_teaching_at_the_table_guides_card_by_card(data_dir):
    said = []
    rng = np.random.default_rng(5)
    shown = ["AS", "AS", "KH", "2D"]  # the ace of spades shown twice by mistake
    report = learn.learn_from_frames("table", "standard", table_frames(shown, rng), say=said.append,
                                     codes=["AS", "KH", "2D", "3C"])
    assert report.learned == ["AS", "KH", "2D"]
    assert "3C" in report.missing and "AS" not in report.missing
    assert any("looks like AS" in s for s in said)
    assert said[0].startswith("1/4: lay Ace of Spades (AS)")
    templates = deck_templates("table")
    assert sorted(templates.card_codes) == ["2D", "AS", "KH"]


def test_a_learned_deck_is_usable_by_name_in_every_command(kitchen):
    """A fresh `companion` process finds the taught deck: `companion cards kitchen`."""
    import subprocess
    import sys

    data_dir, _ = kitchen
    env = {**os.environ, learn.ENV_VAR: str(data_dir)}
    proc = subprocess.run([sys.executable, "-m", "companion", "cards", "kitchen"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "AS" in proc.stdout and "54 cards" in proc.stdout
