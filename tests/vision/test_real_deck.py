"""Reading a real deck: outlines at any scale, rank and suit read apart, safe image reading,
and one end-to-end run on the shared real photos (teach a few cards, read others)."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks import realphotos as rp
from companion.cli import main
from vision import glyphs, learn
from vision.art import render_card
from vision.imageio import BadImageFile, read_image
from vision.outline import find_outlines, scale_px_per_mm

ASPECT = 88 / 63


def carpet(h: int, w: int, seed: int = 0) -> np.ndarray:
    """A light, speckled, warm surface: the kind the bright-card detector struggled on."""
    rng = np.random.default_rng(seed)
    base = np.full((h, w, 3), (110, 140, 165), np.float32)
    base += rng.normal(0, 22, (h, w, 1))
    return np.clip(cv2.GaussianBlur(base, (3, 3), 0), 0, 255).astype(np.uint8)


def lay(table: np.ndarray, code: str, centre: tuple[float, float], width: float, angle: float) -> np.ndarray:
    """Our standard art of `code` laid on the table, turned by `angle` degrees."""
    card = render_card("standard", code, 6.0)
    h, w = card.shape[:2]
    s = width / w
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, s)
    M[:, 2] += np.array(centre) - np.array([w / 2, h / 2])
    warped = cv2.warpAffine(card, M, table.shape[1::-1])
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), M, table.shape[1::-1]) > 128
    out = table.copy()
    out[mask] = warped[mask]
    return out


@pytest.mark.parametrize("width", [40, 90, 200])
def test_outlines_are_found_at_any_scale_on_a_light_textured_table(width):
    img = lay(carpet(480, 640), "7H", (320, 240), width, 25)
    quads = find_outlines(img, ASPECT)
    assert len(quads) == 1
    sides = np.linalg.norm(quads[0].corners - np.roll(quads[0].corners, -1, axis=0), axis=1)
    assert abs(min(sides) - width) <= 0.08 * width + 2
    assert scale_px_per_mm(quads, (63, 88)) == pytest.approx(width / 63, rel=0.1)


def test_cards_side_by_side_are_separate_outlines_and_printed_frames_are_not_cards():
    img = carpet(480, 640, 1)
    for i, code in enumerate(("10S", "10H", "10D", "10C")):
        img = lay(img, code, (140 + 122 * i, 240), 110, 0)
    quads = find_outlines(img, ASPECT)
    centres = sorted(float(q.center[0]) for q in quads)
    assert len(quads) == 4 and np.allclose(centres, [140 + 122 * i for i in range(4)], atol=4)


def test_nothing_card_shaped_on_an_empty_table():
    assert find_outlines(carpet(300, 400, 2), ASPECT) == []


def test_red_and_black_ink_are_told_apart_even_washed_out():
    paper = np.full((30, 30, 3), 235, np.uint8)
    red, black = paper.copy(), paper.copy()
    red[10:20, 10:20] = (90, 90, 220)
    black[10:20, 10:20] = (60, 60, 60)
    washed = cv2.addWeighted(red, 0.5, np.full_like(red, 200), 0.5, 0)
    assert glyphs.redness(red) > 0.6 and glyphs.redness(washed) > 0.45
    assert glyphs.redness(black) < 0.1
    assert np.isnan(glyphs.redness(paper))


def test_rank_and_suit_boxes_are_found_in_a_corner():
    face = np.full((528, 378, 3), 245, np.uint8)  # 63 x 88 mm at 6 px/mm
    cv2.putText(face, "Q", (14, 62), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (20, 20, 20), 4)
    cv2.circle(face, (32, 95), 14, (30, 30, 200), -1)
    boxes = glyphs.glyph_boxes(face, (63.0, 88.0))
    assert boxes is not None
    (rx, ry, _rw, rh), (_sx, sy, _sw, _sh) = boxes
    assert ry + rh <= sy + 0.5 and 1.5 < rx < 6 and 12 < sy < 16


def test_images_are_read_safely(tmp_path):
    good = tmp_path / "ok.png"
    cv2.imwrite(str(good), np.zeros((8, 8, 3), np.uint8))
    assert read_image(good).shape == (8, 8, 3)
    text = tmp_path / "notes.jpg"
    text.write_text("not a picture")
    with pytest.raises(BadImageFile, match=r"notes\.jpg: not an image"):
        read_image(text)
    jpeg = tmp_path / "cut.jpg"
    cv2.imwrite(str(jpeg), carpet(200, 200))
    jpeg.write_bytes(jpeg.read_bytes()[:1500])
    with pytest.raises(BadImageFile, match=r"cut\.jpg: damaged"):
        read_image(jpeg)
    huge = tmp_path / "huge.png"
    _png_header(huge, 100_000, 100_000)
    with pytest.raises(BadImageFile, match=r"huge\.png: more pixels than"):
        read_image(huge)


def _png_header(path: Path, w: int, h: int) -> None:
    """A small PNG file whose header claims w x h pixels."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 10))
                     + chunk(b"IEND", b""))


# --- the shared real photos -------------------------------------------------------

@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(learn.ENV_VAR, str(tmp_path / "data"))
    return tmp_path / "data"


REAL = rp.data_dir()
needs_real = pytest.mark.skipif(REAL is None, reason="../shared/realcards is not beside the repository")
TAUGHT = ("AS", "AC", "AD", "KS", "QS", "10H")


@needs_real
def test_a_real_deck_taught_from_a_few_photos_reads_other_photos_of_those_cards(data_dir, tmp_path):
    choice = rp.teaching(REAL)
    folder = rp.teach_folder(REAL, {c: choice[c] for c in TAUGHT}, tmp_path / "teach")
    shutil.copyfile(REAL / "train" / "IMG_2401.JPG", folder / "QS-2.jpg")
    report = learn.learn_from_dir("bicycle", "standard", folder)
    assert sorted(report.learned) == sorted(TAUGHT) and report.photos == len(TAUGHT) + 1
    assert report.refused == [] and report.confirmed == len(TAUGHT) + 1
    assert report.layout is not None and report.layout["suit"][1] > report.layout["rank"][1]
    from vision.pipeline import recognize_image
    from vision.templates import deck_templates

    templates = deck_templates("bicycle")
    used = {choice[c] for c in TAUGHT} | {"IMG_2401.JPG"}
    # Photos of one card alone, of a taught card, not used for teaching: the first few.
    photos = [p for p in rp.test_photos(REAL, choice)
              if len(p.boxes) == 1 and p.boxes[0].code in TAUGHT and p.file not in used][:8]
    right = wrong = 0
    for photo in photos:
        image = cv2.imread(str(REAL / "train" / photo.file))
        for card in recognize_image(image, "bicycle", templates).cards:
            if card.code is None:
                continue
            if card.code == photo.boxes[0].code:
                right += 1
            else:
                wrong += 1
    assert wrong == 0
    assert right >= len(photos) // 2


@needs_real
def test_bad_teaching_photos_are_refused_by_name_and_nothing_is_taken_from_them(capsys, data_dir, tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    choice = rp.teaching(REAL)
    shutil.copyfile(REAL / "train" / choice["KS"], folder / "KS.jpg")
    shutil.copyfile(REAL / "train" / choice["KH"], folder / "king of spades.jpg")  # KS named twice
    shutil.copyfile(REAL / "train" / "cam_image3.jpg", folder / "AH.jpg")  # four cards
    (folder / "9C.jpg").write_text("not a photo")
    cv2.imwrite(str(folder / "JD.png"), carpet(300, 240))  # no card at all
    shutil.copyfile(REAL / "train" / choice["AC"], folder / "ZZ.jpg")  # names no card
    code = main(["deck", "learn", "bicycle", "--from", str(folder), "--sheet", str(tmp_path / "sheet.png")])
    out, err = capsys.readouterr()
    assert code == 2
    refused = {line.split(":")[0].removeprefix("refused "): line for line in err.splitlines()}
    assert "named twice" in refused["king of spades.jpg"]
    assert "cards in view" in refused["AH.jpg"]
    assert "not an image" in refused["9C.jpg"]
    assert "no whole card" in refused["JD.png"]
    assert "names no card" in refused["ZZ.jpg"]
    manifest = (data_dir / "decks" / "bicycle" / "manifest.json").read_text()
    for code_ in ("AH", "9C", "JD"):
        assert f'"{code_}"' not in manifest
    assert (tmp_path / "sheet.png").is_file() and "wrote the contact sheet" in out
    assert cv2.imread(str(tmp_path / "sheet.png")) is not None


@needs_real
def test_cards_without_a_whole_outline_are_read_by_their_corner_index(data_dir, tmp_path):
    """A card cut by the picture's edge, one half under a cable, one at the edge of a
    crowd: the outlines miss them, their corner indices do not (vision.indices)."""
    from vision.pipeline import PipelineParams, Recognizer
    from vision.templates import deck_templates

    choice = rp.teaching(REAL)
    learn.learn_from_dir("bicycle", "standard", rp.teach_folder(REAL, {c: choice[c] for c in TAUGHT},
                                                                tmp_path / "teach"))
    templates = deck_templates("bicycle")
    photos = rp.photos(REAL)
    outlines_only = rp.Tally()
    with_indices = rp.Tally()
    for file in INDEX_ONLY:
        image = cv2.imread(str(REAL / "train" / file))
        runs = ((outlines_only, PipelineParams(indices=False)), (with_indices, PipelineParams()))
        for tally, params in runs:
            seen = Recognizer("bicycle", templates=templates, params=params).see(image)
            tally.add(photos[file], [(c.code, c.corners_px) for c in seen.cards])
    assert with_indices.wrong == 0
    assert with_indices.right >= outlines_only.right + 2


#: Photos where a taught card has no whole outline (cut by the edge, crossed, crowded).
INDEX_ONLY = ("IMG_2512.JPG", "IMG_2523.JPG", "IMG_2526.JPG")
