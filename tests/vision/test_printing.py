"""Print-and-play PDFs, read back: page sizes, cards at true size with their backs
mirrored, mats tiled at true scale; and the `companion deck pdf` / `mat pdf` commands."""

from __future__ import annotations

import pytest
from pypdf import PdfReader

from companion.cli import main
from vision.mats import MatSpec, get_mat
from vision.printing import BadPaper, card_grid, deck_pdf, mat_pdf, mat_tiling

PT = 72 / 25.4  # points per mm


def _images(page) -> list[tuple[float, float, float, float]]:
    """(x, y, w, h) mm, from the page's top-left, of every image drawn on a page."""
    found = []
    height = float(page.mediabox.height)

    def visit(op, args, cm, tm):
        if op == b"cm":
            a, _, _, d, e, f = (float(v) for v in args)
            found.append((e / PT, (height - f - d) / PT, a / PT, d / PT))

    page.extract_text(visitor_operand_before=visit)
    return found


def _size_mm(page) -> tuple[float, float]:
    return float(page.mediabox.width) / PT, float(page.mediabox.height) / PT


@pytest.mark.parametrize(("deck", "paper", "page", "card", "per_sheet"), [
    ("yokir", "a4", (210.0, 297.0), (63.0, 88.0), 9),
    ("piktas", "letter", (215.9, 279.4), (76.0, 76.0), 6),
])
def test_a_deck_pdf_has_true_size_cards_and_a_backs_page_per_fronts_page(tmp_path, deck, paper, page, card,
                                                                        per_sheet):
    written = deck_pdf(deck, tmp_path / "deck.pdf", paper, px_per_mm=1.5)
    reader = PdfReader(written.path)
    from companion.cards import get_deck
    n = len(get_deck(deck))
    sheets = -(-n // per_sheet)
    assert len(reader.pages) == written.pages == 2 * sheets
    for page_obj in reader.pages:
        assert _size_mm(page_obj) == pytest.approx(page, abs=0.05)
    fronts, backs = _images(reader.pages[0]), _images(reader.pages[1])
    assert len(fronts) == len(backs) == per_sheet
    for x, y, w, h in fronts + backs:
        assert (w, h) == pytest.approx(card, abs=0.01)
        assert x >= 5.0 and y >= 5.0 and x + w <= page[0] - 5.0 and y + h <= page[1] - 5.0
    last_fronts = _images(reader.pages[-2])
    assert len(last_fronts) == n - (sheets - 1) * per_sheet
    assert sum(len(_images(p)) for p in reader.pages[::2]) == n


def test_backs_are_mirrored_for_printing_on_the_reverse(tmp_path):
    written = deck_pdf("standard", tmp_path / "deck.pdf", "a4", px_per_mm=1.0)
    reader = PdfReader(written.path)
    page_w = _size_mm(reader.pages[0])[0]
    # the last sheet is partly filled: 54 cards, 9 a sheet -> full; use the grid itself too
    grid = card_grid("standard", "a4")
    fronts, backs = _images(reader.pages[0]), _images(reader.pages[1])
    for (fx, fy, fw, _), (bx, by, _, _) in zip(fronts, backs, strict=True):
        assert bx == pytest.approx(page_w - fx - fw, abs=0.01)  # flipped on the long edge
        assert by == pytest.approx(fy, abs=0.01)
    assert grid.slot(0, back=True)[0] == pytest.approx(grid.slot(grid.cols - 1)[0])


def test_a_partly_filled_sheet_keeps_each_back_behind_its_front(tmp_path):
    written = deck_pdf("yokir", tmp_path / "yokir.pdf", "letter", px_per_mm=1.0)
    reader = PdfReader(written.path)
    page_w = _size_mm(reader.pages[0])[0]
    fronts, backs = _images(reader.pages[-2]), _images(reader.pages[-1])
    assert 0 < len(fronts) == len(backs) < 9
    mirrored = sorted((round(page_w - x - w, 2), round(y, 2)) for x, y, w, _ in fronts)
    assert sorted((round(x, 2), round(y, 2)) for x, y, _, _ in backs) == mirrored


def test_a_mat_is_tiled_at_true_scale_with_overlaps(tmp_path):
    mat = get_mat("yokir")
    written = mat_pdf("yokir", tmp_path / "mat.pdf", "a4", px_per_mm=1.0)
    reader = PdfReader(written.path)
    tiling = mat_tiling(mat, "a4")
    assert tiling.sheets > 1 and len(reader.pages) == tiling.sheets == written.pages
    page = _size_mm(reader.pages[0])
    assert sorted(page) == pytest.approx([210.0, 297.0], abs=0.05)
    tiles = [_images(p)[0] for p in reader.pages]
    widths = [w for _, _, w, _ in tiles[:tiling.cols]]
    heights = [h for _, _, _, h in tiles[::tiling.cols]]
    # the tiles of a row cover the mat's width once, plus the strips they share
    overlap_x = sum(widths) - mat.size_mm[0]
    overlap_y = sum(heights) - mat.size_mm[1]
    assert overlap_x == pytest.approx((tiling.cols - 1) * (tiling.tile[0] - tiling.step[0]), abs=1.5)
    assert overlap_y == pytest.approx((tiling.rows - 1) * (tiling.tile[1] - tiling.step[1]), abs=1.5)
    assert tiling.tile[0] - tiling.step[0] >= 12.0 - 1e-6
    for x, y, w, h in tiles:
        assert x >= 9.0 and y >= 9.0 and x + w <= page[0] - 9.0 and y + h <= page[1] - 9.0


def test_sheets_are_as_few_as_the_paper_allows():
    yokir = mat_tiling(get_mat("yokir"), "a3")  # 480 x 400 mm; A3 less margins is 277 x 400 mm
    assert (yokir.cols, yokir.rows) == (2, 1)
    assert mat_tiling(get_mat("piktas", 11), "a4").sheets > mat_tiling(get_mat("piktas", 11), "a3").sheets
    small = MatSpec("test", (250.0, 180.0), 0, (), ())
    assert mat_tiling(small, "a4").sheets == 1


def test_bad_paper_is_an_error_naming_the_choices(tmp_path):
    with pytest.raises(BadPaper, match=r"unknown paper 'a5': choose a4, letter"):
        deck_pdf("yokir", tmp_path / "x.pdf", "a5")
    with pytest.raises(BadPaper, match=r"unknown paper 'tabloid': choose a3, a4, letter"):
        mat_pdf("yokir", tmp_path / "x.pdf", "tabloid")


def test_deck_pdf_and_mat_pdf_commands_write_and_say_what(tmp_path, capsys):
    out = tmp_path / "sub" / "ideal.pdf"
    out.parent.mkdir()  # an output's folder must exist (companion.outputs)
    assert main(["deck", "pdf", "medieval-mastery", "-o", str(out), "--paper", "letter",
                 "--px-per-mm", "1"]) == 0
    said = capsys.readouterr().out
    assert str(out) in said and "130 cards of the IDEAL deck" in said
    assert _size_mm(PdfReader(out).pages[0]) == pytest.approx((215.9, 279.4), abs=0.05)
    mat_out = tmp_path / "piktas-mat.pdf"
    assert main(["mat", "pdf", "piktas", "-o", str(mat_out), "--paper", "a3", "--players", "6",
                 "--px-per-mm", "1"]) == 0
    said = capsys.readouterr().out
    assert "the Piktas mat for 6 players (594 x 420 mm)" in said
    assert len(PdfReader(mat_out).pages) == mat_tiling(get_mat("piktas", 6), "a3").sheets


@pytest.mark.parametrize(("args", "words"), [
    (["deck", "pdf", "yokir", "-o", "x.pdf", "--paper", "a3"], "invalid choice: 'a3'"),
    (["deck", "pdf", "tarot", "-o", "x.pdf"], "unknown deck 'tarot'"),
    (["deck", "pdf", "ahyoheek", "-o", "x.pdf"], "has no card art"),
    (["deck", "pdf", "yokir"], "the following arguments are required: -o/--output"),
    (["deck", "pdf", "yokir", "-o", "x.pdf", "--px-per-mm", "0"], "must be 1 to 40 pixels per mm, got '0'"),
    (["mat", "pdf", "chess", "-o", "x.pdf"], "no mat for game 'chess'"),
    (["mat", "pdf", "yokir", "-o", "x.pdf", "--paper", "b4"], "invalid choice: 'b4'"),
    (["mat", "pdf", "yokir", "-o", "x.pdf", "--players", "5"], "the Yokir mat seats 3 players, got 5"),
    (["mat", "pdf", "piktas", "-o", "x.pdf", "--players", "many"], "invalid int value: 'many'"),
    (["mat", "pdf", "yonac", "-o", "."], "an output must be a file, and"),
])
def test_bad_arguments_are_one_line_errors(args, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and err.startswith("companion: error: ")
