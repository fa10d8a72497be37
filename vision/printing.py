"""Print-and-play PDFs: a deck at true card size with cutting guides and backs, and a
game's play mat at true size, tiled over several sheets with alignment targets when the
paper is smaller than the mat.

The pictures are the same drawings the camera is matched against (`vision.art`), drawn at
print resolution; the PDF places them at their size in millimetres, so a sheet printed at
100% ("actual size") gives cards of 63 x 88 mm (Piktas 76 x 76 mm) and a mat whose markers
are where `vision.mats` says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from fpdf import FPDF
from PIL import Image

from companion.cards import get_deck
from companion.errors import CompanionError
from companion.outputs import write_output
from vision.art import deck_art, render_back, render_card
from vision.art.mat import render_mat
from vision.mats import MatSpec, get_mat

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4),
                                          "a3": (297.0, 420.0)}
DECK_PAPERS = ("a4", "letter")
MAT_PAPERS = ("a3", "a4", "letter")
CARD_MARGIN_MM = 6.0  # the least paper left around a sheet of cards
MAT_MARGIN_MM = 10.0  # around each mat tile: room for the labels and the printer's edge
MAT_OVERLAP_MM = 12.0  # neighbouring mat tiles share this much, to trim and glue
DECK_PX_PER_MM = 12.0  # about 300 dpi
MAT_PX_PER_MM = 6.0  # flat colours and markers need less


class BadPaper(CompanionError, ValueError):
    """A paper size we do not print on."""


@dataclass(frozen=True)
class Written:
    """What a PDF writer made: the file, its pages and what is on them."""

    path: Path
    pages: int
    what: str


def paper_size(paper: str, allowed: tuple[str, ...]) -> tuple[float, float]:
    """(width, height) mm of a portrait sheet; BadPaper naming the choices otherwise."""
    key = str(paper).strip().lower()
    if key not in allowed:
        raise BadPaper(f"unknown paper {paper!r}: choose {', '.join(allowed)}")
    return PAPERS[key]


def _pil(image: np.ndarray) -> Image.Image:
    return Image.fromarray(np.ascontiguousarray(image[:, :, ::-1]))


def _new_pdf(size: tuple[float, float], title: str) -> FPDF:
    pdf = FPDF(unit="mm", format=size)
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    pdf.set_creator("Table Companion")
    pdf.set_title(title)
    pdf.set_font("helvetica", size=7)
    return pdf


# --- decks ------------------------------------------------------------------------------

@dataclass(frozen=True)
class CardGrid:
    """Where cards go on a sheet: `cols` x `rows` cards of `card` mm, the grid's top-left
    at `origin`, on a sheet of `page` mm."""

    page: tuple[float, float]
    card: tuple[float, float]
    cols: int
    rows: int
    origin: tuple[float, float]

    @property
    def per_page(self) -> int:
        return self.cols * self.rows

    def slot(self, i: int, back: bool = False) -> tuple[float, float]:
        """Top-left of the i-th card; on a backs page the columns are mirrored, so that a
        back printed on the reverse (flipped on the long edge) meets its front."""
        row, col = divmod(i, self.cols)
        if back:
            col = self.cols - 1 - col
        return self.origin[0] + col * self.card[0], self.origin[1] + row * self.card[1]


def card_grid(deck: str, paper: str = "a4") -> CardGrid:
    """The most cards of `deck` that fit a sheet of `paper`, upright, touching, centred."""
    card = deck_art(deck).size_mm
    portrait = paper_size(paper, DECK_PAPERS)
    best: CardGrid | None = None
    for page in (portrait, portrait[::-1]):
        cols = int((page[0] - 2 * CARD_MARGIN_MM) // card[0])
        rows = int((page[1] - 2 * CARD_MARGIN_MM) // card[1])
        origin = ((page[0] - cols * card[0]) / 2, (page[1] - rows * card[1]) / 2)
        grid = CardGrid(page, card, cols, rows, origin)
        if best is None or grid.per_page > best.per_page:
            best = grid
    assert best is not None and best.per_page > 0
    return best


def _cut_guides(pdf: FPDF, grid: CardGrid, used: int) -> None:
    """Hairlines on the card edges and crop marks out in the margin at every cut."""
    cw, ch = grid.card
    x0, y0 = grid.origin
    rows = math.ceil(used / grid.cols)
    cols = grid.cols if rows > 1 else used
    x1, y1 = x0 + cols * cw, y0 + rows * ch
    pdf.set_line_width(0.1)
    pdf.set_draw_color(170, 170, 170)
    for c in range(cols + 1):
        pdf.line(x0 + c * cw, y0, x0 + c * cw, y1)
    for r in range(rows + 1):
        pdf.line(x0, y0 + r * ch, x1, y0 + r * ch)
    pdf.set_line_width(0.25)
    pdf.set_draw_color(0, 0, 0)
    reach = min(6.0, x0 - 1.0, y0 - 1.0)
    for c in range(cols + 1):
        x = x0 + c * cw
        pdf.line(x, y0 - 1.0 - reach, x, y0 - 1.0)
        pdf.line(x, y1 + 1.0, x, y1 + 1.0 + reach)
    for r in range(rows + 1):
        y = y0 + r * ch
        pdf.line(x0 - 1.0 - reach, y, x0 - 1.0, y)
        pdf.line(x1 + 1.0, y, x1 + 1.0 + reach, y)


def _footer(pdf: FPDF, page: tuple[float, float], text: str) -> None:
    pdf.set_text_color(90, 90, 90)
    pdf.set_xy(0, page[1] - 5.0)
    pdf.cell(page[0], 3.0, text, align="C")


def deck_pdf(deck: str, path: str | Path, paper: str = "a4", px_per_mm: float = DECK_PX_PER_MM) -> Written:
    """Write the print-and-play PDF of a deck: each sheet of fronts followed by a sheet of
    their backs, mirrored for double-sided printing."""
    art = deck_art(deck)
    cards = get_deck(art.deck).cards
    grid = card_grid(art.deck, paper)
    title = get_deck(art.deck).title
    pdf = _new_pdf(grid.page, f"{title} deck, print and play")
    back = _pil(render_back(art.deck, px_per_mm))
    sheets = math.ceil(len(cards) / grid.per_page)
    w, h = grid.card
    for sheet in range(sheets):
        chunk = cards[sheet * grid.per_page:(sheet + 1) * grid.per_page]
        pdf.add_page()
        for i, card in enumerate(chunk):
            x, y = grid.slot(i)
            pdf.image(_pil(render_card(art.deck, card.code, px_per_mm)), x, y, w, h)
        _cut_guides(pdf, grid, len(chunk))
        _footer(pdf, grid.page, f"{title} deck - fronts, sheet {sheet + 1} of {sheets} - print at 100% "
                                f"(actual size): each card is {w:g} x {h:g} mm")
        pdf.add_page()
        for i in range(len(chunk)):
            x, y = grid.slot(i, back=True)
            pdf.image(back, x, y, w, h)
        _cut_guides_mirrored(pdf, grid, len(chunk))
        _footer(pdf, grid.page, f"{title} deck - backs of sheet {sheet + 1}: print on the reverse, "
                                "flipping on the long edge")
    out = Path(path)
    write_output(out, bytes(pdf.output()))
    return Written(out, pdf.pages_count, f"{len(cards)} cards of the {title} deck on {sheets} sheets "
                                         f"of {paper} ({grid.cols} x {grid.rows} per sheet) with backs")


def _cut_guides_mirrored(pdf: FPDF, grid: CardGrid, used: int) -> None:
    """The guides of a backs page: the fronts' guides, mirrored like the cards."""
    if used >= grid.cols or used == 0:
        _cut_guides(pdf, grid, used)
        return
    shifted = CardGrid(grid.page, grid.card, grid.cols, grid.rows,
                       (grid.origin[0] + (grid.cols - used) * grid.card[0], grid.origin[1]))
    _cut_guides(pdf, shifted, used)


# --- mats -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Tiling:
    """How a mat is cut into sheets: `cols` x `rows` tiles of `tile` mm (the last ones may
    be smaller), `step` mm apart, on sheets of `page` mm."""

    page: tuple[float, float]
    cols: int
    rows: int
    tile: tuple[float, float]
    step: tuple[float, float]

    @property
    def sheets(self) -> int:
        return self.cols * self.rows

    def region(self, col: int, row: int, mat: tuple[float, float]) -> tuple[float, float, float, float]:
        """(x, y, w, h) mm of the mat on sheet (col, row)."""
        x, y = col * self.step[0], row * self.step[1]
        return x, y, min(self.tile[0], mat[0] - x), min(self.tile[1], mat[1] - y)


def mat_tiling(mat: MatSpec, paper: str = "a4") -> Tiling:
    """The fewest sheets of `paper` (either way round) that cover the mat with overlaps."""
    portrait = paper_size(paper, MAT_PAPERS)
    w, h = mat.size_mm
    best: Tiling | None = None
    for page in (portrait[::-1], portrait):
        aw, ah = page[0] - 2 * MAT_MARGIN_MM, page[1] - 2 * MAT_MARGIN_MM
        cols = 1 if w <= aw else math.ceil((w - MAT_OVERLAP_MM) / (aw - MAT_OVERLAP_MM))
        rows = 1 if h <= ah else math.ceil((h - MAT_OVERLAP_MM) / (ah - MAT_OVERLAP_MM))
        tile = (min(aw, w), min(ah, h))
        step = ((w - tile[0]) / (cols - 1) if cols > 1 else 0.0,
                (h - tile[1]) / (rows - 1) if rows > 1 else 0.0)
        tiling = Tiling(page, cols, rows, tile, step)
        if best is None or tiling.sheets < best.sheets:
            best = tiling
    assert best is not None
    return best


def _target(pdf: FPDF, x: float, y: float) -> None:
    """An alignment target: a ring and a cross."""
    pdf.set_draw_color(255, 255, 255)
    pdf.set_line_width(0.6)
    pdf.circle(x, y, 3.0)
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.2)
    pdf.circle(x, y, 3.0)
    pdf.line(x - 6.0, y, x + 6.0, y)
    pdf.line(x, y - 6.0, x, y + 6.0)


def mat_pdf(game: str, path: str | Path, paper: str = "a4", players: int | None = None,
            px_per_mm: float = MAT_PX_PER_MM) -> Written:
    """Write the play mat of `game` at true size: one sheet if it fits, otherwise tiles that
    overlap, with targets to line them up and dashed lines to trim along."""
    mat = get_mat(game, players)
    tiling = mat_tiling(mat, paper)
    image = render_mat(mat, px_per_mm)
    pdf = _new_pdf(tiling.page, f"{mat.title} play mat")
    w, h = mat.size_mm
    for row in range(tiling.rows):
        for col in range(tiling.cols):
            x, y, tw, th = tiling.region(col, row, mat.size_mm)
            px0, py0 = round(x * px_per_mm), round(y * px_per_mm)
            px1, py1 = round((x + tw) * px_per_mm), round((y + th) * px_per_mm)
            crop = _pil(image[py0:py1, px0:px1])
            # mat point (X, Y) lands at (margin + X - x, margin + Y - y) on this sheet; the
            # crop is placed by its own pixel edges, so tiles stay exact at true scale
            origin = (MAT_MARGIN_MM - x, MAT_MARGIN_MM - y)
            left, top = origin[0] + px0 / px_per_mm, origin[1] + py0 / px_per_mm
            size = ((px1 - px0) / px_per_mm, (py1 - py0) / px_per_mm)
            pdf.add_page()
            pdf.image(crop, left, top, *size)
            pdf.set_draw_color(120, 120, 120)
            pdf.set_line_width(0.1)
            pdf.rect(left, top, *size)
            _tile_marks(pdf, tiling, col, row, (x, y, tw, th), origin)
            label = (f"{mat.title} mat, {mat.players} players ({w:g} x {h:g} mm) - sheet {row + 1}.{col + 1} "
                     f"(row {row + 1} of {tiling.rows}, column {col + 1} of {tiling.cols}) - print at 100%")
            pdf.set_text_color(60, 60, 60)
            pdf.set_xy(MAT_MARGIN_MM, 3.0)
            pdf.cell(tiling.page[0] - 2 * MAT_MARGIN_MM, 4.0, label, align="L")
            _scale_bar(pdf, tiling.page)
    out = Path(path)
    write_output(out, bytes(pdf.output()))
    return Written(out, pdf.pages_count, f"the {mat.title} mat for {mat.players} players ({w:g} x {h:g} mm) "
                                         f"on {tiling.sheets} sheet{'s' * (tiling.sheets > 1)} of {paper} "
                                         f"({tiling.cols} x {tiling.rows})")


def _tile_marks(pdf: FPDF, tiling: Tiling, col: int, row: int, region: tuple[float, float, float, float],
                origin: tuple[float, float]) -> None:
    """Targets and trim lines in the strips this tile shares with its neighbours. Both
    neighbours print them at the same mat positions; `origin` is where mat (0, 0) would be
    on this page."""
    x, y, tw, th = region
    ox, oy = origin
    pdf.set_dash_pattern(dash=2.0, gap=1.5)
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.2)
    strips_x = []  # mat x of the middles of the strips shared with the left and right tiles
    if col > 0:
        strips_x.append((col * tiling.step[0] + (col - 1) * tiling.step[0] + tiling.tile[0]) / 2)
    if col < tiling.cols - 1:
        strips_x.append(((col + 1) * tiling.step[0] + col * tiling.step[0] + tiling.tile[0]) / 2)
    strips_y = []
    if row > 0:
        strips_y.append((row * tiling.step[1] + (row - 1) * tiling.step[1] + tiling.tile[1]) / 2)
    if row < tiling.rows - 1:
        strips_y.append(((row + 1) * tiling.step[1] + row * tiling.step[1] + tiling.tile[1]) / 2)
    for sx in strips_x:
        pdf.line(ox + sx, oy + y, ox + sx, oy + y + th)
    for sy in strips_y:
        pdf.line(ox + x, oy + sy, ox + x + tw, oy + sy)
    pdf.set_dash_pattern()
    for sx in strips_x:
        for k in (1, 2, 3):
            _target(pdf, ox + sx, oy + y + th * k / 4)
    for sy in strips_y:
        for k in (1, 2, 3):
            _target(pdf, ox + x + tw * k / 4, oy + sy)


def _scale_bar(pdf: FPDF, page: tuple[float, float]) -> None:
    """A 50 mm bar in the bottom margin, to check the printer kept the scale."""
    x, y = MAT_MARGIN_MM, page[1] - 6.0
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.4)
    pdf.line(x, y, x + 50.0, y)
    pdf.line(x, y - 1.5, x, y + 1.5)
    pdf.line(x + 50.0, y - 1.5, x + 50.0, y + 1.5)
    pdf.set_xy(x + 53.0, y - 1.8)
    pdf.cell(80.0, 3.6, "50 mm: measure to check the print is at actual size")
