"""Generic rank and suit samples (vision.generic): a standard deck the user never taught
is read by its rank glyph and suit pip, and one end-to-end run on the shared real photos."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks import realphotos as rp
from vision import generic
from vision.glyphs import GLYPH_PPM, decide, read_index
from vision.identify import IdentifyParams
from vision.indices import IndexParams
from vision.templates import art_templates

STANDARD_RANKS = {"A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"}


def test_the_stored_samples_hold_every_rank_and_suit_in_the_layouts_box_sizes():
    data = generic.load_samples()
    assert {str(r) for r in data["ranks"]} == STANDARD_RANKS
    assert [str(s) for s in data["suits"]] == ["S", "H", "D", "C"]
    assert [bool(v) for v in data["red"]] == [False, True, True, False]
    ppm = float(data["ppm"])
    lay = generic.LAYOUT
    for r in STANDARD_RANKS:
        stack = data[f"rank_{r}"]
        assert stack.dtype == np.uint8 and stack.shape[0] >= 8
        assert stack.shape[1:] == (round(lay.rank[3] * ppm), round(lay.rank[2] * ppm))
        assert (stack.reshape(len(stack), -1).max(axis=1) > 200).all()  # every sample has ink
    for s in "SHDC":
        stack = data[f"suit_{s}"]
        assert stack.shape[0] >= 4 and stack.shape[1:] == (round(lay.suit[3] * ppm), round(lay.suit[2] * ppm))
    # Samples of one class differ (fonts, sizes), and the ranks differ from each other.
    a = data["rank_A"].astype(float)
    assert np.abs(a[0] - a[-1]).max() > 100
    assert np.abs(data["rank_A"].mean(axis=0) - data["rank_K"].mean(axis=0)).max() > 50


def test_the_standard_decks_templates_carry_the_generic_glyphs():
    t = art_templates("standard")
    g = t.glyphs
    assert isinstance(g, generic.GenericGlyphs) and g.generic
    assert set(g.ranks) == STANDARD_RANKS and set(g.suits) == {"S", "H", "D", "C"}
    assert g.red == {"S": False, "H": True, "D": True, "C": False}
    assert g.codes[("10", "H")] == "10H" and g.codes[("A", "S")] == "AS" and len(g.codes) == 52
    x, y, w, h = g.layout.rank
    assert g.ranks["Q"].shape[1:] == (round(h * GLYPH_PPM), round(w * GLYPH_PPM))
    assert g.ranks["Q"].dtype == np.float32 and np.isfinite(g.ranks["Q"]).all()
    assert x + w < 12 and g.layout.suit[1] > y + h / 2  # a corner index: the pip below the rank


def test_untaught_thresholds_replace_the_taught_ones():
    p = IdentifyParams(untaught_rank=0.61, untaught_suit_margin=0.02)
    u = p.untaught()
    assert (u.glyph_rank, u.glyph_suit_margin, u.glyph_face) == (0.61, 0.02, p.untaught_face)
    assert u.min_score == p.min_score
    q = IndexParams(untaught_score=0.77).untaught()
    assert (q.min_score, q.min_margin, q.coarse) == (0.77, IndexParams().untaught_margin,
                                                     IndexParams().untaught_coarse)


def _corner(rank_ink: np.ndarray, suit_ink: np.ndarray, red: bool) -> tuple[np.ndarray, np.ndarray]:
    """A card's face (63 x 88 mm at 4 px/mm) printed with these rank and suit inks in
    both corners, and its quad."""
    size = (63.0, 88.0)
    face = np.full((round(size[1] * 4), round(size[0] * 4), 3), 245, np.uint8)
    colour = np.array((40, 30, 200) if red else (25, 25, 25), np.float32)
    for ink, box in ((rank_ink, generic.LAYOUT.rank), (suit_ink, generic.LAYOUT.suit)):
        x, y = round((box[0] + 0.4) * 4), round((box[1] + 0.3) * 4)
        h, w = ink.shape
        patch = face[y:y + h, x:x + w].astype(np.float32)
        a = (ink.astype(np.float32) / 255)[..., None]
        face[y:y + h, x:x + w] = (patch * (1 - a) + colour * a).astype(np.uint8)
    face = np.minimum(face, cv2.rotate(face, cv2.ROTATE_180))  # the other corner, turned
    h, w = face.shape[:2]
    quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    return face, quad


@pytest.mark.parametrize(("rank", "suit"), [("Q", "S"), ("10", "H"), ("7", "C"), ("A", "D")])
def test_a_corner_printed_in_a_font_reads_as_its_rank_and_suit(rank, suit):
    """A corner index drawn from another font's glyph (DejaVu Sans Mono, not among the
    samples) shifted a little in its box: rank and suit read right and clearly."""
    from vision.art import make_generic as M

    mono = M.FONT_DIR / "dejavu/DejaVuSansMono-Bold.ttf"
    if not mono.is_file():
        pytest.skip("DejaVu Sans Mono is not on this machine")
    rank_ink = M.place(M.text_ink(mono, rank), (7.2, 10.4), (6.0 if rank != "10" else 6.8, 8.4))
    suit_ink = M.place(M.mark_ink(M.MARK_NAMES[suit]), (7.0, 7.0), (5.4, 6.0))
    g = art_templates("standard").glyphs
    face, quad = _corner(rank_ink, suit_ink, generic.standard_glyphs().red[suit])
    read = read_index(face, quad, g)
    p = IdentifyParams().untaught()
    d = decide(read, g, p.glyph_rank, p.glyph_rank_margin, p.glyph_suit, p.glyph_suit_margin,
               p.red_above, p.black_below)
    assert d.code == rank + suit, d.why


REAL = rp.data_dir()
needs_real = pytest.mark.skipif(REAL is None, reason="../shared/realcards is not beside the repository")


@needs_real
def test_a_real_deck_never_taught_is_read_as_the_standard_deck():
    """Photos of one Bicycle card each, read with `--deck standard` (our drawn art and the
    generic samples): no card named wrongly, most named rightly."""
    from vision.pipeline import Recognizer

    templates = art_templates("standard")
    photos = [p for p in rp.test_photos(REAL, rp.teaching(REAL))
              if len(p.boxes) == 1 and p.file.startswith("IMG_")][:8]
    tally = rp.Tally()
    for photo in photos:
        image = cv2.imread(str(REAL / "train" / photo.file))
        seen = Recognizer("standard", templates=templates).see(image)
        tally.add(photo, [(c.code, c.corners_px) for c in seen.cards])
    assert tally.wrong == 0
    assert tally.right >= len(photos) // 2


@needs_real
def test_cards_in_a_fan_of_a_deck_never_taught_are_read_by_their_corner_index():
    """Fanned and overlapping Bicycle cards read with `--deck standard`: cards with no
    whole outline are named by their index alone (generic samples, the corner-edge test),
    and no card is named wrongly."""
    from vision.pipeline import Recognizer

    templates = art_templates("standard")
    by_name = {p.file: p for p in rp.test_photos(REAL, rp.teaching(REAL))}
    tally, by_index = rp.Tally(), 0
    for name in ("IMG_2563.JPG", "IMG_2593.JPG", "IMG_2642.JPG", "cam_image44.jpg"):
        photo = by_name[name]
        seen = Recognizer("standard", templates=templates).see(cv2.imread(str(REAL / "train" / name)))
        tally.add(photo, [(c.code, c.corners_px) for c in seen.cards])
        by_index += sum(1 for c in seen.cards if c.code and not c.complete)
    assert tally.wrong == 0
    # cam_image44's 9C, 9S and KH were named by their index until the table was
    # flattened by the named cards (PipelineParams.flatten_named): now cut whole
    assert by_index >= 5
    assert tally.right >= 12


@needs_real
def test_a_card_fitted_with_each_side_on_its_edge_needs_a_lead_to_be_named():
    """`PipelineParams.fit_sides`: in a real photo read untaught (IMG_2589), a KS's
    rectangle laid side by side on its edges read KC and KS alike (0.859, a lead of
    0.011). Such a reading needs `fit_clear_margin` of lead besides `fit_min_score`:
    nothing in the photo is named wrongly."""
    from vision.pipeline import PipelineParams, Recognizer

    photo = next(p for p in rp.test_photos(REAL, rp.teaching(REAL)) if p.file == "IMG_2589.JPG")
    image = cv2.imread(str(REAL / "train" / photo.file))
    for params, wrong in ((PipelineParams(fit_clear_margin=0.0), 1), (PipelineParams(), 0)):
        tally = rp.Tally()
        seen = Recognizer("standard", templates=art_templates("standard"), params=params).see(image)
        tally.add(photo, [(c.code, c.corners_px) for c in seen.cards])
        assert tally.wrong == wrong
