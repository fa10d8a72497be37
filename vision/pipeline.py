"""The recognition pipeline: frames in, cards and table observations out.

    frame -> mat markers -> homography (held through brief covering) -> top-down view
          -> card quads -> identities (cached per card while it lies still) -> tracker
          -> zone observations

Without a mat the cards are found in a downscaled frame directly, and the scale (and so
the table millimetres the tracker works in) comes from the cards' own size.

`Recognizer.see` is one frame's cards and occluders, with no memory but the identity
cache and the held homography; `Recognizer.process` adds the tracker and returns the
observations. Every stage is a plain function of its own module (homography, detect,
identify, track, zones); this module only wires them and converts coordinates.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.observation import Observation, Question
from vision.detect import (
    ROLL,
    BlobMemo,
    CardQuad,
    DetectParams,
    Masks,
    find_cards,
    grey_at,
    grow,
    has_dark_cards,
    masks,
    occluders,
    order_quad,
    short_long,
    signed_area,
)
from vision.fit import edge_field, fit_rectangles, nudges, rectangle, refined, shifted, sides_fitted
from vision.homography import (
    FOUND,
    HELD,
    LOST,
    MatLock,
    MatState,
    find_markers,
    mat_only,
    to_plane,
    top_down,
)
from vision.identify import IdentifyParams, Identity, Prior, identify, warp_card
from vision.indices import IndexParams, find_index_cards
from vision.mats import QUIET_MM, MatSpec
from vision.outline import find_outlines, side_edges
from vision.tables import plain_table
from vision.templates import Templates, deck_templates, is_back
from vision.track import ALL, HOLD, Detection, Place, StableCard, Tracker, TrackParams
from vision.zones import locator, zone_at

log = logging.getLogger(__name__)
_Box = tuple[float, float, float, float]  # x0, y0, x1, y1
#: Resolution (px/mm) of the picture of a card the screen asks about.
QUESTION_PPM = 3.0
#: A card is identified on a crop of the frame reaching this far (mm) past its outline.
CROP_PAD_MM = 10.0


@dataclass(frozen=True)
class PipelineParams:
    """How the stages are run; docs/vision.md says why each default is what it is."""

    detect_ppm: float = 1.25  # resolution of the top-down view the cards are found in
    view_margin_mm: float = 30.0  # the view reaches this far past the mat's edges ...
    #: ... but only the mat's own printed area is looked at: the view is the mat's pixels
    #: from this far inside its edge, and the mat's edge continued outward (so the table's
    #: colour around the mat never matters).
    mat_inset_mm: float = 3.0
    direct_width: int = 640  # without a mat: width of the downscaled frame searched
    #: ... unless the whole cards found there on the first frame with any are narrower
    #: than this (their median short side, px): then the frame is searched at
    #: `direct_fine_width` (or its own size if smaller) from then on (a wide lens, a high
    #: camera: cards cut 20 px wide go unread; on the room bench, searching 1280x720
    #: frames at sizes between 640 and 1280 did worse than either).
    direct_card_px: float = 48.0
    direct_fine_width: int = 1920
    #: Without a mat, once the cards' size is known, an unread card is searched for as a
    #: rectangle of that size on the edges nearby (`vision.fit`): the `fit_tries` likeliest
    #: are read, and one reading `fit_min_score` or more is the card.
    fit: bool = True
    fit_tries: int = 3
    fit_min_score: float = 0.8
    #: ... or `fit_clear_score` with a lead of `fit_clear_margin` over the next card (a
    #: wide lens's soft picture: cards read 0.72 to 0.8 at their true outline, with leads
    #: of 0.15 to 0.45; no fitted rectangle read wrongly reached 0.64 with a lead of 0.1)
    fit_clear_score: float = 0.72
    fit_clear_margin: float = 0.15
    #: ... a rectangle read as one card with that lead, at `fit_polish_from` or more but
    #: not clearly, is moved a little while it reads better (`Recognizer._polished`)
    fit_polish_from: float = 0.55
    fit_polish_rounds: int = 4
    #: ... and among the few read again moved (`fit_jitter`, below), one read with a lead
    #: under `fit_clear_margin`, down to this one, is polished too (None: only with that
    #: lead); polished up from there it names the card only at `fit_min_score` with that
    #: lead both (`Recognizer._polish_ok`). At 1536x864 through the wide lens an IDEAL SC's
    #: rectangles read it with a small lead over WC (its true outline: 0.97 with 0.14):
    #: IDEAL room-wide@1536x864 84 -> 85 of 86. Named at 0.72 with 0.15 so, a rectangle
    #: on bare table came to read a Piktas beetle at 0.73 with 0.152. Not in the search
    #: beside named cards (no cut says a card lies there), nor for every rectangle read:
    #: those doubled and quadrupled the readings of a cold frame of the standard room.
    fit_polish_margin: float | None = 0.0
    #: ... and where none of them reads a card clearly or well enough to polish, the
    #: `fit_jitter_tries` that read some card (not a back) best, at `fit_jitter_from` or
    #: more, are read again moved `fit_jitter` px each of eight ways (`Recognizer._jittered`):
    #: through the wide lens a card's index is found only within a pixel or two of where
    #: its outline puts it. Room rows without a mat: IDEAL 73, 65, 70, 74 -> 77, 71, 75,
    #: 74 cards; standard 62, 51, 50, 43 -> 62, 53, 52, 44; none wrong. 3 px named 3 cards
    #: wrongly, 1.5 px found 3 fewer, and one try instead of two 2 fewer. Every card so
    #: named had first read 0.36 or more.
    fit_jitter: float = 2.0
    fit_jitter_from: float = 0.35
    fit_jitter_tries: int = 2
    #: ... for cards under `fit_jitter_px` frame pixels wide only: on a larger card the
    #: index's search window spans more than the step. (Real photos, untaught, 31 of them:
    #: 896 -> 1175 ms a photo with the re-reads even so, the same 29 cards named: their
    #: cards are mostly under 120 px. A lower limit is not yet measured.)
    fit_jitter_px: float = 120.0
    #: ... and before that, each read with its sides laid each on its own edge within
    #: this much of its short side (`vision.fit.sides_fitted`): a card the camera sees
    #: tilted is a trapezoid, which no rectangle fits (IDEAL room 82 -> 84 of 86,
    #: room-wide@1536x864 80 -> 81; nothing else changed in the room rows, typical and
    #: glare). Such a reading names the card only at `fit_min_score` with a lead of
    #: `fit_clear_margin`, and is not kept among the frame's readings: with the bar of
    #: 0.72 a Piktas jackal read 0.727 as a bat, with a lead of 0.24; at 0.8 with any lead
    #: an untaught real KS read 0.859 as KC, a lead of 0.011 (IMG_2589); on the room rows
    #: no such reading that was wrong reached 0.77.
    fit_sides: float = 0.15
    #: ... and where cards stay unread after that while `refit_named` whole cards or more
    #: are named, those cards flatten the table again and the unread are fitted once more
    #: in that view: the first flattening rests on the few cards named before any was
    #: fitted, often close together, and far from them it is off.
    refit: bool = True
    refit_named: int = 3
    #: ... and last, where cards are still unread, once more (and the stretched search
    #: with it) in the view flattened by every named card, those partly under others too
    #: (their fitted outlines): through the tilted wide lens a column of cards lying
    #: crosswise at the picture's side was 41 by 49 px where the others were 40 by 62,
    #: and the few whole named cards flattened no view (IDEAL room-wide 82 -> 85 of 86,
    #: standard 61 -> 62 of 62; the other room rows, typical and glare unchanged or
    #: better, none wrong). Done in place of the first refit, the searches after it in the
    #: new view lost two cards that the old view found. The search beside named cards
    #: runs in that view too only where no whole named cards flattened a view before
    #: (`refit_partial_neighbours`: always; on the standard room it doubled a cold frame's
    #: readings, and without it IDEAL room-wide and @1536x864 lost a card each).
    refit_partial: bool = True
    refit_partial_neighbours: bool = False
    #: ... and where a named card lies within `fit_neighbour_reach` of a card's long side
    #: turned otherwise than the cut (beyond `fit_turns`, by quarters), the rectangles
    #: are also searched turned as it lies: the cut of a card between two named ones in a
    #: column came 25 degrees askew.
    fit_neighbour_reach: float = 1.5
    #: ... and where the cut is skewed (its two pairs of sides differ by more than
    #: `fit_turns` allow), as many rectangles again turned as its second pair of sides
    #: lies, read after the first (and moved about only after them): a lone Piktas
    #: jackal cut as a parallelogram, one pair of sides 15 degrees askew (Piktas
    #: unstraightened 98 -> 99 of 102, IDEAL room 84 -> 85, typical 85 -> 86; the other
    #: room rows and glare unchanged, none wrong). Merged with the first by their edges'
    #: scores, or moved about first, they crowded out rectangles that read other cards.
    fit_skewed: bool = True
    #: ... and cards still unread after that, once more with their sides stretched by
    #: these (a card lifted or far from the named cards that flatten the view is
    #: foreshortened more than `fit_stretches` allow: 53 by 63 px where its scale said 64
    #: by 75; an IDEAL card 50 by 60 where the scale said 45 by 62: its long side
    #: foreshortened, its short side not); tried only then, as more stretches among the
    #: first lost other cards.
    fit_stretches_again: tuple[tuple[float, float], ...] = ((1.0, 0.85), (0.85, 1.0), (1.0, 1.16),
                                                            (1.16, 1.0), (1.1, 0.95), (0.95, 1.1))
    fit_tries_again: int = 3
    fit_px_again: float = 70.0
    #: ... and beside each named card, a card's length or width away (and
    #: `fit_neighbour_gap` of it more) where nothing was cut and the middle differs from
    #: the table at least `fit_neighbour_contrast` times as much as the named card's does,
    #: a card is searched for as for an unread one (`Recognizer._with_neighbours`).
    fit_neighbours: bool = True
    fit_neighbour_gap: float = 0.03
    fit_neighbour_contrast: float = 0.5
    #: ... centred within this much of a card's long side of the place beside it
    fit_neighbour_search: float = 0.2
    #: ... also where an unread cut lies there (its own search found nothing, and the
    #: place beside a named card is a different guess: the Piktas woman touching the
    #: named raven, unstraightened, 99 -> 100 of 102; the other room rows, typical and
    #: glare unchanged, none wrong)
    fit_neighbours_in_unread: bool = True
    #: Without a mat, blobs of the bright mask that no card found covers, from
    #: `fit_blob_area` of a card's area to a card and a fifth, are searched as unread
    #: cards (`Recognizer._with_blobs`): a card partly under a hand makes one blob with
    #: it, and no quad.
    fit_blobs: bool = True
    fit_blob_area: float = 0.4
    #: Without a mat, a fitted rectangle's corner under a hand (under `fit_paper_seen`
    #: of the bright mask near it inside the rectangle shows paper) is not seen, as one
    #: under a named card is not, where `fit_paper_corners` of the named cards' corners
    #: show paper in this frame (pastel cards printed to their edges do not), and the
    #: reading so counts only at `fit_min_score`: read from one index, a SC under a
    #: neighbour read TW at 0.72 with a lead of 0.16, where the yokir ST under a hand read
    #: 0.965 with 0.38 and was unread before (0.64 from both indices).
    fit_paper_seen: float = 0.3
    fit_paper_corners: float = 0.75
    #: Without a mat, a card left unread where a quad in the same place (IoU at least
    #: `keep_clear_iou`, over no named card by more than `keep_clear_named`) was read
    #: clearly this frame (`Recognizer._with_clear_reads`) is the card read there.
    keep_clear_reads: bool = True
    keep_clear_iou: float = 0.6
    keep_clear_named: float = 0.3
    #: Without a mat, a card still unread where this frame read a quad in the same
    #: place (as `keep_clear_reads`) as one card named nowhere else, at `fit_polish_from`
    #: or more but not clearly: the best such quad polished, up to `polish_reads_rounds`
    #: times (`Recognizer._with_polished_reads`). At 1536x864 through the wide lens a
    #: standard 3D 54 px wide read 0.63 with a lead of 0.007 as the half of its pair's
    #: outline, and no rectangle laid on the edges came within 6 px (the scale was its
    #: one named neighbour's, 16 % small): 60 -> 61 of 62.
    polish_reads: bool = True
    polish_reads_rounds: int = 8
    #: The rectangles are laid on the grey view's edges and the table-colour contrast's
    #: (`_table_contrast`'s first) together: a cream card on light oak has weak grey edges
    #: and plain colour ones (room rows: standard 60, 48, 46, 41 -> 62, 51, 50, 43 cards;
    #: IDEAL 75, 55, 62, 71 -> 73, 65, 70, 74; yokir 236 -> 238; Piktas the same)
    fit_colour: bool = True
    #: ... searched on a grid of this fraction of the card's short side, at these turns
    #: (degrees) from the cut's, then each of the likeliest refined (`vision.fit.refined`;
    #: a grid twice as coarse and three turns cost 110 ms where this costs 190 on a cold
    #: IDEAL room-wide frame here, and found 13 fewer cards in the room rows)
    fit_step: float = 1 / 30
    fit_turns: tuple[float, ...] = (-4.0, -2.0, 0.0, 2.0, 4.0)
    #: ... each also with its short or long side this much shorter or longer (without a
    #: flattened view a tilted camera shortens cards along its tilt)
    fit_stretches: tuple[tuple[float, float], ...] = ((1.0, 1.0), (1.0, 0.92), (0.92, 1.0),
                                                       (1.0, 1.08), (1.08, 1.0))
    #: With the mat, a card cut in the mat's view but not read (not a clear back, not
    #: under a hand) is searched for so too, in that view (`Recognizer._mat_fitted`): the
    #: `mat_fit_tries` likeliest rectangles centred within `mat_fit_reach` of a card's
    #: long side of the cut, their sides stretched by `mat_fit_stretches`, none polished
    #: or jittered (`mat_fit_moved`). Through the wide lens unstraightened the markers'
    #: homography is some percent off the cards' scale across the mat, and two cards
    #: overlapping in one blob were cut beside where they lie (room-wide/raw, standard:
    #: 57 -> 62 of 62; the mat's room and flaw rows otherwise the same or better, none
    #: wrong; 0.3 and 2 cost 6.0 s over the two tables where 0.5 and 3 cost 10.1 and found
    #: one card more, 0.3 and 1 4.4 s and one card fewer).
    mat_fit: bool = True
    mat_fit_tries: int = 2
    mat_fit_reach: float = 0.3
    mat_fit_stretches: tuple[tuple[float, float], ...] = ((1.0, 1.0), (1.0, 0.92), (0.92, 1.0),
                                                           (1.0, 1.08), (1.08, 1.0))
    mat_fit_moved: bool = False
    #: ... and a card searched for in vain is not searched for again, while it lies where
    #: it lay (within `cache_mm`), for this many frames (a card read by none costs 20 to
    #: 70 ms a search)
    mat_fit_retry: int = 15
    #: Without a mat, once the cards' scale is known, a whole card is one whose sides are
    #: within this of the card's size there (a tilted camera sees near cards larger than
    #: far ones); two cards side by side, a card's shape at 1.4 times its size, are not.
    direct_size_tol: float = 0.25
    #: ... and the cards are cut in the table's flattened view (`_flattening`) where
    #: three whole cards or more agree on the scale, their corners fitted within
    #: `flatten_fit_agreeing` of a card's width; else by the cards named, where three are
    #: (`flatten_named`: the cards agreeing included cuts across two cards, and no
    #: flattening fitted them), then by those agreeing, within `flatten_fit` (named cards'
    #: corners in a soft wide-lens frame are 1 to 3 px off). Room rows without a mat:
    #: IDEAL 75, 55, 58, 63 cards -> 75, 55, 62, 71; standard 54, 39, 51, 41 -> 60, 48, 46,
    #: 41 (the wide lens unstraightened loses 5). The named cards first everywhere lost
    #: IDEAL glare 2 cards (a card read through glare or not, cut a pixel apart).
    flatten: bool = True
    flatten_named: bool = True
    flatten_fit: float = 0.08
    flatten_fit_agreeing: float = 0.04
    #: ... and whole cards the deck names are read before the scale is chosen: a named
    #: card is surely one card, while a quad of a card's shape may be two cards or part
    #: of one (IDEAL, typical flaws: whole quads at 0.64, 0.57, 0.47 and 0.86 px/mm, the
    #: first two named, no two within 7 %; the smallest was taken, 0.47, and nothing in
    #: the picture was read).
    scale_named: bool = True
    #: ... and, while the scale is not yet known, so are the two halves (across its long
    #: sides) of a whole card not named: two cards side by side make a rectangle of a
    #: card's shape at 1.4 times its size, and its halves named are two cards, whose size
    #: is the scale (one half named alone counts where it reads as clearly as a fitted
    #: rectangle must, `fit_clear_score`: in a real photo a card lying across another,
    #: their outline's half read KS at 0.60 where a KD lay, and set the scale wrongly).
    #: Through the room bench's wide lens, touching pairs were most of some frames' whole
    #: cards, and the scale came 15 to 30 % small. Room rows without a mat: standard 53,
    #: 52, 44 -> 60, 61, 58 of 62 (wide, wide unstraightened, @1536x864); IDEAL 71, 75 ->
    #: 71, 80 of 86 (wide, unstraightened), typical 79 -> 83; none wrong.
    #: ... where the halves' short sides are under `split_pairs_px` frame pixels: two
    #: cards merge into one outline where their shared edge is a pixel or two wide, small
    #: cards (the wide lens: 40 to 55 px). (Real photos, untaught, 31 of them: 1138 ->
    #: 1175 ms a photo with the halving, the same 29 cards named.)
    split_pairs: bool = True
    split_pairs_px: float = 120.0
    #: Without a mat, the whole cards that set the scale are also looked for in the
    #: colour images (`_table_contrast`), not only in the grey frame.
    scale_contrast: bool = True
    #: Without a mat, a card cut from its corners but not read may lie the other way
    #: round: two cards overlapping in one blob, landscape, were cut portrait. Each of
    #: its seen corners also holds the card turned a quarter (`_with_turned`), tried
    #: when it is not read as cut.
    turned: bool = True
    #: ... and one cut the right way round, its short side this many frame pixels or more,
    #: also lies with its far sides moved onto the edges nearby (a tilted camera, one
    #: scale for the picture: IDEAL typical 71 -> 76 of 86 named). Smaller cards so moved
    #: were named wrongly three times in the room bench (the standard deck, wide lens).
    turned_same_px: float = 60.0
    #: A turned place is taken only when read at this score at least: in a real photo a
    #: fan of three cards, cut as one landscape card at a wrong scale, turned, read AD at
    #: 0.745 where an AH lay.
    turned_min_score: float = 0.8
    #: Without a mat, once the scale is known, cards are also cut from two colour
    #: images where the grey frame shows them poorly (`_table_contrast`): a card's
    #: distance in colour from the table, and, on a table of a strong colour (its median
    #: saturation at least `table_saturation`), how little colour it has. A card found
    #: there joins only where it overlaps no card already found by more than a tenth
    #: of its area. Room bench without a mat: standard, room 0.26 -> 0.48; IDEAL, white
    #: table 0.22 -> 0.50.
    table_contrast: bool = True
    table_saturation: float = 60.0
    #: ... and on a table whose grey is `white_table` or more (its median: white laminate
    #: 229, light oak 184, a checked cloth 172), where no card can be brighter than the
    #: table, a card in the colour contrasts need differ from the table there by only
    #: `contrast_min_contrast` (where `detect.min_contrast` asks 28): Piktas's pastel trump
    #: cards on white laminate (a distance of about 30 on a table of 5) went unfound, 14
    #: of 128 cards. Everywhere, 18 found 15 more cards in the room rows, lost 15 others
    #: and named one wrongly; on white tables alone: yokir 49 -> 53 of 53, Piktas 114 ->
    #: 128 of 128, IDEAL 106 -> 109 of 109.
    white_table: float = 200.0
    contrast_min_contrast: float = 18.0
    #: Without a mat, on a checked cloth (a pattern of paper-white squares on a table of
    #: a strong colour, `vision.tables`): the cards are found in the grey frame with the
    #: cloth painted over (the squares touching a card are no part of it), and the colour
    #: contrasts, which show the cloth's squares as brightly as the cards, are not cut.
    table_pattern: bool = True
    #: Without a mat, a card pixel in the grey frame is brighter than the table there by
    #: this fraction of the table's brightness (with `detect.min_contrast` grey levels at
    #: least), where the mat's view asks `detect.rel_contrast`: a cream card on light oak
    #: under a warm lamp is 25 to 35 % brighter than the wood, and at 0.30 only its
    #: brightest patches were (the room bench without a mat: standard, room 0.50 -> 0.65).
    direct_rel_contrast: float = 0.15
    #: Without a mat, the scale most whole cards agree with: cards within this fraction
    #: of each other's scale agree (a tilted camera, the wide lens straightened: cards of
    #: one picture at 0.35 to 0.42 px/mm, none within 7 % of another, and the smallest,
    #: a card cut short, set the scale).
    scale_cluster: float = 0.12
    marker_scale: float = 0.5  # markers are searched in a frame this much smaller
    marker_every: int = 2  # while the mat is in view, search its markers every this many frames
    #: ... and only every this many while what changed since the last processed frame is
    #: local (at most `local_share` of the still check's cells: a card laid or taken, a
    #: hand reaching in): a mat or camera that moved changes nearly every cell.
    marker_every_local: int = 6
    local_share: float = 0.1
    #: While what changed is local and the mat holds still, only the changed part of the
    #: mat is searched for cards again (with a card's reach around it); the cards and
    #: occluders elsewhere are the last frame's. The whole mat is searched all the same at
    #: least every this many frames (0: always the whole mat). A part is searched as the
    #: whole view would be there: its masks are the whole view's (the parts pasted into
    #: the last view), and the blobs found unchanged keep their quads (detect.BlobMemo),
    #: so a card's fit differs from the whole search's only by the sensor noise outside
    #: the parts. Measured (docs/vision.md, "A still table"): the hard demos ask and err
    #: exactly as often as with 0, and one card changed 59 -> 67 frames/s at 1280x720 and
    #: 43 -> 69 at 1536x864.
    whole_every: int = 30
    cache_mm: float = 3.0  # a card whose centre moved less than this keeps its identity ...
    confirm: int = 2  # ... once this many identifications in a row agreed on it
    recheck_frames: int = 45  # and is identified again this often all the same
    #: A face-up card still unknown is read again on the next frame: the question about
    #: it reaches the screen after about a second, and every reading before it is a
    #: chance to name it (hard Yonac demos, seeds 1-8: questions 2 -> 0 from 3 frames).
    retry_unknown: int = 1
    retry_back: int = 3  # ... one lying face down (its back matched best) after this many
    min_occluder: float = 0.15  # smallest occluder worth reporting, in card areas
    #: A still table costs almost nothing: with the mat found, a frame whose mat region
    #: (downscaled this many times) differs from the last fully processed frame by no more
    #: than sensor noise in every cell but `still_cells` is that frame again. A cell has
    #: changed when it differs by more than `still_level` grey levels and 5 times the
    #: frame's noise (the median cell difference). At least every `still_refresh` frames
    #: the frame is processed all the same. 0 turns it off.
    still_scale: int = 8
    still_level: float = 10.0
    still_cells: int = 4
    still_refresh: int = 60
    #: Without a mat, until the cards' scale is known (a still photo, the first frames
    #: of a stream): look for card outlines at any scale (vision.outline) as well.
    outlines: bool = True
    #: ... and cards by their corner index alone (vision.indices: fans, cards cut by the
    #: picture's edge or half hidden), for decks with rank and suit samples.
    indices: bool = True
    index: IndexParams = field(default_factory=IndexParams)
    #: With the mat and a lores copy of the frame (the Pi camera's): find the mat and the
    #: cards in the lores copy, and fetch the full frame only to identify a card.
    detect_on_lores: bool = True
    #: ... unless the lores copy shows the mat at fewer pixels per mm than this (at the
    #: mat's middle): then the cards are found in the full frame, that frame and every
    #: one after it (still frames are still told from the lores copy). Measured in the
    #: lores copy on the room bench, where the full frames found every card: the wide
    #: lens at 1280x720, 0.35 px/mm, found the standard deck's 60 and, unstraightened,
    #: 41 of 62 (IDEAL 73 and 78 of 86); on yokir's mat, 0.44 and 0.51, unstraightened,
    #: 60 of 62 and 47 of 53 (lens-wide/raw: through a wide lens the mat's edge shows
    #: smaller than its middle). 0.41 to 0.56 also found every card elsewhere, but the
    #: full frame costs little more (the view is made at `detect_ppm` either way: a
    #: cold frame 21 ms from lores, 23 from the full frame): the standard lens shows the
    #: 4-player mats at 0.63 to 0.83 at 1280x720.
    lores_min_ppm: float = 0.6
    detect: DetectParams = field(default_factory=DetectParams)
    identify: IdentifyParams = field(default_factory=IdentifyParams)
    track: TrackParams = field(default_factory=TrackParams)


@dataclass(frozen=True)
class CardSeen:
    """One card in one frame. corners_px: in frame pixels, clockwise from the card's
    top-left (as identified; for an unknown card from any corner). center_mm: in table
    millimetres. code None: unknown. fresh: read from this frame; False where the identity
    is replayed from an earlier frame (the card lies still and keeps its cached identity,
    or the frame is the last one again), which is no new evidence of what the card is."""

    corners_px: np.ndarray
    corners_mm: np.ndarray
    code: str | None
    confidence: float
    margin: float
    place: Place
    complete: bool = True
    candidates: tuple[tuple[str, float], ...] = ()  # the likely cards, best first
    note: str = ""  # how the rules' possible cards settled the reading
    fresh: bool = True

    @property
    def weight(self) -> float:
        """How much this reading counts towards the card's identity over frames: a
        clear reading (a wide margin) several times more than one that only just passed."""
        return float(self.confidence) * min(max(float(self.margin) / 0.1, 0.2), 2.0)  # as np.clip

    @property
    def center_mm(self) -> tuple[float, float]:
        c = np.add.reduce(self.corners_mm, axis=0) / len(self.corners_mm)  # .mean(axis=0), fewer calls
        return float(c[0]), float(c[1])

    def to_json(self) -> dict:
        corners = [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners_px]
        if self.code is None:
            return {"corners": corners}
        return {"code": self.code, "corners": corners, "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class FrameResult:
    """Everything the pipeline knows about one frame."""

    index: int
    t: float
    mat: MatState | None  # None: no mat in use
    cards: list[CardSeen]
    occluders_px: list[np.ndarray]  # polygons in frame pixels
    occluders_mm: list[np.ndarray] = field(default_factory=list)  # the same in table mm
    observations: list[Observation] = field(default_factory=list)
    stable: list[StableCard] = field(default_factory=list)
    H: np.ndarray | None = None  # frame pixels -> mat mm, when the mat is known
    #: Cards lying still that could not be named: the screen asks (companion.observation).
    questions: list[Question] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)  # keys of questions whose card has gone
    warnings: list[str] = field(default_factory=list)  # identities that changed while still


@dataclass
class _Known:
    """The identity cache's memory of one card."""

    corners_mm: np.ndarray
    identity: Identity
    agree: int
    checked: int  # frame index of the last identification
    top_left_mm: np.ndarray  # where the card's top-left corner is
    alt: int = 0  # the card lies at the quad's alternative place alt - 1 (0: at the quad itself)


class Recognizer:
    """Chains the stages for one deck, with or without a mat."""

    def __init__(self, deck: str, mat: MatSpec | None = None, *, templates: Templates | None = None,
                 params: PipelineParams | None = None) -> None:
        self.params = params or PipelineParams()
        self.templates = templates if templates is not None else deck_templates(deck)
        #: a deck of distinct cards shows each once in a picture (`_once_each`)
        self._distinct = len(set(self.templates.card_codes)) == len(self.templates.card_codes)
        self.size_mm = self.templates.size_mm
        self.aspect = max(self.size_mm) / min(self.size_mm)
        faces = getattr(self.templates, "face", None)
        self._dark = faces is None or has_dark_cards(faces)  # the deck has dark cards to look for
        #: the detector's knobs without a mat (`PipelineParams.direct_rel_contrast`)
        self._direct_detect = dataclasses.replace(self.params.detect,
                                                  rel_contrast=self.params.direct_rel_contrast)
        #: ... and in the colour contrasts (`PipelineParams.contrast_min_contrast`)
        self._contrast_detect = dataclasses.replace(self._direct_detect,
                                                    min_contrast=self.params.contrast_min_contrast)
        self.mat = mat
        self.lock = MatLock(mat) if mat is not None else None
        self.tracker = Tracker(locator(mat), self.params.track)
        self._known: list[_Known] = []
        #: with the mat: where unread cards were searched for in vain (`_mat_fitted`), in
        #: mat mm, and the frame
        self._fit_tried: list[tuple[np.ndarray, int]] = []
        #: ... and where one was named so: (the cut's centre in mm, the card named, the
        #: frame, how many searches in a row named it)
        self._fit_named: list[tuple[np.ndarray, CardSeen, int, int]] = []
        self._memo = BlobMemo()
        self._mat_state: MatState | None = None
        self._markers_frame = -(10**9)
        self._markers_full = False  # markers too small for the half-size search
        self._scale: float | None = None  # without a mat: detection pixels per mm
        self._paper: np.ndarray | None = None  # without a mat: this frame's bright mask
        self._direct_f: float | None = None  # ... and the detection image's size, once chosen
        self._frame = -1
        self.identifications = 0  # how many times identify() ran (for the benchmark)
        #: What the rules say may appear next (vision.identify.Prior), set by the session.
        self.prior: Prior | None = None
        self.still_frames = 0  # frames taken as the last one again (for the benchmark)
        self._still_ref: np.ndarray | None = None  # the mat region of the last processed frame, small
        self._still_box: tuple[int, int, int, int] | None = None
        self._still_shape: tuple[int, ...] = ()
        self._last: FrameResult | None = None
        self._last_full = -(10**9)
        self._repeat = False  # this frame is the last processed one again
        self._local = False  # only a small part of the mat changed since the last processed frame
        self._small_now: tuple[tuple[int, int, int, int] | None, np.ndarray] | None = None
        #: The cells that changed since the last processed frame (with a looser level than
        #: the still check's), the still box's top-left and a cell's size in frame pixels.
        self._changed: tuple[np.ndarray, tuple[float, float], tuple[float, float]] | None = None
        #: The last processed frame's cards (quads) and occluders (polygons) in the pixels
        #: of its top-down view, and the mapping they were found under.
        self._view_quads: list[CardQuad] | None = None
        self._view_occl: list[np.ndarray] = []
        self._view_blobs: list[_Box] = []  # boxes of its bright blobs
        #: The top-down view cards were last searched in: the last whole one, with every
        #: part searched since pasted in (the masks of a part are the whole view's).
        self._view_img: np.ndarray | None = None
        self._view_H: np.ndarray | None = None
        self._last_whole = -(10**9)  # the last frame whose whole mat was searched for cards
        self._last_cards: dict[int, tuple[CardQuad, CardSeen, _Known]] = {}
        self.local_frames = 0  # frames where only the changed part was searched (for the benchmark)
        self._gray_f = 1.0  # full frame pixels per pixel of the image the mat is found in
        self._main_shape: tuple[int, ...] | None = None  # the full frame's, once seen with lores
        #: the lores copy shows the mat too coarsely to find cards in (`lores_min_ppm`)
        self._lores_coarse = False

    # -- one frame ------------------------------------------------------------

    def process(self, image: np.ndarray | Callable[[], np.ndarray], t: float, index: int | None = None,
                lores: np.ndarray | None = None) -> FrameResult:
        """One frame through every stage, the tracker included. `image` and `lores`: as
        for `see`."""
        image = image if isinstance(image, _Fetch) else _Fetch(image)
        seen = self.see(image, t, index, lores)
        if self._repeat and self.tracker.quiet:
            # a still table whose cards are all placed and settled: nothing can change
            return FrameResult(seen.index, t, seen.mat, seen.cards, seen.occluders_px, seen.occluders_mm,
                               [], self.tracker.cards, seen.H)
        if self.mat is not None and (seen.mat is None or not seen.mat.ok):
            events = self.tracker.update([], t, ALL, frame=seen.index)
        else:
            dets = [Detection(c.center_mm, c.code, c.confidence, c.corners_mm, c.weight, c.candidates, c.note,
                              fresh=c.fresh)
                    for c in seen.cards]
            held = seen.mat is not None and seen.mat.status == HELD
            events = self.tracker.update(dets, t, HOLD if held else seen.occluders_mm, frame=seen.index)
        for warning in self.tracker.warnings:
            log.warning("frame %d: %s", seen.index, warning)
        questions = [self._question(key, place, cands, centre, seen, image, t)
                     for key, place, cands, centre in self.tracker.asking]
        return FrameResult(seen.index, t, seen.mat, seen.cards, seen.occluders_px, seen.occluders_mm, events,
                           self.tracker.cards, seen.H, questions, list(self.tracker.withdrawn),
                           list(self.tracker.warnings))

    def resolve(self, key: str, code: str) -> bool:
        """A person answered the question `key`: the card lies there as `code`."""
        return self.tracker.resolve(key, code)

    def _question(self, key: str, place: Place, candidates, centre: np.ndarray, seen: FrameResult,
                  image, t: float) -> Question:
        """A question about the card lying at `centre` (table mm), with its picture."""
        crop = b""
        if seen.cards:
            card = min(seen.cards, key=lambda c: float(np.linalg.norm(np.asarray(c.center_mm) - centre)))
            frame = image() if callable(image) else image
            upright = warp_card(frame, card.corners_px, self.size_mm, QUESTION_PPM)
            ok, png = cv2.imencode(".png", upright)
            crop = png.tobytes() if ok else b""
            if not candidates and card.candidates:
                candidates = card.candidates
        return Question(key, place.zone, place.kind, tuple(candidates), place.seat, t, seen.index, crop)

    def finish(self, t: float) -> list[Observation]:
        """The end of the stream: cards missing now are reported removed."""
        return self.tracker.flush(t, self._frame)

    def see(self, image: np.ndarray | Callable[[], np.ndarray], t: float = 0.0, index: int | None = None,
            lores: np.ndarray | None = None) -> FrameResult:
        """The cards (identified) and occluders of one frame, without tracking.

        `image`: the frame (BGR), or a function that fetches it. `lores`: the same frame
        smaller and grey (the Pi camera's lores stream, its Y plane). With the mat and a
        lores copy, the mat and the cards are found in the lores copy, and the frame is
        fetched only when a card needs identifying (a crop of the full frame): a still
        table, a card taken away or a hand passing never copy the Pi camera's main
        stream. Everything returned is in the full frame's pixels all the same."""
        self._frame = self._frame + 1 if index is None else index
        fetch = image if isinstance(image, _Fetch) else _Fetch(image)
        if lores is None:
            fetch()
        self._repeat = self.mat is not None and self._is_still(lores if lores is not None else fetch())
        if self._repeat:
            self.still_frames += 1
            assert self._last is not None
            if any(c.fresh for c in self._last.cards):  # replayed: once per still run, not per frame
                self._last = dataclasses.replace(
                    self._last, cards=[dataclasses.replace(c, fresh=False) for c in self._last.cards])
            return dataclasses.replace(self._last, index=self._frame, t=t)
        p = self.params
        if self.mat is not None and lores is not None and p.detect_on_lores and not self._lores_coarse:
            if lores.ndim != 2 or lores.dtype != np.uint8:
                raise ValueError(f"a lores frame must be a grey uint8 image, got {lores.dtype} {lores.shape}")
            if self._main_shape is None:  # learnt once, from the first frame
                self._main_shape = fetch().shape[:2]
            shape = self._main_shape
            f = shape[1] / lores.shape[1]
            result = self._see_on_mat(fetch, lores, t, f)
            state = result.mat
            self._lores_coarse = state is not None and state.H is not None and \
                _px_per_mm(state.H, self.mat.size_mm) < p.lores_min_ppm
            if not self._lores_coarse:
                self._remember_still(shape, result, lores)
                return result
            # too coarse: this frame and every one after it are searched in full
        image = fetch()
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        if self.mat is not None:
            result = self._see_on_mat(fetch, gray, t, 1.0)
            self._remember_still(image.shape[:2], result, lores, image)
            return result
        return self._see_direct(image, gray, t)

    # -- a still table ----------------------------------------------------------

    def _still_small(self, image: np.ndarray) -> np.ndarray | None:
        """The mat region of a frame (or of its lores copy), still_scale times smaller."""
        if self._still_box is None or not self._still_shape:
            return None
        f = image.shape[1] / self._still_shape[1]  # a lores copy is smaller than the frame
        x0, y0, x1, y1 = (round(v * f) for v in self._still_box)
        k = max(1, round(self.params.still_scale * f))
        crop = image[y0:y1, x0:x1]
        size = (max(1, (x1 - x0) // k), max(1, (y1 - y0) // k))
        # Each cell averages a quarter of its pixels: bilinear to twice the size (2x2
        # pixels each), then areas of 2x2 of those. A bilinear copy alone leaves JPEG's
        # noise at edges (15 levels, changing from frame to frame); INTER_AREA over all
        # the pixels gives the same as this at 7 times the cost.
        half = cv2.resize(crop, (size[0] * 2, size[1] * 2), interpolation=cv2.INTER_LINEAR)
        return cv2.resize(half, size, interpolation=cv2.INTER_AREA)

    def _is_still(self, image: np.ndarray) -> bool:
        """Does the mat region look as it did in the last fully processed frame, but for
        sensor noise? Only while the mat is found (a held or lost mat has timers to run)."""
        p = self.params
        last = self._last
        self._local, self._small_now, self._changed = False, None, None
        if (p.still_scale <= 0 or last is None or last.mat is None or last.mat.status != FOUND
                or self._still_ref is None or self._frame - self._last_full >= p.still_refresh):
            return False
        small = self._still_small(image)
        if small is None or small.shape != self._still_ref.shape:
            return False
        self._small_now = (self._still_box, small)  # the next reference, if the box stays
        where = changed_map(small, self._still_ref, p.still_level)
        changed = None if where is None else int(np.count_nonzero(where))
        self._local = changed is not None and changed <= p.local_share * small.shape[0] * small.shape[1]
        if self._local and where is not None and self._still_box is not None:
            x0, y0, x1, y1 = self._still_box
            cell = ((x1 - x0) / small.shape[1], (y1 - y0) / small.shape[0])
            self._changed = (where, (float(x0), float(y0)), cell)
        # A card named but not yet confirmed by a second identification is read again on
        # the next frames: a repeated frame must not turn one wrong reading into three.
        if any(k.identity.known and k.agree < p.confirm for k in self._known):
            return False
        # Nor while the tracker is deciding anything (a card not yet placed, a removal
        # on its way): measured, a repeated frame there let a wrong card be placed once in
        # 9,600 frames (standard deck, hard flaws, seed 3) that fresh frames never placed.
        if not self.tracker.quiet:
            return False
        return changed is not None and changed <= p.still_cells

    def _remember_still(self, shape: tuple[int, ...], result: FrameResult, lores: np.ndarray | None = None,
                        image: np.ndarray | None = None) -> None:
        """Keep this frame as the still check's reference. `shape`: the full frame's;
        `lores` (else `image`, the full frame) is what is kept."""
        self._last, self._last_full = result, self._frame
        self._still_ref = None
        if result.H is None or self.mat is None:
            return
        h, w = shape[:2]
        mw, mh = self.mat.size_mm
        outline = np.array([[0, 0], [mw, 0], [mw, mh], [0, mh]], np.float64)
        corners = to_plane(outline, np.linalg.inv(result.H))
        x0, y0 = np.clip(np.floor(corners.min(axis=0)).astype(int) - 2, 0, (w, h))
        x1, y1 = np.clip(np.ceil(corners.max(axis=0)).astype(int) + 2, 0, (w, h))
        if x1 - x0 < 16 or y1 - y0 < 16:
            return
        self._still_box = (int(x0), int(y0), int(x1), int(y1))
        self._still_shape = (h, w)
        if lores is None and image is None:
            return
        if self._small_now is not None and self._small_now[0] == self._still_box:
            self._still_ref = self._small_now[1]  # made by this frame's still check
        else:
            self._still_ref = self._still_small(lores if lores is not None else image)

    # -- with a mat -------------------------------------------------------------

    def _see_on_mat(self, fetch: _Fetch, gray: np.ndarray, t: float, f: float) -> FrameResult:
        """One frame on the mat: the mat and the cards found in `gray` (the frame's grey
        copy, or its lores copy `f` times smaller), the cards identified in the frame
        (`fetch`ed only if one needs it). Returned in the full frame's pixels."""
        p = self.params
        assert self.mat is not None and self.lock is not None
        if f != self._gray_f:  # the frames' size changed: so did the mapping's pixels
            self._gray_f = f
            self.lock.reset()
            self._mat_state = None
            self._known = []
        last = self._mat_state
        since = self._frame - self._markers_frame
        if last is not None and last.status == FOUND and (
                since < p.marker_every or (self._local and since < p.marker_every_local)):
            state = last  # the mat was seen a moment ago: skip the search this frame
        else:
            state = self._find_mat(gray, t, fetch, f)
            self._markers_frame = self._frame
        self._mat_state = state
        if not state.ok:
            self._known = []
            self._view_quads, self._view_H = None, None
            return FrameResult(self._frame, t, state, [], [])
        H = state.H
        Hinv = np.linalg.inv(H)
        ppm, margin = p.detect_ppm, p.view_margin_mm
        card_px = (self.size_mm[0] * ppm, self.size_mm[1] * ppm)
        area = card_px[0] * card_px[1]
        nearby = None
        if (p.whole_every > 0 and self._local and self._changed is not None and self._view_quads is not None
                and H is self._view_H and self._frame - self._last_whole < p.whole_every):
            nearby = self._cards_nearby(gray, H, self._redo_boxes(H, f, self._view_shape()), card_px)
        if nearby is not None:
            quads, polys, self._view_blobs = nearby
            self.local_frames += 1
        else:
            view = self._top_down(gray, H)
            view = mat_only(view, self.mat.size_mm, ppm, margin, p.mat_inset_mm, 1.3 * max(card_px),
                            in_place=True)
            found = masks(view, min(card_px), p.detect)
            self._blank_markers(found, ppm, margin)
            blobs: list[_Box] = []  # the bright mask's blobs, as find_cards outlines them
            quads = find_cards(view, self.aspect, card_px, p.detect, found, self._memo, self._dark, blobs)
            polys = _polygons(occluders(found, quads, p.min_occluder * area))
            self._last_whole = self._frame
            self._view_blobs = blobs if p.whole_every > 0 else []
            self._view_img = view if p.whole_every > 0 else None
        same_mapping = H is self._view_H
        self._view_quads, self._view_occl, self._view_H = quads, polys, H

        def to_mm(q: np.ndarray) -> np.ndarray:
            return q / ppm - margin

        def to_px(q: np.ndarray) -> np.ndarray:
            return _scaled(to_plane(to_mm(q), Hinv), f).astype(np.float32)

        occl_mm = [to_mm(poly) for poly in polys]
        occl_px = [_scaled(to_plane(poly, Hinv), f).astype(np.float32) for poly in occl_mm]
        # the frame's grey copy, when `gray` is it (not the lores copy): identify's own
        # grey crop is then a crop of it, the same pixels
        cards = self._identify_all(fetch, quads, to_px, to_mm, same_mapping, grey=gray if f == 1.0 else None)
        if p.mat_fit and any(c.code is None and c.fresh for c in cards):
            cards = self._mat_fitted(cards, fetch, gray, H, f, card_px, occl_px)
        return FrameResult(self._frame, t, state, cards, occl_px, occl_mm, H=_unscaled_h(H, f))

    def _mat_fitted(self, cards: list[CardSeen], fetch: _Fetch, gray: np.ndarray, H: np.ndarray, f: float,
                    card_px: tuple[float, float], occluders: list[np.ndarray]) -> list[CardSeen]:
        """Each face-up card the mat's view cut but could not read, searched for as a
        card's rectangle on the view's edges nearby (`_with_fitted`, its sides stretched
        by `mat_fit_stretches`): the markers' homography is a pinhole camera's, and
        through a wide lens not straightened the view's scale is off by some percent
        away from the markers (the standard deck, room-wide unstraightened: cards 60 by
        83 mm in the view on one side of the mat, 63.5 by 91 on the other), enough for a
        card overlapping another to be cut beside where it lies. `occluders`: in the
        frame's pixels."""
        assert self.mat is not None
        p = self.params
        now = self._frame
        self._fit_tried = [(m, n) for m, n in self._fit_tried if 0 <= now - n < p.mat_fit_retry]
        hulls = [cv2.convexHull(np.asarray(o, np.float32)) for o in occluders]
        backs = {id(card) for _, card, known in self._last_cards.values()
                 if self._clearly_back(known.identity)}

        def leave(c: CardSeen) -> bool:
            # a clear back lies face down; a card under a hand reads as badly wherever it
            # is cut
            q = c.corners_px.astype(np.float32)
            if id(c) in backs or any(cv2.intersectConvexConvex(q, h)[0] > 0 for h in hulls):
                return True
            # searched for in vain a moment ago, lying where it lay then
            centre = c.corners_mm.mean(axis=0)
            return any(float(np.hypot(*(centre - m))) < p.cache_mm for m, _ in self._fit_tried)

        searched = [c.code is None and c.fresh and not leave(c) for c in cards]
        index = {id(c): i for i, c in enumerate(cards)}
        if not any(searched):
            return cards
        self._fit_named = [e for e in self._fit_named if 0 <= now - e[2] < p.recheck_frames]
        named_at = [next((e for e in self._fit_named
                          if float(np.hypot(*(c.corners_mm.mean(axis=0) - e[0]))) < p.cache_mm), None)
                    if s else None for c, s in zip(cards, searched, strict=True)]
        Hinv = np.linalg.inv(H)
        replayed: dict[int, CardSeen] = {}
        for i, e in enumerate(named_at):
            if e is not None and e[3] >= p.confirm:
                # named so twice or more a moment ago where this card was cut now: the same
                # card, as the identity cache holds a card read (no new evidence)
                card = e[1]
                px = _scaled(to_plane(card.corners_mm, Hinv), f).astype(np.float32)
                replayed[i] = dataclasses.replace(card, corners_px=px, fresh=False)
                searched[i] = False
        if not any(searched):
            return [replayed.get(i, c) for i, c in enumerate(cards)]
        ppm, margin = p.detect_ppm, p.view_margin_mm
        view = self._view_img
        if view is None:
            view = mat_only(self._top_down(gray, H), self.mat.size_mm, ppm, margin, p.mat_inset_mm,
                            1.3 * max(card_px), in_place=True)
        # the grey frame's (or lores copy's) pixels to the view's
        M = self._to_view(H)

        def to_mm(q: np.ndarray) -> np.ndarray:  # the frame's pixels to the mat's mm
            return to_plane(_scaled(np.asarray(q, np.float64), 1.0 / f), H)

        # (_with_fitted's f: the view's source is f times the frame's size)
        out = self._with_fitted(cards, fetch(), 1.0 / f, ppm, view, M, card_px, reads={}, to_mm=to_mm,
                                moved=p.mat_fit_moved, leave=lambda c: not searched[index[id(c)]],
                                stretches=p.mat_fit_stretches, reach=p.mat_fit_reach, limit=p.mat_fit_tries)
        self._fit_tried += [(c.corners_mm.mean(axis=0), now)
                            for c, o, s in zip(cards, out, searched, strict=True) if s and o.code is None]
        for c, o, s, e in zip(cards, out, searched, named_at, strict=True):
            if s and o.code is not None:
                if e is not None:
                    self._fit_named = [x for x in self._fit_named if x is not e]
                agree = e[3] + 1 if e is not None and e[1].code == o.code else 1
                self._fit_named.append((c.corners_mm.mean(axis=0), o, now, agree))
        return [replayed.get(i, o) for i, o in enumerate(out)]

    # -- only where something changed --------------------------------------------

    def _redo_boxes(self, H: np.ndarray, f: float, shape: tuple[int, ...]) -> list[tuple[int, int, int, int]]:
        """The parts of the top-down view (x0, y0, x1, y1) where the still check saw a
        change since the last processed frame: each group of changed cells, two cells
        wider all round, as the box around it in the view."""
        assert self._changed is not None
        where, (bx, by), (cw, ch) = self._changed
        if not where.any():
            return []
        grown = cv2.dilate(where.astype(np.uint8), np.ones((5, 5), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
        p = self.params
        h, w = shape[:2]
        boxes = []
        for x, y, bw, bh, _ in stats[1:n]:
            xs = (bx + x * cw, bx + (x + bw) * cw)
            ys = (by + y * ch, by + (y + bh) * ch)
            corners = np.array([[xs[0], ys[0]], [xs[1], ys[0]], [xs[1], ys[1]], [xs[0], ys[1]]], np.float64)
            mm = to_plane(_scaled(corners, 1.0 / f), H)
            v = (mm + p.view_margin_mm) * p.detect_ppm
            x0, y0 = np.clip(np.floor(v.min(axis=0)).astype(int), 0, (w, h))
            x1, y1 = np.clip(np.ceil(v.max(axis=0)).astype(int) + 1, 0, (w, h))
            if x1 > x0 and y1 > y0:
                boxes.append((int(x0), int(y0), int(x1), int(y1)))
        return boxes

    def _view_shape(self) -> tuple[int, int]:
        """The top-down view's (height, width), as `homography.top_down` makes it."""
        assert self.mat is not None
        p = self.params
        w, h = (v + 2 * p.view_margin_mm for v in self.mat.size_mm)
        return round(h * p.detect_ppm), round(w * p.detect_ppm)

    def _to_view(self, H: np.ndarray) -> np.ndarray:
        """The frame's (or lores copy's) pixels to the top-down view's, as
        `homography.top_down` makes it at `detect_ppm` with `view_margin_mm`."""
        p = self.params
        m = p.view_margin_mm * p.detect_ppm
        return np.array([[p.detect_ppm, 0.0, m], [0.0, p.detect_ppm, m], [0.0, 0.0, 1.0]]) @ H

    def _view_parts(self, gray: np.ndarray, H: np.ndarray, boxes: list[tuple[int, int, int, int]],
                    card_px: tuple[float, float]) -> list[np.ndarray]:
        """The parts `boxes` of the top-down view that `homography.top_down` and
        `homography.mat_only` make of the frame, without warping the rest: the boxes and
        the mat's four edge lines (all that mat_only continues outward) are warped into an
        empty view, and mat_only is run on that."""
        assert self.mat is not None
        p = self.params
        h, w = self._view_shape()
        M = self._to_view(H)

        def warp(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
            T = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
            return cv2.warpPerspective(gray, T @ M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REPLICATE)

        view = np.zeros((h, w), np.uint8)
        # the mat's printed area, as mat_only cuts it
        ix0 = iy0 = max(0, round((p.view_margin_mm + p.mat_inset_mm) * p.detect_ppm))
        ix1 = min(w, round((p.view_margin_mm + self.mat.size_mm[0] - p.mat_inset_mm) * p.detect_ppm))
        iy1 = min(h, round((p.view_margin_mm + self.mat.size_mm[1] - p.mat_inset_mm) * p.detect_ppm))
        if ix1 - ix0 >= 8 and iy1 - iy0 >= 8:
            lines = ((ix0, iy0, ix1, iy0 + 1), (ix0, iy1 - 1, ix1, iy1), (ix0, iy0, ix0 + 1, iy1),
                     (ix1 - 1, iy0, ix1, iy1))
            for x0, y0, x1, y1 in lines:
                view[y0:y1, x0:x1] = warp(x0, y0, x1, y1)
        for x0, y0, x1, y1 in boxes:
            view[y0:y1, x0:x1] = warp(x0, y0, x1, y1)
        view = mat_only(view, self.mat.size_mm, p.detect_ppm, p.view_margin_mm, p.mat_inset_mm,
                        1.3 * max(card_px), in_place=True)
        return [np.ascontiguousarray(view[y0:y1, x0:x1]) for x0, y0, x1, y1 in boxes]

    def _cards_nearby(self, gray: np.ndarray, H: np.ndarray, redo: list[tuple[int, int, int, int]],
                      card_px: tuple[float, float]
                      ) -> tuple[list[CardQuad], list[np.ndarray], list[_Box]] | None:
        """The cards and occluders of the top-down view, when only the parts `redo` of it
        changed since the last processed frame: the last frame's cards and occluders clear
        of them are kept, and the cards are searched again only in crops reaching a card's
        diagonal past them (so every card touching a changed part lies whole in a crop).
        None where that cannot be told from the crops (something touching a changed part
        reaches past its crop; the crops cover most of the view) or a hand (an occluder)
        is there: then the whole view is searched."""
        assert self._view_quads is not None
        p = self.params
        h, w = self._view_shape()
        old_quads, old_polys = self._view_quads, self._view_occl
        # a card left unread is fitted again each frame, as the whole view's search does
        # (a fresh fit of the same card may read: piktas seed 4, frame 1)
        redo = redo + [tuple(int(v) for v in _box(q.corners, 3)) for q in old_quads  # type: ignore[misc]
                       if (id(q) not in self._last_cards or not self._last_cards[id(q)][2].identity.known)]
        redo = [(max(0, x0), max(0, y0), min(w, x1), min(h, y1)) for x0, y0, x1, y1 in redo]
        if not redo:
            return list(old_quads), list(old_polys), list(self._view_blobs)
        # a card whose last blob reaches a changed part is fitted again, though its quad
        # may not (its blob held the hand laying it, which has left)
        hit = [b for b in self._view_blobs if _touches(b, redo)]
        reach = int(np.ceil(math.hypot(*card_px))) + 4
        crops = _merged([(max(0, int(x0) - reach), max(0, int(y0) - reach), min(w, int(x1) + reach + 1),
                          min(h, int(y1) + reach + 1)) for x0, y0, x1, y1 in redo + hit])
        if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in crops) > 0.5 * w * h:
            return None
        if any(_touches(_box(poly, 3), redo) for poly in old_polys):
            return None  # a hand moving over the mat: the whole view, as ever
        def gone(q: CardQuad) -> bool:
            c = q.center
            return _touches(_box(q.corners, 3), redo) or _touches((c[0], c[1], c[0] + 1, c[1] + 1), hit)

        kept = [q for q in old_quads if not gone(q)]
        dropped = [q for q in old_quads if gone(q)]
        watched = redo + hit + [_box(q.corners, 3) for q in dropped]
        blobs_now = [b for b in self._view_blobs if not _touches(b, redo)]
        area = card_px[0] * card_px[1]
        new: list[CardQuad] = []
        polys = list(old_polys)
        memos: list[_CropMemo] = []
        refit: list[_Box] = []  # the blobs fitted again (or found unchanged by the memo)
        # The masks are made on the whole view, the parts pasted into the last one: the
        # table's estimate reaches several cards around a pixel, and made on a part alone
        # it was up to 12 grey levels off, so a card fitted in the part lay up to 8 px
        # (6 mm) from where the whole view's fit put it (yonac seed 1, hard: a stash card
        # read in the whole view went unread in the part, and was asked).
        parts = self._view_parts(gray, H, crops, card_px)
        view = self._view_img
        if view is None:
            return None
        for (x0, y0, x1, y1), sub in zip(crops, parts, strict=True):
            view[y0:y1, x0:x1] = sub
        whole = masks(view, min(card_px), p.detect)
        for (x0, y0, x1, y1), sub in zip(crops, parts, strict=True):
            found = Masks(whole.bright[y0:y1, x0:x1].copy(), whole.dark[y0:y1, x0:x1].copy(),
                          whole.background_small, whole.background[y0:y1, x0:x1] if self._dark else None)
            self._blank_markers(found, p.detect_ppm, p.view_margin_mm, (x0, y0))
            # what is cut by the crop's edge (where that is not the view's) and reaches a
            # changed part cannot be told from the crop
            cut = (x0 > 0, y0 > 0, x1 < w, y1 < h)
            contours, _ = cv2.findContours(cv2.bitwise_or(found.bright, found.dark), cv2.RETR_EXTERNAL,
                                           cv2.CHAIN_APPROX_SIMPLE)
            for c in contours:
                bx, by, bw, bh = cv2.boundingRect(c)
                edges = (bx == 0, by == 0, bx + bw == x1 - x0, by + bh == y1 - y0)
                if any(a and b for a, b in zip(edges, cut, strict=True)) and \
                        _touches((bx + x0, by + y0, bx + bw + x0, by + bh + y0), watched):
                    return None
            # only the blobs reaching a changed part are fitted again: the others are cards
            # kept from the last frame (a card fitted from its corners costs ~3 ms)
            blobs, _ = cv2.findContours(found.bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            near = np.zeros_like(found.bright)
            for c in blobs:
                bx, by, bw, bh = cv2.boundingRect(c)
                if _touches((bx + x0, by + y0, bx + bw + x0, by + bh + y0), watched):
                    cv2.drawContours(near, [c], -1, 255, thickness=cv2.FILLED)
                    blobs_now.append((bx + x0, by + y0, bx + bw + x0, by + bh + y0))
                    refit.append(blobs_now[-1])
            shift = np.array([x0, y0], np.float32)
            fit = dataclasses.replace(found, bright=cv2.bitwise_and(found.bright, near))
            memos.append(_CropMemo(self._memo, (x0, y0)))
            found_here = find_cards(sub, self.aspect, card_px, p.detect, fit, memos[-1],  # type: ignore[arg-type]
                                    self._dark)
            for q in found_here:
                moved = CardQuad(q.corners + shift, q.support, q.seen,
                                 tuple(a + shift for a in q.alternatives))
                if _touches(_box(moved.corners, 3), redo) or _holds(refit, moved.center) or any(
                        _near(moved.corners, d.corners, card_px) for d in dropped):
                    new.append(moved)
            for poly in _polygons(occluders(found, found_here, p.min_occluder * area)):
                if _touches(_box(poly + np.array([x0, y0], np.float64), 0), redo):
                    return None  # a hand reaching in: the whole view
        # each blob fitted again shows the cards its fit found (as in a whole search, where
        # the memo then holds them), not the last frame's quads of it
        kept = [q for q in kept if not _holds(refit, q.center)]
        new = [q for q in new if not any(_near(q.corners, k.corners, card_px) for k in kept)]
        # the memo holds the blobs as a whole search leaves it: those fitted again (or
        # found unchanged) and, for the blobs elsewhere, the last search's
        carried = [e for e in self._memo.last_blobs()
                   if not _touches((e[0][0], e[0][1], e[0][0] + e[0][2], e[0][1] + e[0][3]), watched + refit)]
        self._memo.set_last_blobs(carried + [e for m in memos for e in m.entries])
        return kept + _dedupe_quads(new, card_px), polys, blobs_now

    def _top_down(self, gray: np.ndarray, H: np.ndarray) -> np.ndarray:
        """`homography.top_down` of the frame (or of its lores copy: H then maps its pixels).
        A remap through maps kept while the mat holds still (`homography.view_maps`) was
        measured at 4.3 ms against 4.8 for the warp at 1280x720, but its coarser sub-pixel
        steps moved the corners of a partly covered card enough to lose its name once in
        the room benchmark (yokir, room-wide, seed 2, frame 204): not worth it."""
        assert self.mat is not None
        p = self.params
        return top_down(gray, H, self.mat.size_mm, p.detect_ppm, p.view_margin_mm)

    def _find_mat(self, gray: np.ndarray, t: float, fetch: _Fetch | None = None, f: float = 1.0) -> MatState:
        """The mat's markers, searched in a smaller copy of the frame, and at full
        resolution when those found give no fit while the mat is not held (a wide lens
        far above the table makes them too small for the copy: 18 px at 1280x720). Once
        the full resolution was needed, it is used from then on. `gray` is the frame's
        grey copy or its lores copy (`f` times smaller, its markers then in its pixels)."""
        assert self.mat is not None and self.lock is not None
        p = self.params

        def full_size() -> dict[int, np.ndarray]:
            if f == 1.0 or fetch is None:
                return find_markers(gray, self.mat.dictionary, 1.0)
            frame = cv2.cvtColor(fetch(), cv2.COLOR_BGR2GRAY)
            return {i: _scaled(c, 1.0 / f) for i, c in find_markers(frame, self.mat.dictionary, 1.0).items()}

        if self._markers_full:
            return self.lock.update(full_size(), t)
        found = find_markers(gray, self.mat.dictionary, min(1.0, p.marker_scale * f))
        state = self.lock.update(found, t)
        if state.status != FOUND and (len(found) >= 2 or state.status == LOST):
            full = full_size()
            if len(full) >= 2:
                again = self.lock.update(full, t)
                if again.status == FOUND:
                    self._markers_full = True
                state = again
        return state

    def _blank_markers(self, found: Masks, ppm: float, margin: float,
                       origin: tuple[int, int] = (0, 0)) -> None:
        """The markers and their white margins are not cards. `origin`: where the masks'
        top-left lies in the top-down view (a crop of it)."""
        assert self.mat is not None
        at = np.array(origin)
        for m in self.mat.markers:
            c = np.asarray(m.corners_mm, np.float64) + margin
            lo = np.maximum(np.floor((c.min(axis=0) - QUIET_MM - 1) * ppm).astype(int) - at, 0)
            hi = np.ceil((c.max(axis=0) + QUIET_MM + 1) * ppm).astype(int) - at
            if (hi <= 0).any():
                continue
            found.bright[lo[1]:hi[1], lo[0]:hi[0]] = 0
            found.dark[lo[1]:hi[1], lo[0]:hi[0]] = 0

    # -- without a mat ----------------------------------------------------------

    def _see_direct(self, image: np.ndarray, gray: np.ndarray, t: float) -> FrameResult:
        f = self._direct_f or min(1.0, self.params.direct_width / gray.shape[1])
        return self._see_direct_at(image, gray, t, f)

    def _see_direct_at(self, image: np.ndarray, gray: np.ndarray, t: float, f: float) -> FrameResult:
        """`_see_direct` with the frame searched at `f` times its size."""
        p = self.params
        self._refit_key: frozenset[bytes] | None = None  # the named cards `_refitted` last flattened by
        small = cv2.resize(gray, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else gray
        plain = plain_table(image, small, p.table_saturation) if p.table_pattern else None
        shown = image  # what the outline and index finders look at
        if plain is not None:  # a checked cloth, painted over: the cards alone
            small, shown = plain
        detect = self._direct_detect
        found = masks(small, self._scale * min(self.size_mm) if self._scale else None, detect)
        self._paper = found.bright
        whole = find_cards(small, self.aspect, None, detect, found)
        still = self._scale is None and p.outlines
        # on a checked cloth painted over, the colour contrasts show the cloth again
        contrasts = _table_contrast(image, f, p.table_saturation) \
            if p.table_contrast and plain is None else []
        # on a table nearly white, no card is brighter: the colour contrasts alone show them
        cd = self._contrast_detect if contrasts and _median_u8(small) >= p.white_table else detect
        rivals: list[CardQuad] = []
        if still:
            whole = _with_outlines(whole, shown, small, f, self.aspect)
            if self._direct_f is None and f < 1.0 and p.direct_card_px > 0:
                sides = [short_long(c.corners)[0] for c in whole if c.complete]
                if sides:  # else (no whole card yet) chosen on a later frame
                    fine = min(1.0, p.direct_fine_width / gray.shape[1])
                    narrow = float(np.median(sides)) < p.direct_card_px and fine > f
                    self._direct_f = fine if narrow else f
                    if narrow:  # nothing read yet: the search starts again, finer
                        return self._see_direct_at(image, gray, t, fine)
            if p.scale_contrast and p.scale_named:
                for other in contrasts:
                    cut_there = find_cards(other, self.aspect, None, cd, masks(other, None, cd))
                    rivals = _merge_quads(rivals, cut_there, other)
                rivals = [c for c in rivals if all(_iou(c.corners, k.corners) <= 0.9 for k in whole)]
        # a quad lying in paper (a printed frame, a rectangle across touching cards) is none
        whole_ok = [c for c in whole + rivals if not _inside_bright(c, found.bright)]
        named, reads = None, {}
        if p.scale_named:
            def read(c: CardQuad) -> bool:
                """Named, or clearly a card's back (a card too, face down)."""
                one = self._identify_crop(image, ((c.corners + 0.5) / f - 0.5).astype(np.float32), c.seen,
                                          reads)
                return one.known or self._clearly_back(one)

            named = [c.complete and read(c) for c in whole_ok]
            if rivals:
                whole_ok, named = _named_first(whole_ok, named)
                whole = [c for c in whole if any(c is k for k in whole_ok)] + \
                    [c for c in rivals if any(c is k for k in whole_ok)]
            if p.split_pairs and still and self.aspect > 1.0:
                # two cards side by side make a rectangle of a card's shape: its halves
                # named are two cards, and the scale is theirs; a half is a card's outline
                # only where the two cards touch, so one named alone must read clearly
                halves = []
                for c, n in zip(whole_ok, named, strict=True):
                    if c.complete and not n and short_long(c.corners)[1] / 2 < p.split_pairs_px * f:
                        pair = [CardQuad(h, c.support) for h in _halves(c.corners)]
                        ones = [self._identify_crop(image, ((h.corners + 0.5) / f - 0.5).astype(np.float32),
                                                    h.seen, reads) for h in pair]
                        both = all(one.known for one in ones)
                        halves += [h for h, one in zip(pair, ones, strict=True)
                                   if one.known and (both or self._fit_clear(one))]
                whole_ok, named, whole = whole_ok + halves, named + [True] * len(halves), whole + halves
        scale, plane, agreeing = _scale_field(whole_ok, self.size_mm, small.shape, named,
                                              cluster_tol=p.scale_cluster)
        if scale is not None:
            self._scale = scale if self._scale is None else 0.8 * self._scale + 0.2 * scale
        quads = whole
        sure = [c for c, n in zip(whole_ok, named, strict=True) if n and c.complete] \
            if named is not None and p.flatten_named else []
        flat = None
        if p.flatten and self._scale is not None:
            flat = _flattening(agreeing, self.size_mm, self._scale, small.shape, p.flatten_fit_agreeing)
            if flat is None and len(sure) >= 3:
                flat = _flattening(sure, self.size_mm, self._scale, small.shape, p.flatten_fit)
            if flat is None:
                flat = _flattening(agreeing, self.size_mm, self._scale, small.shape, p.flatten_fit)
        if self._scale is not None:
            card_px = (self.size_mm[0] * self._scale, self.size_mm[1] * self._scale)
            if flat is not None:
                # cut in the flattened view, where every card is its exact rectangle
                H, view_size = flat

                def to_view(img: np.ndarray) -> np.ndarray:
                    return cv2.warpPerspective(img, H, view_size, flags=cv2.INTER_LINEAR,
                                               borderMode=cv2.BORDER_REPLICATE)

                view = to_view(small)
                size: tuple[float, float] | Callable[[float, float], tuple[float, float]] = card_px
                found_view, memo = masks(view, min(card_px), detect), None
                in_view = [_moved(c, H) for c in whole]
            else:
                view, found_view, memo, in_view = small, found, self._memo, whole
                size = _size_at(plane, self.size_mm, self._scale) or card_px
            # cards of one deck are one size: a "whole card" far from the scale the others
            # agree on there is none (two cards side by side make a rectangle of nearly a
            # card's shape); the search at the card's size finds what it holds
            in_view = [c for c in in_view if _of_size(c, size(*c.center) if callable(size) else size,
                                                      p.direct_size_tol)]
            cuts = [find_cards(view, self.aspect, size, detect, found_view, memo, self._dark)]
            for other in contrasts:
                other = to_view(other) if flat is not None else other
                found_there = masks(other, min(card_px), cd)
                cuts.append(find_cards(other, self.aspect, size, cd, found_there))
            cut = _pick_cuts(cuts)
            quads = _merge_quads(in_view, cut, view) if p.outlines else cut
            if p.turned:  # in the flattened view a card is its exact rectangle either way round
                quads = [_with_turned(c, view, same_from=p.turned_same_px * f) for c in quads]
            if flat is not None:
                back = np.linalg.inv(flat[0])
                quads = [_moved(c, back) for c in quads]
            fit_view = view
            if p.fit_colour and contrasts:  # cream on light oak: weak in grey, plain in colour
                colour = contrasts[0] if flat is None else to_view(contrasts[0])
                fit_view = np.dstack([view, colour])
            fitting = (fit_view, flat[0] if flat is not None else None, size)
        else:
            fitting = None
        ppm = self._scale or 1.0
        occl = occluders(found, quads, p.min_occluder * (self.size_mm[0] * self.size_mm[1] * ppm * ppm))
        polys = _polygons(occl)
        occl_px = [((poly + 0.5) / f - 0.5).astype(np.float32) for poly in polys]
        cards = self._identify_all(image, quads, lambda q: ((q + 0.5) / f - 0.5).astype(np.float32),
                                   lambda q: q / ppm, reads=reads)
        if p.fit and fitting is not None and any(c.code is None and c.fresh for c in cards):
            cards = self._with_fitted(cards, image, f, ppm, *fitting, reads=reads)
            if p.refit and any(c.code is None and c.fresh for c in cards):
                cards, fitting = self._refitted(cards, image, small, contrasts, f, ppm, fitting, reads)
            if p.fit_stretches_again and any(c.code is None and c.fresh for c in cards):
                cards = self._with_fitted(cards, image, f, ppm, *fitting, reads=reads,
                                          stretches=p.fit_stretches_again, again=p.fit_tries_again)
        if p.fit and p.fit_neighbours and fitting is not None:
            cards = self._with_neighbours(cards, image, f, ppm, *fitting, reads=reads)
        if p.fit and p.fit_blobs and fitting is not None:
            cards = self._with_blobs(cards, image, f, ppm, found.bright, fitting, reads)
        if p.fit and p.refit_partial and fitting is not None and \
                any(c.code is None and c.fresh for c in cards):
            # last, in the view every named card flattens (those partly hidden too)
            first = self._refit_key is None  # no whole named cards flattened a view before
            cards, flat = self._refitted(cards, image, small, contrasts, f, ppm, fitting, reads,
                                         partial=True)
            if flat is not fitting:
                if p.fit_stretches_again and any(c.code is None and c.fresh for c in cards):
                    cards = self._with_fitted(cards, image, f, ppm, *flat, reads=reads,
                                              stretches=p.fit_stretches_again, again=p.fit_tries_again)
                if p.fit_neighbours and (first or p.refit_partial_neighbours):
                    cards = self._with_neighbours(cards, image, f, ppm, *flat, reads=reads)
        if p.keep_clear_reads:
            cards = self._with_clear_reads(cards, reads, f, ppm)
        if p.polish_reads and any(c.code is None and c.fresh for c in cards):
            cards = self._with_polished_reads(cards, image, reads, f, ppm)
        if still and p.indices and self.templates.glyphs is not None:
            cards = _with_index_cards(cards, shown, self.templates.glyphs, p.index, self.prior,
                                      lambda q: ((q + 0.5) * f - 0.5) / ppm)
        if self._distinct:
            cards = _once_each(cards)
        cards = _one_per_place(cards)
        return FrameResult(self._frame, t, None, cards, occl_px, [poly / ppm for poly in polys])

    def _with_fitted(self, cards: list[CardSeen], image: np.ndarray, f: float, ppm: float,
                     view: np.ndarray, H: np.ndarray | None,
                     size: tuple[float, float] | Callable[[float, float], tuple[float, float]],
                     reads: dict[tuple, Identity] | None = None, reach: float = 0.5,
                     stretches: tuple[tuple[float, float], ...] = (), again: int | None = None,
                     to_mm: Callable[[np.ndarray], np.ndarray] | None = None, moved: bool = True,
                     leave: Callable[[CardSeen], bool] | None = None, limit: int | None = None,
                     unled: bool = True) -> list[CardSeen]:
        """Each unread card, where a card of the deck's size laid on the edges nearby
        (`vision.fit`, in the view the cards were cut in: flattened where there is one;
        centred within `reach` of its long side, its sides stretched by `stretches`, else
        `fit_stretches`) reads at `fit_min_score` or more, is that card. Its corners under
        named cards are not seen. `again`: a search once more, of this many rectangles
        (else `fit_tries`), none read again moved (`fit_jitter`). `to_mm`: the frame's
        pixels to the cards' mm (else the view's scale `ppm`). `moved`: the rectangles
        read weakly are polished and jittered (`_polished`, `_jittered`). `leave`: the
        unread cards not searched. `limit`: the rectangles read (else `fit_tries`).
        `unled`: those moved about may be polished from a reading with no lead
        (`fit_polish_margin`; not beside named cards, where no cut says a card lies)."""
        p = self.params
        to_view, to_px = _view_maps(f, H)
        named = [to_view(c.corners_px).astype(np.float32) for c in cards if c.code is not None]
        # a card read clearly as a back lies face down where it was cut: nothing to search
        backs = [card for _, card, known in self._last_cards.values() if self._clearly_back(known.identity)]
        gx, gy = edge_field(view)
        paper = self.mat is None and p.fit_paper_seen > 0 and self._paper is not None and \
            self._corners_show_paper(cards, f)
        out = []
        for c in cards:
            # (an unknown replayed was searched for then)
            if c.code is not None or not c.fresh or any(c is b for b in backs) or \
                    (leave is not None and leave(c)):
                out.append(c)
                continue
            q = to_view(c.corners_px)
            centre = q.mean(axis=0)
            here = size(*centre) if callable(size) else size
            short, long_ = min(here), max(here)
            if again is not None and short / f >= p.fit_px_again:
                out.append(c)
                continue
            side = q[1] - q[0]
            angle = math.atan2(side[1], side[0])
            step = max(1.0, short * p.fit_step)
            best, tries, weak = None, 0, []
            found = fit_rectangles(gx, gy, (float(centre[0]), float(centre[1])), angle, (short, long_),
                                   reach * long_, step, keep=p.fit_tries + 2, turns=p.fit_turns,
                                   stretches=stretches or p.fit_stretches)
            apart_deg = max(map(abs, p.fit_turns)) + 1.0
            lined = _neighbour_angle(named, centre, angle, p.fit_neighbour_reach * long_,
                                     apart_deg) if p.fit_neighbour_reach else None
            # a cut skewed (a parallelogram): its other pair of sides may lie as the card does
            skewed = _other_sides_angle(q, angle, apart_deg) if p.fit_skewed else None
            if lined is not None:
                # the cut turned the card askew: cards lie as their neighbours do
                found = sorted(found + fit_rectangles(
                    gx, gy, (float(centre[0]), float(centre[1])), lined, (short, long_), reach * long_,
                    step, keep=p.fit_tries + 2, turns=p.fit_turns, stretches=stretches or p.fit_stretches),
                    key=lambda sr: -sr[0])
            budget = again if again is not None else p.fit_tries if limit is None else limit
            first = budget  # the rectangles as the cut lies (and as its neighbours do)
            if skewed is not None:
                # ... or as the cut's other sides: as many again, after those as the cut lies
                found = found[:budget] + sorted(found[budget:] + fit_rectangles(
                    gx, gy, (float(centre[0]), float(centre[1])), skewed, (short, long_), reach * long_,
                    step, keep=p.fit_tries + 2, turns=p.fit_turns, stretches=stretches or p.fit_stretches),
                    key=lambda sr: -sr[0])
                budget *= 2
            for _, rect in found:
                if tries == budget:
                    break
                if any(_covers(k, rect.astype(np.float32), 0.5) for k in named):
                    continue  # a named card itself
                tries += 1
                rect = refined(gx, gy, rect, step)
                seen = tuple(not any(cv2.pointPolygonTest(k, (float(x), float(y)), False) > 0
                                     for k in named) for x, y in rect)
                corners = to_px(rect)
                bare = _paper_seen(seen, corners, self._paper, f, 0.12 * short / f, p.fit_paper_seen) \
                    if paper else seen
                identity = self._identify_crop(image, corners, bare, reads)
                self.identifications += 1
                if bare != seen and identity.known and identity.score >= p.fit_min_score:
                    seen = bare  # read from the indices in view alone, and surely
                elif bare != seen:
                    identity = self._identify_crop(image, corners, seen, reads)
                    self.identifications += 1
                if moved and self._fit_polishable(identity):
                    identity, corners = self._polished(image, rect, identity, corners, seen, to_px,
                                                       step, reads)
                elif moved and not self._fit_clear(identity) and identity.score >= p.fit_jitter_from and \
                        identity.best is not None and not is_back(identity.best) and \
                        short / f < p.fit_jitter_px:
                    weak.append((identity.score, tries, rect, seen))
                if identity.known and self._fit_clear(identity) and \
                        (best is None or identity.score > best[0].score):
                    best = (identity, corners)
            if best is None and p.fit_jitter:
                # the likeliest few read weakly, each read again moved a little
                # (those as the cut lies first: the skewed cut's others only after them)
                likeliest = sorted(weak, key=lambda w: (w[1] > first, -w[0], w[1]))[:p.fit_jitter_tries]
                for _, _, rect, seen in likeliest:
                    identity = None
                    if p.fit_sides > 0:  # first with each side laid on its own edge
                        laid = sides_fitted(gx, gy, rect, max(2.0, p.fit_sides * short))
                        if np.abs(laid - rect).max() >= 1.0:
                            # (kept from this frame's readings: counts only at fit_min_score)
                            corners = to_px(laid)
                            identity = self._identify_crop(image, corners, seen)
                            self.identifications += 1
                            if self._fit_polishable(identity, unled=unled):
                                identity, corners = self._polished(image, laid, identity, corners, seen,
                                                                   to_px, step, None)
                            if identity.known and identity.score >= p.fit_min_score and \
                                    identity.margin >= p.fit_clear_margin:
                                best = (identity, corners)
                                break
                    identity, corners, rect = self._jittered(image, rect, seen, to_px, reads, unled)
                    start = identity
                    if identity is not None and self._fit_polishable(identity, unled=unled):
                        identity, corners = self._polished(image, rect, identity, corners, seen, to_px,
                                                           step, reads)
                    if identity is not None and identity.known and self._polish_ok(start, identity):
                        best = (identity, corners)
                        break
            if best is None:
                out.append(c)
                continue
            identity, corners = best
            k = identity.rotation
            ordered_px = corners[ROLL[k]]
            ordered_mm = (((ordered_px + 0.5) * f - 0.5) / ppm).astype(np.float32) if to_mm is None \
                else to_mm(ordered_px).astype(np.float32)
            out.append(CardSeen(ordered_px, ordered_mm, identity.code, identity.score, identity.margin,
                                zone_at(self.mat, *ordered_mm.mean(axis=0)), all(seen),
                                identity.candidates, identity.note, True))
        return out

    def _refitted(self, cards: list[CardSeen], image: np.ndarray, small: np.ndarray,
                  contrasts: list[np.ndarray], f: float, ppm: float, fitting: tuple,
                  reads: dict[tuple, Identity] | None, partial: bool = False
                  ) -> tuple[list[CardSeen], tuple]:
        """`_with_fitted` once more for the cards still unread, in the view flattened by
        every whole card named so far (`refit`; `partial`: every named card, those partly
        hidden by their fitted outlines), and that view (view, H, card size); the cards
        and `fitting` unchanged where fewer than `refit_named` are named or they fit no
        flattening."""
        p = self.params
        named = [CardQuad(((c.corners_px + 0.5) * f - 0.5).astype(np.float32))
                 for c in cards if c.code is not None and (c.complete or partial)]
        if len(named) < p.refit_named or self._scale is None:
            return cards, fitting
        key = frozenset(c.corners.tobytes() for c in named)
        if key == self._refit_key:  # the view searched already this frame
            return cards, fitting
        self._refit_key = key
        flat = _flattening(named, self.size_mm, self._scale, small.shape, p.flatten_fit)
        if flat is None:
            return cards, fitting
        H, view_size = flat

        def to_view(img: np.ndarray) -> np.ndarray:
            return cv2.warpPerspective(img, H, view_size, flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REPLICATE)

        view = to_view(small)
        if p.fit_colour and contrasts:
            view = np.dstack([view, to_view(contrasts[0])])
        card_px = (self.size_mm[0] * self._scale, self.size_mm[1] * self._scale)
        return self._with_fitted(cards, image, f, ppm, view, H, card_px, reads=reads), (view, H, card_px)

    def _with_neighbours(self, cards: list[CardSeen], image: np.ndarray, f: float, ppm: float,
                         view: np.ndarray, H: np.ndarray | None,
                         size: tuple[float, float] | Callable[[float, float], tuple[float, float]],
                         reads: dict[tuple, Identity] | None = None) -> list[CardSeen]:
        """Cards laid next to named ones that no cut found (a pale card touching a
        named card, in one blob with it): beside each named card, a card's length
        or width along each of its sides, where no card was cut and the picture differs
        from the table about as much as a card does (`fit_neighbours`), `_with_fitted`
        searches as for an unread card; those it names join."""
        p = self.params
        to_view, to_px = _view_maps(f, H)
        named = [to_view(c.corners_px) for c in cards if c.code is not None]
        # (a place inside an unread cut is searched too: that cut's own search found nothing)
        taken = [to_view(c.corners_px).astype(np.float32) for c in cards
                 if c.code is not None or not p.fit_neighbours_in_unread]
        if not named:
            return cards
        if view.ndim == 3:
            diff = view[..., 1]
        else:
            diff = cv2.absdiff(view, np.full_like(view, int(_median_u8(view))))
        h, w = diff.shape[:2]

        def inside(q: np.ndarray) -> float:
            """The mean difference from the table over the middle of quad q (a mask of
            the middle's box only: this runs for every place beside every named card)."""
            c = q.mean(axis=0)
            inner = (c + 0.6 * (q - c)).astype(np.int32)
            x0, y0 = np.maximum(inner.min(axis=0), 0)
            x1, y1 = np.minimum(inner.max(axis=0) + 1, (w, h))
            if x1 <= x0 or y1 <= y0:
                return 0.0
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(mask, inner - (x0, y0), 1)
            return float(cv2.mean(diff[y0:y1, x0:x1], mask)[0]) if mask.any() else 0.0

        seeds = []
        for q in named:
            own = inside(q)
            u, v = q[1] - q[0], q[3] - q[0]
            for d in (u, -u, v, -v):
                moved = q + d * (1.0 + p.fit_neighbour_gap)
                c = moved.mean(axis=0)
                if not (0 <= c[0] < w and 0 <= c[1] < h):
                    continue
                if any(cv2.pointPolygonTest(k, (float(c[0]), float(c[1])), False) >= 0 for k in taken):
                    continue
                if any(np.linalg.norm(s.mean(axis=0) - c) < 0.5 * min(np.linalg.norm(u), np.linalg.norm(v))
                       for s in seeds):
                    continue
                if inside(moved) < p.fit_neighbour_contrast * own:
                    continue
                seeds.append(moved)
        if not seeds:
            return cards
        fakes = [CardSeen(to_px(s), to_px(s) / ppm, None, 0.0, 0.0, zone_at(self.mat, 0.0, 0.0))
                 for s in seeds]
        known = [c for c in cards if c.code is not None]  # the unread were searched already
        found = self._with_fitted(known + fakes, image, f, ppm, view, H, size, reads=reads,
                                  reach=p.fit_neighbour_search, unled=False)
        return cards + [c for c in found[len(known):] if c.code is not None]

    def _with_blobs(self, cards: list[CardSeen], image: np.ndarray, f: float, ppm: float,
                    bright: np.ndarray, fitting: tuple, reads: dict[tuple, Identity] | None
                    ) -> list[CardSeen]:
        """Cards no cut found where the picture shows paper: a card partly under a hand
        makes one blob with it, and no quad. Each blob of the bright mask that no card
        found covers, `fit_blob_area` of a card's area or more (and no more than a card
        and a fifth), not a sliver, is searched by `_with_fitted` as an unread card lying
        there; those it names join."""
        p = self.params
        if self._scale is None:
            return cards
        scale = self._scale
        short, long_ = min(self.size_mm) * scale, max(self.size_mm) * scale
        free = bright.copy()
        for c in cards:
            q = ((c.corners_px + 0.5) * f - 0.5).astype(np.int32)
            cv2.fillConvexPoly(free, q, 0)
        free = cv2.morphologyEx(free, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, labels, stats, centres = cv2.connectedComponentsWithStats(free, connectivity=8)
        fakes = []
        for k in range(1, n):
            area = stats[k, cv2.CC_STAT_AREA]
            if not p.fit_blob_area * short * long_ <= area <= 1.2 * short * long_:
                continue
            points = np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.float32)
            _, (w, h), angle = cv2.minAreaRect(points)
            if min(w, h) < 0.4 * short:
                continue
            turn = math.radians(angle) + (0.0 if w <= h else math.pi / 2)
            rect = rectangle((float(centres[k][0]), float(centres[k][1])), turn, (short, long_))
            px = ((rect + 0.5) / f - 0.5).astype(np.float32)
            fakes.append(CardSeen(px, px / ppm, None, 0.0, 0.0, zone_at(self.mat, 0.0, 0.0)))
        if not fakes:
            return cards
        known = [c for c in cards if c.code is not None]
        found = self._with_fitted(known + fakes, image, f, ppm, *fitting, reads=reads)
        return cards + [c for c in found[len(known):] if c.code is not None]

    def _corners_show_paper(self, cards: list[CardSeen], f: float) -> bool:
        """Do the named cards' corners show paper in this frame's bright mask (at least
        `fit_paper_corners` of them, of two cards or more)? Pastel cards printed to their
        edges, or a table as bright as paper, do not: there a corner without paper is no
        sign of a hand."""
        p = self.params
        shown = []
        for c in cards:
            if c.code is not None and c.complete:
                short = min(np.linalg.norm(c.corners_px[1] - c.corners_px[0]),
                            np.linalg.norm(c.corners_px[2] - c.corners_px[1]))
                shown += _paper_seen((True,) * 4, c.corners_px, self._paper, f, 0.12 * float(short),
                                     p.fit_paper_seen, keep=False)
        return len(shown) >= 8 and sum(shown) >= p.fit_paper_corners * len(shown)

    def _with_clear_reads(self, cards: list[CardSeen], reads: dict[tuple, Identity], f: float,
                          ppm: float) -> list[CardSeen]:
        """An unread card where this frame read a quad in the same place (`_iou` at
        least `keep_clear_iou`) clearly as a card named nowhere else (`_fit_clear`) is that
        card: a card's outline moved through the flattened view and back, or turned, may
        read worse than the quad first read (the halves of two cards' outline)."""
        best = self._reads_in_place(cards, reads, lambda one: one.known and not is_back(one.code) and
                                    self._fit_clear(one), lambda one: one.code)
        out, used = list(cards), set()
        for i, (one, q, seen) in sorted(best.items(), key=lambda kv: -kv[1][0].score):
            if one.code in used:
                continue
            used.add(one.code)
            px = q[ROLL[one.rotation]]
            mm = (((px + 0.5) * f - 0.5) / ppm).astype(np.float32)
            out[i] = CardSeen(px, mm, one.code, one.score, one.margin, zone_at(self.mat, *mm.mean(axis=0)),
                              all(seen), one.candidates, one.note, True)
        return out

    def _reads_in_place(self, cards: list[CardSeen], reads: dict[tuple, Identity] | None,
                        wanted: Callable[[Identity], bool], card_of: Callable[[Identity], str | None]
                        ) -> dict[int, tuple[Identity, np.ndarray, tuple[bool, ...]]]:
        """For each unread card (by index), the best-scoring of this frame's `reads` that is
        `wanted`, of a card (`card_of` the reading) named nowhere else, whose quad lies in
        the card's place (`_iou` at least `keep_clear_iou`) over no named card by more than
        `keep_clear_named`: the reading, its quad and its seen corners."""
        p = self.params
        unread = [i for i, c in enumerate(cards) if c.code is None and c.fresh]
        if not unread or not reads:
            return {}
        taken = {c.code for c in cards if c.code is not None}
        named = [c.corners_px for c in cards if c.code is not None]
        best: dict[int, tuple[Identity, np.ndarray, tuple[bool, ...]]] = {}
        for (corners, seen), one in reads.items():
            if not wanted(one) or card_of(one) in taken:
                continue
            q = np.frombuffer(corners, np.float32).reshape(4, 2)
            if any(_covers(k, q, p.keep_clear_named) for k in named):
                continue
            for i in unread:
                if _iou(cards[i].corners_px, q) >= p.keep_clear_iou and \
                        (i not in best or one.score > best[i][0].score):
                    best[i] = (one, q, seen)
        return best

    def _with_polished_reads(self, cards: list[CardSeen], image: np.ndarray, reads: dict[tuple, Identity],
                             f: float, ppm: float) -> list[CardSeen]:
        """An unread card where this frame read a quad in the same place (as
        `_with_clear_reads`) as one card named nowhere else, at `fit_polish_from` or more
        but not clearly, with any lead: the best such quad moved a little at a time while
        it reads better (`_polished`), that card where it comes to read clearly."""
        p = self.params
        taken = {c.code for c in cards if c.code is not None}
        best = self._reads_in_place(cards, reads, lambda one: one.best is not None and not is_back(one.best)
                                    and one.score >= p.fit_polish_from and not self._fit_clear(one),
                                    lambda one: one.best)
        out = list(cards)
        for i, (one, q, seen) in sorted(best.items(), key=lambda kv: -kv[1][0].score):
            if one.best in taken:
                continue
            step = max(1.0, min(short_long(q)) * p.fit_step)
            identity, corners = self._polished(image, q.copy(), one, q.copy(), seen, lambda r: r, step, reads,
                                               rounds=p.polish_reads_rounds)
            if not (identity.known and self._polish_ok(one, identity)):
                continue
            taken.add(identity.code)
            px = np.asarray(corners, np.float32)[ROLL[identity.rotation]]
            mm = (((px + 0.5) * f - 0.5) / ppm).astype(np.float32)
            out[i] = CardSeen(px, mm, identity.code, identity.score, identity.margin,
                              zone_at(self.mat, *mm.mean(axis=0)), all(seen), identity.candidates,
                              identity.note, True)
        return out

    def _clearly_back(self, identity: Identity) -> bool:
        """Was a quad read as the deck's back, as clearly as a card is named?"""
        p = self.params.identify
        return is_back(identity.best) and identity.score >= p.min_score and identity.margin >= p.min_margin

    def _fit_clear(self, identity: Identity) -> bool:
        """Is a fitted rectangle's reading clear enough to name the card?"""
        p = self.params
        return identity.score >= p.fit_min_score or (
            identity.score >= p.fit_clear_score and identity.margin >= p.fit_clear_margin)

    def _fit_led(self, identity: Identity) -> bool:
        """`fit_min_score` with the lead `fit_clear_margin` both: a reading polished up
        from one with no lead (moved a little at a time towards a card, a rectangle on
        bare table came to read a Piktas beetle at 0.73 with a lead of 0.152)."""
        p = self.params
        return identity.score >= p.fit_min_score and identity.margin >= p.fit_clear_margin

    def _jittered(self, image: np.ndarray, rect: np.ndarray, seen: tuple[bool, ...],
                  to_px: Callable[[np.ndarray], np.ndarray], reads: dict[tuple, Identity] | None,
                  unled: bool = False) -> tuple[Identity | None, np.ndarray, np.ndarray]:
        """A fitted rectangle that reads no card well enough to polish, read again moved
        `fit_jitter` px each of eight ways (`vision.fit.shifted`): a card's index is found
        only within its search window's 1.5 mm (`vision.templates.MARGIN_MM`), a pixel or
        two through the wide lens, and the edges place a soft card's outline a few pixels
        off. The best that reads one card (not a back) clearly or well enough to polish,
        its corners in the frame and the rectangle moved; None if none does. The first
        read clearly ends the search."""
        p = self.params
        found: Identity | None = None
        corners = to_px(rect)
        for moved in shifted(rect, p.fit_jitter):
            px = to_px(moved)
            again = self._identify_crop(image, px, seen, reads)
            self.identifications += 1
            if ((again.known and self._fit_clear(again)) or self._fit_polishable(again, unled=unled)) and \
                    (found is None or again.score > found.score):
                found, corners, rect = again, px, moved
                if self._fit_clear(found):
                    break
        return found, corners, rect

    def _fit_polishable(self, identity: Identity, unled: bool = False) -> bool:
        """Does a fitted rectangle read one card (not a back), not yet clearly, but well
        enough and far enough ahead to be moved towards it (`_polished`)? `unled`: among
        the few read again moved, where `fit_polish_margin` is the lead asked."""
        p = self.params
        lead = p.fit_polish_margin if unled and p.fit_polish_margin is not None else p.fit_clear_margin
        return not self._fit_clear(identity) and identity.margin >= lead and \
            identity.score >= p.fit_polish_from and identity.best is not None and not is_back(identity.best)

    def _polished(self, image: np.ndarray, rect: np.ndarray, identity: Identity, corners: np.ndarray,
                  seen: tuple[bool, ...], to_px: Callable[[np.ndarray], np.ndarray], step: float,
                  reads: dict[tuple, Identity] | None, rounds: int | None = None
                  ) -> tuple[Identity, np.ndarray]:
        """A fitted rectangle read as one card, not yet clearly, moved a little at a time
        (`vision.fit.nudges`) while that card reads better, up to `fit_polish_rounds`
        times: the edges place a soft card's outline within a few pixels, and a few
        pixels off its reading falls below the bar."""
        code, start = identity.best, identity
        for _ in range(self.params.fit_polish_rounds if rounds is None else rounds):
            better = None
            for moved in nudges(rect, step):
                px = to_px(moved)
                again = self._identify_crop(image, px, seen, reads)
                self.identifications += 1
                if again.best == code and again.score > (better or (identity,))[0].score:
                    better = (again, px, moved)
            if better is None:
                break
            identity, corners, rect = better
            if self._polish_ok(start, identity):
                break
        return identity, corners

    def _polish_ok(self, start: Identity, identity: Identity) -> bool:
        """Does `identity`, polished up from `start` (or `start` itself), read clearly enough
        to name the card? `_fit_clear`, or `_fit_led` where `start` had no lead."""
        if identity is start or start.margin >= self.params.fit_clear_margin:
            return self._fit_clear(identity)
        return self._fit_led(identity)

    # -- identities -------------------------------------------------------------

    def _identify_all(self, image: np.ndarray | Callable[[], np.ndarray], quads: list[CardQuad], to_px,
                      to_mm, same_mapping: bool = False, reads: dict[tuple, Identity] | None = None,
                      grey: np.ndarray | None = None) -> list[CardSeen]:
        """Each quad's identity: the cached one while the card lies still, else read
        from the frame (`image`, or a function fetching it only then). `same_mapping`:
        to_px and to_mm are the last frame's (a quad of the last frame is then its card
        as seen then, frame pixels and all). `grey`: the frame in grey, if at hand."""
        out: list[CardSeen] = []
        kept: list[_Known] = []
        last, self._last_cards = (self._last_cards if same_mapping else {}), {}
        centres = None  # the cached cards' centres once per frame, not once per card (40 cards: 1.5 ms)
        for quad in quads:
            again = last.get(id(quad))
            if again is not None and again[0] is quad:
                # the very quad of the last frame (a blob or a part of the mat unchanged):
                # while its identity needs no reading, it is the same card seen the same
                card, known = again[1], again[2]
                age = self._frame - known.checked
                if self._cache_holds(known, age):
                    if card.fresh:  # replayed from now on
                        card = dataclasses.replace(card, fresh=False)
                        again = (quad, card, known)
                    out.append(card)
                    kept.append(known)
                    self._last_cards[id(quad)] = again
                    continue
            found_mm = to_mm(quad.corners)  # where the detector puts it: the cache's key
            if centres is None and self._known:
                centres = np.array([k.corners_mm.mean(axis=0) for k in self._known])
            known = self._recall(found_mm, centres)
            age = self._frame - known.checked if known is not None else 0
            alt = known.alt if known is not None and known.alt <= len(quad.alternatives) else 0
            lies = quad.alternatives[alt - 1] if alt else quad.corners
            # the detector's own quad in the frame (where it is read), worked out once: the
            # same functions of the same corners gave the same values two and three times
            found_px = to_px(quad.corners) if lies is quad.corners else None
            if found_px is not None:
                corners_px, corners_mm = found_px, found_mm
            else:
                corners_px, corners_mm = to_px(lies), to_mm(lies)
            fresh = not (known is not None and self._cache_holds(known, age))
            if not fresh:
                assert known is not None
                identity = known.identity
                k = int(np.argmin(np.linalg.norm(corners_mm - known.top_left_mm, axis=1)))
            else:
                frame = image() if callable(image) else image
                if found_px is None:
                    found_px = to_px(quad.corners)
                identity = self._identify_crop(frame, found_px, quad.seen, reads, grey)
                self.identifications += 1
                alt = 0
                # where the detector could not tell where the card lies, the place whose
                # reading is clear is the card's
                for n, other in enumerate(quad.alternatives if not identity.known else (), 1):
                    seen_there = quad.alternatives_seen[n - 1] if len(quad.alternatives_seen) >= n \
                        else quad.seen
                    trial = self._identify_crop(frame, to_px(other), seen_there, reads, grey)
                    self.identifications += 1
                    turned = n > len(quad.alternatives) - quad.turned
                    if trial.known and (not identity.known or trial.score > identity.score) \
                            and not (turned and trial.score < self.params.turned_min_score):
                        identity, alt = trial, n
                lies = quad.alternatives[alt - 1] if alt else quad.corners
                corners_px, corners_mm = (found_px, found_mm) if alt == 0 else (to_px(lies), to_mm(lies))
                k = identity.rotation
                same = known is not None and identity.known and known.identity.code == identity.code
                agree = known.agree + 1 if same else (1 if identity.known else 0)
                known = _Known(found_mm, identity, agree, self._frame, corners_mm[k], alt)
            known.corners_mm = found_mm
            known.alt = alt
            known.top_left_mm = corners_mm[k]
            kept.append(known)
            ordered_px = corners_px[ROLL[k]]
            ordered_mm = corners_mm[ROLL[k]]
            # ordered_mm.mean(axis=0) to the bit, as plain floats (they compare faster)
            place = zone_at(self.mat, *(np.add.reduce(ordered_mm, axis=0) / len(ordered_mm)).tolist())
            out.append(CardSeen(ordered_px, ordered_mm, identity.code, identity.score, identity.margin,
                                place, quad.complete, identity.candidates, identity.note, fresh))
            self._last_cards[id(quad)] = (quad, out[-1], known)
        self._known = kept
        return out

    def _cache_holds(self, known: _Known, age: int) -> bool:
        """Does a cached identity `age` frames old still stand, without a new reading?"""
        p = self.params
        if known.identity.known:
            return known.agree >= p.confirm and age < p.recheck_frames
        return age < (p.retry_back if is_back(known.identity.best) else p.retry_unknown)

    def _identify_crop(self, image: np.ndarray, corners_px: np.ndarray, seen,
                       reads: dict[tuple, Identity] | None = None, grey: np.ndarray | None = None
                       ) -> Identity:
        """`identify` on a crop of the frame around the card: every stage of it reads only
        near the card (the index window, the edge's blur, the face), and a crop spares it
        whole-frame work (a grey copy of the frame per card was a fifth of its cost).
        `reads`: this frame's readings so far, by exact corners and seen corners: a quad
        read again (without a mat, a whole card read to choose the scale) is not.
        `grey`: the frame in grey (cv2.COLOR_BGR2GRAY), if at hand."""
        q = np.asarray(corners_px, np.float32).reshape(4, 2)
        key = (q.tobytes(), tuple(bool(v) for v in seen))
        if reads is not None and key in reads:
            return reads[key]
        identity = self._identify_at(image, q, seen, grey)
        if reads is not None:
            reads[key] = identity
        return identity

    def _identify_at(self, image: np.ndarray, q: np.ndarray, seen, grey: np.ndarray | None = None
                     ) -> Identity:
        """`identify` on the crop around corners `q` (float32, frame pixels); `grey`: the
        frame in grey, if at hand."""
        h, w = image.shape[:2]
        ppm = float(np.linalg.norm(q[1] - q[0])) / min(self.size_mm)
        pad = int(np.ceil(CROP_PAD_MM * max(ppm, 0.5))) + 12
        # the crop's bounds on plain floats: the same whole numbers as numpy's floor, ceil
        # and clip of the corners (float32, far below 2**24), at a third of the cost
        (lx, ly), (hx, hy) = q.min(axis=0).tolist(), q.max(axis=0).tolist()
        x0, y0 = min(max(math.floor(lx) - pad, 0), w), min(max(math.floor(ly) - pad, 0), h)
        x1, y1 = min(max(math.ceil(hx) + pad + 1, 0), w), min(max(math.ceil(hy) + pad + 1, 0), h)
        if x1 - x0 < 8 or y1 - y0 < 8:
            return identify(image, q, self.templates, seen, self.params.identify, self.prior, grey=grey)
        shift = np.array([x0, y0], np.float32)
        identity = identify(image[y0:y1, x0:x1], q - shift, self.templates, seen, self.params.identify,
                            self.prior, grey=None if grey is None else grey[y0:y1, x0:x1])
        return dataclasses.replace(identity, corners=np.asarray(identity.corners, np.float32) + shift)

    def _recall(self, corners_mm: np.ndarray, centres: np.ndarray | None = None) -> _Known | None:
        """The cached card lying where this one lies: its centre within cache_mm and its
        sides turned by less than 5 degrees (a quad inferred from a covered card wobbles
        more at its far corners than at its centre). `centres`: the cached cards' centres
        at the start of the frame."""
        if not self._known:
            return None
        if centres is None:
            centres = np.array([k.corners_mm.mean(axis=0) for k in self._known])
        off = centres - corners_mm.mean(axis=0)
        d = np.hypot(off[:, 0], off[:, 1])
        i = int(np.argmin(d))
        if d[i] > self.params.cache_mm:
            return None
        # plain floats: numpy's per-call cost on 2-vectors was most of this (12 cards: 1 ms a frame)
        other = self._known[i].corners_mm
        ax, ay = float(corners_mm[1, 0] - corners_mm[0, 0]), float(corners_mm[1, 1] - corners_mm[0, 1])
        bx, by = float(other[1, 0] - other[0, 0]), float(other[1, 1] - other[0, 1])
        turn = abs(math.degrees(math.atan2(ax * by - ay * bx, ax * bx + ay * by))) % 90
        return self._known[i] if min(turn, 90 - turn) <= 5.0 else None


class _CropMemo:
    """`detect.BlobMemo` as `find_cards` uses it on a crop of the view whose top-left lies
    at `origin`: the blobs of the last whole search (or the last crops) that are unchanged
    give their quads again, as in a search of the whole view, where a card lying still
    keeps the quad it was first fitted with (its fit may flip between two outlines a few
    pixels apart on a mask a few pixels different). What the crop finds is kept in
    `entries`, in the view's pixels."""

    def __init__(self, memo: BlobMemo, origin: tuple[int, int]) -> None:
        self.memo = memo
        self.shift = np.array([origin[0], origin[1]], np.float32)
        self.offset = np.array([origin[0], origin[1], 0.0, 0.0])
        self.entries: list[tuple[np.ndarray, float, list[CardQuad]]] = []

    def recall(self, box: np.ndarray, area: float) -> list[CardQuad] | None:
        found = self.memo.match(box + self.offset, area)
        if found is None:
            return None
        self.entries.append(found)
        return [_shifted(q, -self.shift) for q in found[2]]

    def keep(self, box: np.ndarray, area: float, cards: list[CardQuad]) -> None:
        self.entries.append((box + self.offset, area, [_shifted(q, self.shift) for q in cards]))

    def next_frame(self) -> None:
        """The pipeline puts `entries` in the memo once every crop is searched."""


def _shifted(q: CardQuad, by: np.ndarray) -> CardQuad:
    return CardQuad(q.corners + by, q.support, q.seen, tuple(a + by for a in q.alternatives))


class _Fetch:
    """A frame, or a function fetching it, fetched at most once."""

    def __init__(self, image: np.ndarray | Callable[[], np.ndarray]) -> None:
        self._source = image
        self._image: np.ndarray | None = None if callable(image) else image
        if self._image is not None:
            _check_frame(self._image)

    def __call__(self) -> np.ndarray:
        if self._image is None:
            source = self._source
            assert callable(source)
            self._image = _check_frame(source())
        return self._image


def _px_per_mm(H: np.ndarray, size_mm: tuple[float, float]) -> float:
    """The picture's pixels per mm at the middle of a mat of `size_mm` that H maps from
    the picture to (its mean over the two axes)."""
    cx, cy = size_mm[0] / 2, size_mm[1] / 2
    mm = np.array([[cx - 25, cy], [cx + 25, cy], [cx, cy - 25], [cx, cy + 25]], np.float64)
    px = to_plane(mm, np.linalg.inv(H))
    return float(np.linalg.norm(px[1] - px[0]) + np.linalg.norm(px[3] - px[2])) / 100.0


def _check_frame(image: np.ndarray) -> np.ndarray:
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"a frame must be a BGR uint8 image, got {image.dtype} {image.shape}")
    return image


def _scaled(points: np.ndarray, f: float) -> np.ndarray:
    """Pixels of an image `f` times smaller than the frame as the frame's pixels (pixel
    centres: a lores pixel covers f x f frame pixels)."""
    return points if f == 1.0 else (np.asarray(points, np.float64) + 0.5) * f - 0.5


def _unscaled_h(H: np.ndarray, f: float) -> np.ndarray:
    """A homography from the pixels of an image `f` times smaller than the frame, made
    to take the frame's own pixels."""
    if f == 1.0:
        return H
    A = np.array([[1 / f, 0.0, 0.5 / f - 0.5], [0.0, 1 / f, 0.5 / f - 0.5], [0.0, 0.0, 1.0]])
    return H @ A


def _box(points: np.ndarray, grow: float) -> tuple[float, float, float, float]:
    """The box (x0, y0, x1, y1) around points, `grow` wider all round."""
    pts = np.asarray(points).reshape(-1, 2)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    return float(lo[0]) - grow, float(lo[1]) - grow, float(hi[0]) + grow, float(hi[1]) + grow


def _touches(box, boxes) -> bool:
    """Does `box` overlap any of `boxes` (each x0, y0, x1, y1)?"""
    x0, y0, x1, y1 = box
    return any(x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1 for b in boxes)


def _holds(boxes: list[_Box], point: np.ndarray) -> bool:
    """Does any of `boxes` (each x0, y0, x1, y1) hold the point?"""
    x, y = float(point[0]), float(point[1])
    return any(b[0] <= x < b[2] and b[1] <= y < b[3] for b in boxes)


def _merged(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Boxes, each overlapping pair replaced by the box around both, until none overlap."""
    out = list(boxes)
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                if _touches(out[i], [out[j]]):
                    a, b = out[i], out.pop(j)
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    merged = True
                    break
            if merged:
                break
    return out


def _near(a: np.ndarray, b: np.ndarray, card_px: tuple[float, float]) -> bool:
    """Are two quads' centres within a third of a card's short side (one card twice)?"""
    d = a.mean(axis=0) - b.mean(axis=0)
    return math.hypot(float(d[0]), float(d[1])) <= 0.33 * min(card_px)


def _dedupe_quads(quads: list[CardQuad], card_px: tuple[float, float]) -> list[CardQuad]:
    """Each card once (two crops may both hold it): the first of quads lying at one place."""
    out: list[CardQuad] = []
    for q in quads:
        if not any(_near(q.corners, k.corners, card_px) for k in out):
            out.append(q)
    return out


def _with_index_cards(cards: list[CardSeen], image: np.ndarray, g, params: IndexParams,
                      prior: Prior | None, to_mm) -> list[CardSeen]:
    """Cards found by their corner index alone join the cards found by their outline:
    each code once, and an unnamed outline around a named index gives way to it. A card
    the rules say is already in play needs twice the lead (as in vision.identify)."""
    have = {c.code for c in cards if c.code}
    found = [i for i in find_index_cards(image, g, params, [c.corners_px for c in cards if c.code])
             if i.code not in have
             and (prior is None or i.code in prior.likely or i.margin >= 2 * params.min_margin)]
    if not found:
        return cards

    def holds(c: CardSeen, pt: tuple[float, float]) -> bool:
        return cv2.pointPolygonTest(np.asarray(c.corners_px, np.float32).reshape(-1, 1, 2), pt, False) >= 0

    kept = [c for c in cards if c.code or not any(holds(c, i.at) for i in found)]
    for i in found:
        mm = to_mm(i.corners)
        kept.append(CardSeen(i.corners, mm, i.code, i.score, i.margin, zone_at(None, *mm.mean(axis=0)),
                             False, i.candidates))
    return kept


def _once_each(cards: list[CardSeen]) -> list[CardSeen]:
    """A deck holds each card once: of cards named alike in one picture, the one read
    with the clearest margin keeps the name and the others are unknown (their
    candidates kept). A webcam photo of JS and JC, washed out, read both as JS."""
    best: dict[str, CardSeen] = {}
    for c in cards:
        if c.code and not is_back(c.code) and (c.code not in best or c.margin > best[c.code].margin):
            best[c.code] = c
    return [c if not c.code or is_back(c.code) or best[c.code] is c else dataclasses.replace(c, code=None)
            for c in cards]


def _one_per_place(cards: list[CardSeen], most: float = 0.6) -> list[CardSeen]:
    """One card per place: an unknown card lying mostly (over `most` of the smaller's
    area) on a named card, or on an unknown one before it, is the same card cut twice (a
    face-down card on a printed mat, also cut with the label printed under it), or a
    card more than half hidden, which is not counted; it goes."""
    kept: list[CardSeen] = []
    for c in sorted(cards, key=lambda c: c.code is None):  # named first, else in order
        if c.code is None and any(_covers(k.corners_px, c.corners_px, most) for k in kept):
            continue
        kept.append(c)
    return [c for c in cards if any(c is k for k in kept)]


def _covers(a: np.ndarray, b: np.ndarray, most: float) -> bool:
    """Do quads `a` and `b` overlap over more than `most` of the smaller one's area?"""
    inter, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32), np.asarray(b, np.float32))
    smaller = min(cv2.contourArea(np.asarray(a, np.float32)), cv2.contourArea(np.asarray(b, np.float32)))
    return smaller > 0 and inter > most * smaller


def _table_contrast(image: np.ndarray, f: float, saturation: float) -> list[np.ndarray]:
    """The frame (BGR), f times smaller, as grey images where cards stand out from a
    table that the grey frame shows them poorly on: a cream card on light oak under warm
    light, a tinted card on white laminate. First each pixel's distance in colour (CIE
    Lab) from the table's (the frame's median: most of a frame is table); then, on a
    table of a strong colour (median saturation at least `saturation`), 255 minus the
    saturation (paper has little colour, wood and felt much)."""
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else image
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    table = np.median(lab.reshape(-1, 3)[::7], axis=0)
    distance = np.sqrt(((lab - table) ** 2).sum(axis=2))
    out = [np.clip(distance * 2.5, 0, 255).astype(np.uint8)]
    sat = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)[..., 1]
    if float(np.median(sat)) >= saturation:
        out.append(255 - sat)
    return out


def _pick_cuts(sets: list[list[CardQuad]], most: float = 0.1) -> list[CardQuad]:
    """The cards cut from several images of one view (the grey one, then the colour
    contrasts: `_table_contrast`), each place's from one image. Cards of different
    images overlapping by more than `most` of the smaller one's area are two readings
    of one place; of each such group, the image whose cards there have the most edge
    support in all wins (the earlier image of equal support). Two cards lying end to
    end on light oak in a warm room: the table-contrast image cut one of them across
    the wrong way, the saturation image both right (and the old rule, the first image's
    cards and only the others' clear of them, kept the wrong one)."""
    cards = [(k, c) for k, cut in enumerate(sets) for c in cut]
    group = list(range(len(cards)))

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    quads = [c.corners.astype(np.float32) for _, c in cards]
    areas = [abs(signed_area(c.corners)) for _, c in cards]
    for i in range(len(cards)):
        for j in range(i + 1, len(cards)):
            if cards[i][0] != cards[j][0] and \
                    cv2.intersectConvexConvex(quads[i], quads[j])[0] > most * min(areas[i], areas[j]):
                group[root(i)] = root(j)
    out = []
    for g in sorted({root(i) for i in range(len(cards))}):
        members = [cards[i] for i in range(len(cards)) if root(i) == g]
        support = [sum(c.support for k, c in members if k == n) for n in range(len(sets))]
        best = int(np.argmax(support))  # the first of equal support
        out += [c for k, c in members if k == best]
    return out


def _with_outlines(whole: list[CardQuad], image: np.ndarray, small: np.ndarray, f: float,
                   aspect: float) -> list[CardQuad]:
    """Whole cards from the any-scale outline finder and from the bright-card detector
    (in the detection image `small`'s pixels, the frame downscaled by f), each card once."""
    found = [CardQuad(((c.corners + 0.5) * f - 0.5).astype(np.float32), c.support)
             for c in find_outlines(image, aspect)]
    return _merge_quads(found, whole, small)


def _far_sides_snapped(gray: np.ndarray, quad: np.ndarray, k: int, reach: float) -> np.ndarray:
    """`quad` with the two sides away from corner k each moved, kept parallel, onto the
    offset within `reach` where the grey image changes most across it on average along
    the side: the sides through k are the card's own seen edges and stay."""
    q = np.asarray(quad, np.float64).copy()
    centre = q.mean(axis=0)
    steps = np.arange(-reach, reach + 1e-9, 0.5)
    t = np.linspace(0.15, 0.85, 12)[:, None]
    for i in ((k + 1) % 4, (k + 2) % 4):  # side i runs from corner i to corner i + 1
        a, b = q[i], q[(i + 1) % 4]
        d = b - a
        n = np.array([d[1], -d[0]]) / max(float(np.hypot(*d)), 1e-6)
        if float(n @ (a - centre)) < 0:
            n = -n  # outward
        pts = (a + t * d)[None, :, :] + steps[:, None, None] * n  # (step, sample, xy)
        prof = grey_at(gray, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32))
        change = np.abs(np.diff(prof, axis=0)).mean(axis=1)
        j = int(np.argmax(change))
        shift = (steps[j] + steps[j + 1]) / 2 * n
        q[i] += shift
        q[(i + 1) % 4] += shift
    return q


def _with_turned(card: CardQuad, gray: np.ndarray, reach: float = 0.15, same_from: float = np.inf
                 ) -> CardQuad:
    """`card` with, as other places it may lie (`CardQuad.alternatives`), the card turned
    a quarter about each of its seen corners: its sides from that corner swapped. Only
    for a card with some corners seen and some not (a whole card's corners fix its
    way round; one with none seen has nothing to turn about). Each turned card's two far
    sides are then moved onto the edges in `gray` within `reach` of its short side, and
    again within 1.5 times that where that lands elsewhere, each a place to try
    (`_far_sides_snapped`): a tilted camera foreshortens a card one way round and not the
    other (a landscape card cut at a portrait card's sides came 10 px long). Each is
    handed over clockwise from a short side, as the detector hands cards over. A card
    whose short side is `same_from` or more also lies the same way round with its far
    sides so moved."""
    if card.complete or not any(card.seen):
        return card
    q = np.asarray(card.corners, np.float64)
    turned, seen_turned = [], []
    for k in range(4):
        if not card.seen[k]:
            continue
        nxt, prv = q[(k + 1) % 4] - q[k], q[(k - 1) % 4] - q[k]
        a, b = float(np.linalg.norm(nxt)), float(np.linalg.norm(prv))
        u, v = nxt / max(a, 1e-6), prv / max(b, 1e-6)
        quad = np.empty((4, 2))
        quad[k], quad[(k + 1) % 4] = q[k], q[k] + u * b
        quad[(k + 2) % 4], quad[(k - 1) % 4] = q[k] + u * b + v * a, q[k] + v * a
        near = _far_sides_snapped(gray, quad, k, max(2.0, reach * min(a, b)))
        far = _far_sides_snapped(gray, quad, k, max(2.0, 1.5 * reach * min(a, b)))
        same = _far_sides_snapped(gray, q, k, max(2.0, reach * min(a, b)))
        ways = [near] + ([far] if np.abs(far - near).max() > 1.5 else [])
        ways += [same] if np.abs(same - q).max() > 1.5 and min(a, b) >= same_from else []
        for one in ways:
            if (one < -0.5).any() or (one > (gray.shape[1] - 0.5, gray.shape[0] - 0.5)).any():
                continue  # a card turned out of the picture is read from whatever lies there
            one = np.roll(one, -k, axis=0)  # from the corner turned about ...
            first = np.linalg.norm(one[1] - one[0]) <= np.linalg.norm(one[3] - one[0])
            # ... or the one before it: the first side a short one, as the detector hands cards over
            turned.append((one if first else np.roll(one, 1, axis=0)).astype(np.float32))
            seen_turned.append((True, False, False, False) if first else (False, True, False, False))
    before = tuple(card.seen for _ in card.alternatives)
    return dataclasses.replace(card, alternatives=card.alternatives + tuple(turned),
                               alternatives_seen=before + tuple(seen_turned), turned=len(turned))


def _named_first(quads: list[CardQuad], named: list[bool], most: float = 0.3
                 ) -> tuple[list[CardQuad], list[bool]]:
    """Of whole cards found in several images (the grey frame's first, then the colour
    contrasts'), those overlapping (over `most` of their union) a named card that is
    not themselves are dropped when unnamed, and a later unnamed one overlapping an
    earlier one is dropped: a card outlined askew in the grey frame and squarely in the
    saturation image is read only in the second, and only that one is kept."""
    keep: list[int] = []
    for i, q in enumerate(quads):
        rivals = [j for j in range(len(quads)) if j != i and _iou(q.corners, quads[j].corners) > most]
        if not named[i] and any(named[j] or j in keep for j in rivals):
            continue
        keep.append(i)
    return [quads[i] for i in keep], [named[i] for i in keep]


def _inside_bright(card: CardQuad, bright: np.ndarray, most: float = 0.5) -> bool:
    """Whether a "whole card" lies inside something bright: over `most` of a thin ring
    just outside it (1 to 3 px) is bright. A card's printed frame, or a rectangle across
    two touching cards, has a card's shape but lies on paper; a card, even in a row of
    touching cards, has table along at least half its edge. The IDEAL deck on walnut,
    typical flaws: a frame 0.47 px/mm among cards at 0.57 to 0.64 set the scale, and
    every card cut at it went unread (its ring 0.79 bright, the cards' 0)."""
    outer = np.rint(grow(card.corners, 3.0)).astype(np.int32)
    h, w = bright.shape[:2]
    x0, y0 = np.clip(outer.min(axis=0), 0, (w, h))
    x1, y1 = np.clip(outer.max(axis=0) + 1, 0, (w, h))
    ring = np.zeros((y1 - y0, x1 - x0), np.uint8)  # only the quad's box: a few ms a frame over all of it
    cv2.fillPoly(ring, [outer - (x0, y0)], 1)
    cv2.fillPoly(ring, [np.rint(grow(card.corners, 1.0)).astype(np.int32) - (x0, y0)], 0)
    inside = ring > 0
    on = np.count_nonzero(bright[y0:y1, x0:x1][inside])
    return bool(inside.any()) and on > most * np.count_nonzero(inside)


def _scale_field(cards: list[CardQuad], size_mm: tuple[float, float], shape: tuple[int, ...],
                 named: Sequence[bool] | None = None, agree: float = 0.22, fit: float = 0.07,
                 tilt: float = 1.35, apart: float = 3.0, cluster_tol: float | None = None
                 ) -> tuple[float | None, tuple[float, float, float] | None, list[CardQuad]]:
    """The cards' scale (px/mm) and, where it can be told, a plane fitted to the whole
    cards' own scales by their centres, (a, b, c) of a + b x + c y: a camera tilted over
    a table without a mat sees near cards larger than far ones (the synthetic table,
    typical flaws: 0.53 to 0.64 px/mm in one picture, and cards cut at one scale came 7
    to 10 % off and went unread).

    Not every "whole card" is one: two cards lying end to end, or a hand, can make a
    quad of nearly a card's shape. A card's short and long sides must give one scale
    (within `agree`: a hand, 0.64 and 0.75), and the plane is the one most cards agree
    with (within `fit`), found from every three of them and backed by a fourth (two
    stacked cards, 1.3 times a card, pulled the old least-squares fit and median 10 %
    high). The scale is the median of the cards that agree. A plane must also be one a
    camera could make: over the picture (`shape`), its scale stays within `tilt` of its
    scale at the middle (the room bench's tilted camera: 1.1; a plane through three cards
    and a stacked pair by chance: 1.75). The plane is None with fewer than four cards
    agreeing or their centres in a line. Also returned: the cards that agree (with the
    plane, or with the scale).

    `named[i]`: card i was read as a card of the deck, so it is surely one card. Named
    cards whose scales a camera could show together (within `tilt`) choose the cards that
    agree, themselves and those within `fit` of their range, and the scale is those
    cards' median; a plane must hold the most named cards first."""
    short_mm, long_mm = min(size_mm), max(size_mm)
    measured = []
    for i, c in enumerate(cards):
        if c.complete:
            short, long_ = short_long(c.corners)
            measured.append((c, short / short_mm, long_ / long_mm, bool(named is not None and named[i])))
    if not measured:
        return None, None, []
    # a phone held at a slant sees every card's sides unequally: then all of them serve
    kept = [m for m in measured if m[3] or abs(m[1] - m[2]) <= agree * (m[1] + m[2]) / 2] or measured
    quads = [m[0] for m in kept]
    sure = np.array([m[3] for m in kept])
    centres = [np.asarray(q.corners, np.float64).mean(axis=0) for q in quads]
    scales = [math.sqrt(m[1] * m[2]) for m in kept]  # by area: a card seen at a slant is narrower one way
    s = np.array(scales)
    # the scale the most cards agree with (within `cluster_tol`, else `fit`); of equally
    # many, the smallest: a "card" too large is often two, one too small seldom a card's
    # shape (`_inside_bright` drops the printed frames that are)
    near = np.abs(s[:, None] - s[None, :]) <= (fit if cluster_tol is None else cluster_tol) * s[None, :]
    count = near.sum(axis=0)
    cluster = near[:, int(np.lexsort((s, -count))[0])]
    if sure.any() and s[sure].max() <= tilt * s[sure].min():
        cluster = sure | ((s >= s[sure].min() / (1 + fit)) & (s <= s[sure].max() * (1 + fit)))
    agreed = float(np.median(s[cluster])), None, [q for q, k in zip(quads, cluster, strict=True) if k]
    if sure.any() and cluster[sure].all():
        # named cards far enough apart show how the scale changes between them
        plane = _named_plane(np.array(centres)[sure], s[sure], shape, tilt, apart * long_mm)
        agreed = agreed[0], plane, agreed[2]
    if len(s) < 4:
        return agreed
    A = np.column_stack([np.ones(len(s)), np.array(centres)])
    triples = np.array(list(itertools.combinations(range(len(s)), 3)))
    if len(triples) > 400:  # 16 cards or more: a fixed sample of them serves
        triples = triples[np.random.default_rng(0).choice(len(triples), 400, replace=False)]
    M, v = A[triples], s[triples]
    span = float(np.ptp(A[:, 1:])) or 1.0
    ok = np.abs(np.linalg.det(M)) > 1e-3 * span * span  # three centres not in a line
    best, best_key = np.zeros(len(s), bool), (0, 0.0)
    if ok.any():
        planes = np.linalg.solve(M[ok], v[ok][..., None])[..., 0]  # (T, 3)
        h, w = shape[:2]
        corners = np.array([[1, 0, 0], [1, w, 0], [1, 0, h], [1, w, h]], np.float64)
        middle = planes @ np.array([1.0, w / 2, h / 2])
        ratio = (corners @ planes.T) / np.where(middle > 0, middle, np.nan)[None, :]
        camera = np.all((ratio <= tilt) & (ratio >= 1 / tilt), axis=0)  # NaN: none
        err = np.abs(A @ planes.T - s[:, None]) / s[:, None]  # (n, T)
        inl = (err <= fit) & camera[None, :]
        count = inl.sum(axis=0)
        spread = np.where(inl, err, 0.0).sum(axis=0)
        k = int(np.lexsort((spread, -count, -(inl & sure[:, None]).sum(axis=0)))[0])
        best, best_key = inl[:, k], (int(count[k]), float(spread[k]))
    if best_key[0] < 4:
        # three cards make a plane whatever their scales: one more must agree with it;
        # else the scale most cards agree with, and one everywhere (or the named cards' plane)
        return agreed
    Ai = A[best]
    inliers = [q for q, k in zip(quads, best, strict=True) if k]
    if np.linalg.matrix_rank(Ai, tol=1e-3 * float(np.abs(Ai).max())) < 3:
        return float(np.median(s[best])), None, inliers
    coef = np.linalg.lstsq(Ai, s[best], rcond=None)[0]
    return float(np.median(s[best])), (float(coef[0]), float(coef[1]), float(coef[2])), inliers


def _named_plane(centres: np.ndarray, scales: np.ndarray, shape: tuple[int, ...], tilt: float,
                 apart_mm: float) -> tuple[float, float, float] | None:
    """The plane (a, b, c) of scale over the picture through named cards alone (surely
    cards, so no fourth need back three): least squares along the directions over which
    the cards lie at least `apart_mm` apart (at their scale), the scale unchanged across
    them (two cards: along their line only); their sizes' own error, 1 or 2 %, over a
    shorter span would tilt it. None without such a direction, or when no camera makes
    the plane (over the picture, beyond `tilt`)."""
    if len(scales) < 2:
        return None
    s0 = float(scales.mean())
    p0 = centres.mean(axis=0)
    d = centres - p0
    # the scale changes only along directions over which the cards lie far enough apart
    along = [v for v in np.linalg.svd(d, full_matrices=False)[2] if float(np.ptp(d @ v)) >= apart_mm * s0]
    if not along:
        return None
    V = np.array(along)  # (k, 2)
    g = V.T @ np.linalg.lstsq(d @ V.T, scales - s0, rcond=None)[0]
    a, b, c = s0 - float(g @ p0), float(g[0]), float(g[1])
    h, w = shape[:2]
    middle = a + b * w / 2 + c * h / 2
    at = np.array([a, a + b * w, a + c * h, a + b * w + c * h])
    if middle <= 0 or not np.all((at <= tilt * middle) & (at >= middle / tilt)):
        return None
    return a, b, c


def _flattening(cards: list[CardQuad], size_mm: tuple[float, float], scale: float,
                shape: tuple[int, ...], fit: float = 0.04) -> tuple[np.ndarray, tuple[int, int]] | None:
    """The homography (3x3) that flattens the table as the picture shows it, and the
    size (w, h) of the flattened view: each of `cards` (whole cards that agree on the
    scale) becomes the card's exact rectangle at `scale`, wherever it lies. A camera
    tilted over a table without a mat sees far cards smaller and foreshortened along
    the tilt (the room bench: a card's two sides 6 % apart, its scale 0.50 to 0.61 px/mm
    over one picture); cut at one size and shape, cards lying end to end went unread.
    In the flattened view the cards' scales were 0.586 to 0.596.

    First by turns: each card's exact rectangle is laid where the last homography puts
    the card (turned and shifted to fit its corners, not scaled) and the homography is
    fitted again to all corners, twice that step. That creeps (60 turns left a steep
    view 3 % off), so a few damped Gauss-Newton steps on the homography finish it, in
    coordinates centred and scaled as a fit needs. (Right angles alone fix a flattening
    in closed form, but the room bench's few cards, turned alike, gave it sides 1.2 to
    1.6 to one.) None with fewer than three cards, where the cards do not then fit
    their rectangles within `fit` of a card's width, or where the view would be more
    than twice the picture."""
    if len(cards) < 3:
        return None
    cw, ch = min(size_mm) * scale, max(size_mm) * scale
    seen = np.vstack([np.asarray(c.corners, np.float64) for c in cards])
    H = np.eye(3)
    for _ in range(4):
        flat = cv2.perspectiveTransform(seen.reshape(-1, 1, 2), H).reshape(-1, 4, 2)
        again, _ = cv2.findHomography(seen, _laid(flat, cw, ch).reshape(-1, 2), 0)
        if again is None:
            return None
        H = H + 2.0 * (again / again[2, 2] - H)
    mu = seen.mean(axis=0)
    sc = 1.0 / max(float(np.sqrt(((seen - mu) ** 2).sum(axis=1).mean())), 1e-9)
    T = np.array([[sc, 0, -sc * mu[0]], [0, sc, -sc * mu[1]], [0, 0, 1]])
    near = ((seen - mu) * sc).reshape(-1, 1, 2)

    def off(g: np.ndarray) -> np.ndarray:
        flat = cv2.perspectiveTransform(near, np.append(g, 1.0).reshape(3, 3)).reshape(-1, 4, 2)
        return (flat - _laid(flat, cw, ch)).ravel()

    G = H @ np.linalg.inv(T)
    if abs(G[2, 2]) < 1e-12:
        return None
    g, damping = (G / G[2, 2]).ravel()[:8], 1e-3
    r = off(g)
    for _ in range(4):
        J = np.empty((len(r), 8))
        for k in range(8):
            step = np.zeros(8)
            step[k] = 1e-6 * max(1.0, abs(g[k]))
            J[:, k] = (off(g + step) - r) / step[k]
        A = J.T @ J
        tried = g - np.linalg.solve(A + damping * np.diag(np.diag(A) + 1e-12), J.T @ r)
        r2 = off(tried)
        if float(r2 @ r2) < float(r @ r):
            g, r, damping = tried, r2, damping * 0.3
        else:
            damping *= 10
    if float(np.abs(r).max()) > fit * cw:
        return None
    H = np.append(g, 1.0).reshape(3, 3) @ T
    h, w = shape[:2]
    frame = cv2.perspectiveTransform(np.array([[[0, 0]], [[w, 0]], [[w, h]], [[0, h]]], np.float64), H)
    lo, hi = frame.reshape(4, 2).min(axis=0), frame.reshape(4, 2).max(axis=0)
    size = hi - lo
    if size[0] * size[1] > 2 * w * h:
        return None
    H = np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]]) @ H
    return H / H[2, 2], (int(np.ceil(size[0])), int(np.ceil(size[1])))


def _paper_seen(seen: tuple[bool, ...], corners_px: np.ndarray, bright: np.ndarray, f: float,
                radius_px: float, least: float, keep: bool = True) -> tuple[bool, ...]:
    """`seen`, with each corner also not seen where under `least` of the bright mask
    (at f times the frame's size) within `radius_px` frame px inside it shows paper: a
    hand or a sleeve lies on it. `keep`: unchanged where no corner would be left seen."""
    centre = corners_px.mean(axis=0)
    h, w = bright.shape[:2]
    out = []
    for (x, y), was in zip(corners_px, seen, strict=True):
        inward = centre - (x, y)
        d = float(np.hypot(*inward)) or 1.0
        px, py = (np.array([x, y]) + inward * min(1.0, 2 * radius_px / d) + 0.5) * f - 0.5
        r = max(1, round(radius_px * f))
        x0, y0 = max(0, round(px) - r), max(0, round(py) - r)
        patch = bright[y0:min(h, round(py) + r + 1), x0:min(w, round(px) + r + 1)]
        out.append(was and (patch.size == 0 or float(np.count_nonzero(patch)) / patch.size >= least))
    return tuple(out) if any(out) or not keep else seen


def _view_maps(f: float, H: np.ndarray | None
               ) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """(to_view, to_px): frame px to the view the cards were cut in (the frame at f
    times its size, flattened by H where there is one) and back (float32)."""
    back = None if H is None else np.linalg.inv(H)

    def to_view(q: np.ndarray) -> np.ndarray:
        q = (np.asarray(q, np.float64) + 0.5) * f - 0.5
        return q if H is None else cv2.perspectiveTransform(q[None], H)[0]

    def to_px(q: np.ndarray) -> np.ndarray:
        q = q if back is None else cv2.perspectiveTransform(np.asarray(q, np.float64)[None], back)[0]
        return ((q + 0.5) / f - 0.5).astype(np.float32)

    return to_view, to_px


def _neighbour_angle(named: list[np.ndarray], centre: np.ndarray, angle: float, reach: float,
                     apart_deg: float) -> float | None:
    """The turn (radians) of the named card nearest `centre`, within `reach`, where it
    differs from `angle` by `apart_deg` degrees or more, quarter turns aside; else None."""
    near = [(float(np.linalg.norm(q.mean(axis=0) - centre)), q) for q in named]
    near = [dq for dq in near if dq[0] <= reach]
    if not near:
        return None
    q = min(near, key=lambda dq: dq[0])[1]
    side = q[1] - q[0]
    return _turned_apart(math.atan2(float(side[1]), float(side[0])), angle, apart_deg)


def _turned_apart(theirs: float, angle: float, apart_deg: float) -> float | None:
    """`theirs` (radians) where it differs from `angle` by `apart_deg` degrees or more,
    quarter turns aside (a card's sides lie a quarter turn apart); else None."""
    apart = (theirs - angle) % (math.pi / 2)
    apart = min(apart, math.pi / 2 - apart)
    return theirs if math.degrees(apart) >= apart_deg else None


def _other_sides_angle(q: np.ndarray, angle: float, apart_deg: float) -> float | None:
    """The turn (radians) a quad's second pair of sides gives its first side (that side's
    direction less a quarter), where it differs from `angle` (the first side's) by
    `apart_deg` degrees or more, quarter turns aside; else None (the quad is near enough
    a rectangle)."""
    side = q[2] - q[1]
    return _turned_apart(math.atan2(float(side[1]), float(side[0])) - math.pi / 2, angle, apart_deg)


def _halves(quad: np.ndarray) -> list[np.ndarray]:
    """The two halves of a quad cut across its long sides, each ordered as a card's
    (`order_quad`): two cards lying side by side, if the quad is their outline."""
    q = np.asarray(quad, np.float32)
    side = np.linalg.norm(q[ROLL[1]] - q, axis=1)
    if side[0] + side[2] < side[1] + side[3]:
        q = q[ROLL[1]]  # q0->q1 a long side
    a, b = (q[0] + q[1]) / 2, (q[3] + q[2]) / 2
    return [order_quad(np.array([q[0], a, b, q[3]])), order_quad(np.array([a, q[1], q[2], b]))]


def _laid(quads: np.ndarray, cw: float, ch: float) -> np.ndarray:
    """Each quad's exact card rectangle (cw by ch, its short side where the quad's is)
    turned and shifted onto its corners in the least-squares sense, not scaled: (N, 4, 2)."""
    q = np.asarray(quads, np.float64)
    s01 = np.linalg.norm(q[:, 1] - q[:, 0], axis=1)
    s12 = np.linalg.norm(q[:, 2] - q[:, 1], axis=1)
    a = np.where(s01 <= s12, cw, ch)
    b = np.where(s01 <= s12, ch, cw)
    zero = np.zeros_like(a)
    rect = np.stack([np.stack([zero, zero], 1), np.stack([a, zero], 1), np.stack([a, b], 1),
                     np.stack([zero, b], 1)], axis=1)  # (N, 4, 2) as order_ideal
    rc, qc = rect - rect.mean(axis=1, keepdims=True), q - q.mean(axis=1, keepdims=True)
    c = (rc * qc).sum(axis=(1, 2))
    d = (rc[..., 0] * qc[..., 1] - rc[..., 1] * qc[..., 0]).sum(axis=1)
    n = np.hypot(c, d)
    n[n == 0] = 1.0
    cos, sin = c / n, d / n
    turned = np.stack([cos[:, None] * rc[..., 0] - sin[:, None] * rc[..., 1],
                       sin[:, None] * rc[..., 0] + cos[:, None] * rc[..., 1]], axis=2)
    return turned + q.mean(axis=1, keepdims=True)


def _moved(card: CardQuad, H: np.ndarray) -> CardQuad:
    """The card's outline (and the other places it may lie) through a homography."""
    def move(q: np.ndarray) -> np.ndarray:
        pts = np.asarray(q, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, H).reshape(4, 2).astype(np.float32)
    return CardQuad(move(card.corners), card.support, card.seen, tuple(move(q) for q in card.alternatives),
                    card.alternatives_seen, card.turned)


def _size_at(plane: tuple[float, float, float] | None, size_mm: tuple[float, float], scale: float
             ) -> Callable[[float, float], tuple[float, float]] | None:
    """The card's size (short, long) in pixels at each point of the picture from a
    `_scale_field` plane, held within 30 % of `scale`; None without a plane."""
    if plane is None:
        return None
    a, b, c = plane
    short_mm, long_mm = min(size_mm), max(size_mm)
    lo, hi = 0.7 * scale, 1.3 * scale

    def size_at(x: float, y: float) -> tuple[float, float]:
        s = min(hi, max(lo, a + b * x + c * y))
        return short_mm * s, long_mm * s

    return size_at


def _of_size(card: CardQuad, card_px: tuple[float, float], tol: float) -> bool:
    """Are the card's sides (the mean of each pair) within `tol` of the card's size?"""
    short, long_ = short_long(card.corners)
    cw, ch = min(card_px), max(card_px)
    return abs(short - cw) <= tol * cw and abs(long_ - ch) <= tol * ch


def _merge_quads(first: list[CardQuad], more: list[CardQuad], gray: np.ndarray) -> list[CardQuad]:
    """`first`, then each of `more` whose centre lies in none of them. Where a card of
    `more` is the same outline as one of `first` (they overlap nine tenths), its
    corners are kept: the bright-card detector's corners are sub-pixel exact. Where
    the two outline one card differently (`_better_outline`), the one on the card's
    edges in `gray` is kept."""
    out = []
    grads: list[np.ndarray] = []
    for k in first:
        ious = [_iou(c.corners, k.corners) for c in more]
        twin = next((c for c, iou in zip(more, ious, strict=True) if iou > 0.9), None)
        if twin is None and more:
            best = int(np.argmax(ious))
            rival = more[best]
            if (ious[best] > 0.5 and all(c is not rival for c in out)
                    and _better_outline(rival, k, gray, grads)):
                twin = rival
        out.append(twin or k)
    placed = list(out)
    for c in more:
        centre = tuple(float(v) for v in c.center)
        if all(cv2.pointPolygonTest(k.corners.reshape(-1, 1, 2), centre, False) < 0 for k in placed):
            out.append(c)
    return out


#: Of two outlines of one card, the other wins when the weakest side of the first has
#: less than this share of the edge strength of the other's weakest side.
OUTLINE_CONTEST = 0.92


def _better_outline(rival: CardQuad, card: CardQuad, gray: np.ndarray, grads: list[np.ndarray]) -> bool:
    """Is `rival` (overlapping `card` by half or more) the better outline of the card?
    Of nearly one size (not two cards side by side, nor a card and its shadow), and its
    weakest side lies on a clearly stronger edge of `gray`: the outline finder can take
    a corner's print for the card's edge and cut a card touching another askew, with one
    side across the card. `grads`: the image's x and y gradients, made on first need."""
    ratio = abs(signed_area(rival.corners)) / max(abs(signed_area(card.corners)), 1e-6)
    if not 0.8 <= ratio <= 1.3:
        return False
    if not grads:
        grads += [cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)]
    gx, gy = grads
    weakest = side_edges(gx, gy, card.corners).min()
    return bool(weakest < OUTLINE_CONTEST * side_edges(gx, gy, rival.corners).min())


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32)) - inter
    return float(inter / union) if union > 0 else 0.0


def still(small: np.ndarray, ref: np.ndarray, level: float, cells: int) -> bool:
    """Two downscaled pictures of the same place are the same but for sensor noise: at
    most `cells` cells differ (in any channel) by more than `level` and five times the
    median difference (the noise, which averaging over a cell has already made smaller).
    A median difference above twice `level` is no noise: most of the picture changed
    (the light, the camera covered)."""
    changed = changed_cells(small, ref, level)
    return changed is not None and changed <= cells


def changed_cells(small: np.ndarray, ref: np.ndarray, level: float) -> int | None:
    """How many cells of two downscaled pictures of the same place differ by more than
    sensor noise (see `still`); None when most of the picture changed."""
    where = changed_map(small, ref, level)
    return None if where is None else int(np.count_nonzero(where))


def changed_map(small: np.ndarray, ref: np.ndarray, level: float, times: float = 5.0) -> np.ndarray | None:
    """Which cells of two downscaled pictures of the same place differ by more than
    sensor noise: by more than `level` and `times` the median difference (see `still`),
    as a boolean map; None when the median difference is above twice `level` (most of
    the picture changed)."""
    d = cv2.absdiff(small, ref)
    if d.ndim == 3:  # the largest over the channels: d.max(axis=2), at a thirtieth of its cost
        d = functools.reduce(cv2.max, cv2.split(d))
    noise = _median_u8(d)
    if noise > 2 * level:
        return None
    return d > max(level, times * noise + 2.0)


def _median_u8(image: np.ndarray) -> float:
    """`np.median` of an 8-bit image, the same value from its histogram at half the cost."""
    n = image.size
    hist = cv2.calcHist([np.ascontiguousarray(image)], [0], None, [256], (0, 256))
    counts = np.cumsum(hist.ravel().astype(np.int64))
    k = n // 2
    upper = float(np.searchsorted(counts, k, side="right"))  # the (k+1)-th smallest value
    if n % 2:
        return upper
    return (float(np.searchsorted(counts, k - 1, side="right")) + upper) / 2


def _polygons(mask: np.ndarray) -> list[np.ndarray]:
    """Outlines of the regions of a mask, simplified, as (N, 2) float arrays."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for c in contours:
        approx = cv2.approxPolyDP(c, 2.0, True).reshape(-1, 2).astype(np.float64)
        if len(approx) >= 3:
            out.append(approx)
    return out


def recognize_image(image: np.ndarray, deck: str, templates: Templates | None = None,
                    mat: MatSpec | None = None) -> FrameResult:
    """The cards in one still image (a photo of the table, a saved frame)."""
    return Recognizer(deck, mat, templates=templates).see(image)


__all__ = ["FOUND", "LOST", "CardSeen", "FrameResult", "PipelineParams", "Recognizer", "recognize_image"]
