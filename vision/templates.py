"""Templates: what each card of a deck looks like, in the form identification compares.

For every card: the top-left corner index and the bottom-right one turned upright, in
grey (for `cv2.matchTemplate`) and in colour (for telling apart cards whose indices
differ only in colour or in a small suit mark), and the whole face at low resolution.
They are built from upright face images: the project's own card art for the built-in
decks (`vision.art.render_card`), or the user's photos for a learned deck (`vision.learn`).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.kept import KeptCache

#: Resolution of the index templates (px/mm): about the camera's own resolution over a
#: table, so nothing is gained by more, and matching cost grows with its square.
INDEX_PPM = 3.0
#: Resolution of the face templates (px/mm): the face only settles which way up a card
#: lies, so coarse is enough.
FACE_PPM = 1.0
#: The index search window reaches this far (mm) around the template on every side.
MARGIN_MM = 1.5
#: The coarse pass works at half the index resolution.
COARSE_STEP = 2
#: The face template is inset this far (mm) from the card's edges (which then serve as
#: the search window, and the rounded corners are left out).
FACE_INSET_MM = 3.0
#: The colour faces that tell apart cards whose corners read alike under blur
#: (identify.by_face) leave out only this much of the edge: the card's own outline.
PAIR_INSET_MM = 1.0
#: Cards whose faces differ nowhere by more than this many grey levels are the same art.
SAME_ART_LEVELS = 12.0
#: The code of a back template (never a card's code: codes have no brackets).
BACK = "(back)"
#: Percentile of a crop's pixels taken as its paper white (indices are mostly paper).
PAPER_PERCENTILE = 92
#: Bytes of identify's pair cache (`Templates.pairs`) kept per deck. An entry is where two
#: cards' colour indices differ (about 100 kB for an IDEAL pair) and is never needed
#: again once its cards left the table: unbounded, a Medieval Mastery game's vision
#: process grew 65 MB in its first minute. 900 frames of it touched 625 pairs, 75 to 140
#: in any 100 frames; kept to 8 MB (about 80 IDEAL pairs) it works out 0.1 more pairs a
#: frame than with every pair kept, 0.2 ms each (docs/kiosk.md, "memory"). Since the
#: places are kept in 16 bits (identify._pair_cached), the same pairs take 5 MB.
PAIRS_KEPT_BYTES = 5 << 20


#: Blur (Gaussian sigma, mm) of the template sets: a camera over a table blurs the print
#: by about its own pixel size, more when it is out of focus; each card is matched at
#: the level that fits it best (docs/vision.md, "Identification").
BLUR_MM = (0.3, 0.7, 1.2)
#: The blur of a card's edge (Gaussian sigma, mm, measured across its outline by
#: identify.edge_blur_mm) that separates the levels. Measured on the synthetic table (727
#: whole cards of three decks, eight blur strengths): up to 0.45 mm every card matched
#: the first set best, from 0.55 to 0.75 mm the second, from 0.95 mm the third; the
#: borders split the two mixed bins (docs/vision.md, "Identification").
LEVEL_EDGES_MM = (0.5, 0.85)
#: The set the coarse pass uses (in between: it only has to rank).
COARSE_LEVEL = 1


@dataclass(frozen=True)
class Templates:
    """The templates of one deck. Arrays are stacked by blur level, then in `codes` order."""

    deck: str
    codes: tuple[str, ...]
    size_mm: tuple[float, float]  # (width, height) of the upright card
    index_box_mm: tuple[float, float, float, float]  # (x, y, w, h) of the top-left index
    index_tl: np.ndarray = field(repr=False)  # (L, N, h, w) uint8 grey
    index_br: np.ndarray = field(repr=False)  # (L, N, h, w) uint8, the other corner turned upright
    colour_tl: np.ndarray = field(repr=False)  # (L, N, h, w, 3) uint8 BGR
    colour_br: np.ndarray = field(repr=False)
    face: np.ndarray = field(repr=False)  # (N, H, W) uint8 grey, inset
    same: Mapping[str, frozenset[str]] = field(repr=False, default_factory=dict)
    coarse: np.ndarray = field(repr=False, default=None)  # (h'*w', 2N): tl then br, half size
    coarse_shape: tuple[int, int] = (0, 0)
    #: identify's pair_margin cache, the most lately used kept up to PAIRS_KEPT_BYTES.
    pairs: MutableMapping = field(repr=False, default_factory=lambda: KeptCache(PAIRS_KEPT_BYTES),
                                  compare=False)
    #: identify's cache of what it derives from the templates as it first needs it: each
    #: index template's spectrum by (kind, level, card) (20 KB a template at 3 px/mm: 6.6
    #: MB if every index template of the standard deck is matched), and the coarse
    #: templates' factors.
    cache: dict = field(repr=False, default_factory=dict, compare=False)
    #: Rank and suit samples (vision.glyphs.Glyphs) for decks whose cards have both:
    #: identification then reads the rank and the suit apart, as a person does.
    glyphs: object | None = field(repr=False, default=None, compare=False)
    #: (N, H, W, 3) uint8 BGR: each whole face at FACE_PPM, sharp (identify.by_face blurs
    #: it as much as the card in view is blurred), inset by PAIR_INSET_MM.
    face_colour: np.ndarray | None = field(repr=False, default=None, compare=False)

    @property
    def square(self) -> bool:
        return abs(self.size_mm[0] - self.size_mm[1]) < 0.5

    @property
    def index_shape(self) -> tuple[int, int]:
        return self.index_tl.shape[2], self.index_tl.shape[3]

    @property
    def card_codes(self) -> tuple[str, ...]:
        """The codes of the cards (the backs left out)."""
        return tuple(c for c in self.codes if not is_back(c))

    @property
    def levels(self) -> int:
        return self.index_tl.shape[0]

    def __len__(self) -> int:
        return len(self.codes)


def _crop(img: np.ndarray, box_mm: tuple[float, float, float, float], ppm: float) -> np.ndarray:
    """A copy, not a view: a kept view would keep the whole card image alive with it."""
    x, y, w, h = (round(v * ppm) for v in box_mm)
    return img[y:y + h, x:x + w].copy()


def flat(stack: np.ndarray) -> np.ndarray:
    """Rows of zero mean and unit length: their dot products are correlations."""
    a = stack.reshape(stack.shape[0], -1).astype(np.float32)
    a -= a.mean(axis=1, keepdims=True)
    return a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-6)


def paper_white(bgr: np.ndarray) -> np.ndarray:
    """A colour crop's paper white, per channel: the value PAPER_PERCENTILE % of its pixels
    reach, at least 1 (float32). Taken from the pixels as they are (8-bit pixels sort
    faster than their float copies, and the order, so the value, is the same)."""
    px = bgr.reshape(-1, 3)
    k = int(PAPER_PERCENTILE / 100 * (len(px) - 1))
    if bgr.dtype == np.uint8 and bgr.ndim == 3 and bgr.shape[2] == 3:
        # the k-th smallest 8-bit value of a channel is where its histogram's running
        # count passes k: the same value as the partition's, at a third of its cost
        # (the partition ran along strided columns: 35 us a crop, 24 crops a cold frame)
        # (the three channels' running counts at once: how many bins run to k or fewer
        # pixels is where the count passes k, as searchsorted finds it)
        counts = np.concatenate([cv2.calcHist([bgr], [c], None, [256], (0, 256)) for c in range(3)])
        values = np.count_nonzero(np.cumsum(counts.reshape(3, 256).astype(np.int64), axis=1) <= k, axis=1)
        return np.maximum(values.astype(np.float32), np.float32(1.0))
    return np.maximum(np.partition(px, k, axis=0)[k].astype(np.float32), np.float32(1.0))


def white_balance(bgr: np.ndarray) -> np.ndarray:
    """Colour divided by the crop's own paper white, per channel (float32, paper = 1):
    the light's colour and strength cancel out, what is left is the ink."""
    f = bgr.astype(np.float32)
    paper = paper_white(bgr)  # the float copy's order is the pixels' own
    if f.ndim == 3 and f.shape[2] == 3:
        # the same IEEE quotients as numpy's, without numpy's inner loop over 3 channels
        return cv2.divide(f, (*paper.tolist(), 1.0))
    return f / paper


def halve(img: np.ndarray) -> np.ndarray:
    """The coarse pass's resolution."""
    h, w = img.shape[:2]
    return cv2.resize(img, (w // COARSE_STEP, h // COARSE_STEP), interpolation=cv2.INTER_AREA)


def soften(img: np.ndarray, sigma_mm: float, ppm: float = INDEX_PPM) -> np.ndarray:
    """Sharp art blurred the way a camera blurs the printed card."""
    return cv2.GaussianBlur(img, (0, 0), sigma_mm * ppm)


def is_back(code: str) -> bool:
    """Is this template a card's back (which names no card)?"""
    return code.startswith(BACK)


def build_templates(deck: str, faces: Mapping[str, np.ndarray], size_mm: tuple[float, float],
                    index_box_mm: tuple[float, float, float, float],
                    backs: Sequence[np.ndarray] = ()) -> Templates:
    """Templates from upright BGR face images (any resolution), one per code, and from
    pictures of the deck's back: a face-down card then matches its back, not a card."""
    if not faces:
        raise ValueError(f"no card faces to build the {deck!r} templates from")
    named_backs = [(BACK if i == 0 else f"{BACK} {i + 1}", back) for i, back in enumerate(backs)]
    w, h = size_mm
    index_px = (round(w * INDEX_PPM), round(h * INDEX_PPM))
    face_px = (round(w * FACE_PPM), round(h * FACE_PPM))
    inset = (FACE_INSET_MM, FACE_INSET_MM, w - 2 * FACE_INSET_MM, h - 2 * FACE_INSET_MM)
    pair_inset = (PAIR_INSET_MM, PAIR_INSET_MM, w - 2 * PAIR_INSET_MM, h - 2 * PAIR_INSET_MM)
    codes, face, blurred, pair_faces = [], [], [], []
    tl: list[list[np.ndarray]] = [[] for _ in BLUR_MM]
    br: list[list[np.ndarray]] = [[] for _ in BLUR_MM]
    ctl: list[list[np.ndarray]] = [[] for _ in BLUR_MM]
    cbr: list[list[np.ndarray]] = [[] for _ in BLUR_MM]
    for code, image in itertools.chain(faces.items(), named_backs):
        if image.ndim != 3:
            raise ValueError(f"the face of {code!r} must be a colour image, got shape {image.shape}")
        codes.append(code)
        sharp = cv2.resize(image, index_px, interpolation=cv2.INTER_AREA)
        for level, sigma in enumerate(BLUR_MM):
            big = soften(sharp, sigma)
            a = _crop(big, index_box_mm, INDEX_PPM)
            b = _crop(cv2.rotate(big, cv2.ROTATE_180), index_box_mm, INDEX_PPM)
            ctl[level].append(a)
            cbr[level].append(b)
            tl[level].append(cv2.cvtColor(a, cv2.COLOR_BGR2GRAY))
            br[level].append(cv2.cvtColor(b, cv2.COLOR_BGR2GRAY))
        resized = cv2.resize(image, face_px, interpolation=cv2.INTER_AREA)
        pair_faces.append(_crop(resized, pair_inset, FACE_PPM))
        small = cv2.GaussianBlur(resized, (3, 3), 0)
        blurred.append(small)  # as drawn (8-bit), not float: 4 times smaller (8.7 MB for IDEAL)
        face.append(_crop(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), inset, FACE_PPM))
    # Each list is dropped as soon as it is stacked: lists and stacks alive together
    # doubled the peak memory of building a big deck's templates.
    tl_a = _stack_levels(tl)
    br_a = _stack_levels(br)
    ctl_a = _stack_levels(ctl)
    cbr_a = _stack_levels(cbr)
    coarse = np.vstack([flat(np.stack([halve(x) for x in tl_a[COARSE_LEVEL]])),
                        flat(np.stack([halve(x) for x in br_a[COARSE_LEVEL]]))]).T.copy()
    fc = np.stack(blurred).reshape(len(codes), -1)
    blurred.clear()
    ic = ctl_a[0].reshape(len(codes), -1)
    same = {}
    for i, c in enumerate(codes):
        # the same art: alike in the corner index, and (of those, a few) in the whole face
        near = np.flatnonzero(_alike_rows(ic, ic[i]))
        near = near[_alike_rows(fc[near], fc[i])]
        same[c] = frozenset(codes[j] for j in near) | {c}
    return Templates(deck, tuple(codes), (float(w), float(h)), tuple(index_box_mm), tl_a, br_a,
                     ctl_a, cbr_a, np.stack(face), same, coarse, halve(tl_a[0, 0]).shape,
                     face_colour=np.stack(pair_faces))


def rank_suit_cards(deck: str) -> dict[str, tuple[str, str, bool]]:
    """code -> (rank, suit, printed red) for the cards of a deck that have a rank and
    one suit (the jokers and the backs have neither)."""
    from companion.cards import get_deck

    return {c.code: (c.rank, c.suit, c.colour == "red") for c in get_deck(deck).cards
            if c.rank and c.suit}


def with_glyphs(t: Templates, faces: Mapping[str, Sequence[np.ndarray]], base: str,
                layout: object | None = None) -> Templates:
    """The templates with rank and suit samples from the faces (several per card
    allowed), if the deck's cards have ranks and suits and a layout is known or can be
    learned from the faces; else unchanged."""
    from vision import glyphs as G

    cards = rank_suit_cards(base)
    if len({r for r, _, _ in cards.values()}) < 2 or len({s for _, s, _ in cards.values()}) < 2:
        return t
    if layout is None:
        layout = G.learn_layout({c: f[0] for c, f in faces.items() if c in cards and f}, t.size_mm)
    if layout is None:
        return t
    return dataclasses.replace(t, glyphs=G.build_glyphs(faces, cards, t.size_mm, layout))


def _alike_rows(rows: np.ndarray, ref: np.ndarray, chunk: int = 16) -> np.ndarray:
    """Which rows differ from `ref` nowhere by SAME_ART_LEVELS or more, compared in float32
    a few rows at a time: the whole stack at once took two float copies of it (35 MB
    for the IDEAL faces) at the peak of building a deck's templates."""
    out = np.empty(len(rows), bool)
    r = ref.astype(np.float32)
    for start in range(0, len(rows), chunk):
        part = rows[start:start + chunk].astype(np.float32)
        out[start:start + chunk] = np.abs(part - r).max(axis=1) < SAME_ART_LEVELS
    return out


def _stack_levels(levels: list[list[np.ndarray]]) -> np.ndarray:
    """One array (level, card, ...) from per-level lists of crops, emptying the lists."""
    stacked = []
    while levels:
        stacked.append(np.stack(levels.pop(0)))
    return np.stack(stacked)


@functools.lru_cache(maxsize=8)
def art_templates(deck: str) -> Templates:
    """Templates of a deck the project draws (vision.art), cached."""
    from companion.cards import get_deck
    from vision import art

    name = get_deck(deck).name
    faces = _DrawnFaces(name, get_deck(name).codes)
    t = build_templates(name, faces, art.card_size_mm(name), art.index_box_mm(name),
                        [art.render_back(name, 6.0)])
    if name == "standard":
        # A real deck the user never taught is read by generic rank and suit samples
        # (vision.generic); our own printed cards still match the drawn corners first.
        from vision.generic import standard_glyphs

        t = dataclasses.replace(t, glyphs=standard_glyphs(t.size_mm, name))
    return t


class _DrawnFaces(Mapping[str, np.ndarray]):
    """A deck's faces drawn one at a time as the template builder reaches them, so only one
    full-size face is alive at once (all 130 IDEAL faces at 6 px/mm held together pushed
    the kiosk's peak memory over its budget)."""

    def __init__(self, deck: str, codes: Sequence[str]) -> None:
        self.deck, self.codes = deck, tuple(codes)

    def __getitem__(self, code: str) -> np.ndarray:
        from vision import art

        if code not in self.codes:
            raise KeyError(code)
        # not kept in vision.art's cache: each face is drawn once, and the cache would
        # hold its last 12 MB of them (20 IDEAL faces) for as long as the recognizer runs
        return art.render_card(self.deck, code, 6.0, keep=False)

    def __iter__(self) -> Iterator[str]:
        return iter(self.codes)

    def __len__(self) -> int:
        return len(self.codes)


def deck_templates(deck: str) -> Templates:
    """The templates of any deck usable by name: a learned deck's own photos, or the
    project's art. Raises NoTemplates (naming the deck) for a deck with neither."""
    from vision import learn

    learned = learn.load_templates(deck)
    if learned is not None:
        return learned
    from vision import art

    try:
        art.deck_art(deck)
    except art.NoArt as exc:
        raise learn.NoTemplates(f"{exc}; teach it with `companion deck learn`") from None
    return art_templates(deck)
