"""Teaching a deck: templates from the user's own cards, in photos or at the table.

Real decks differ from maker to maker, so a user can teach the companion theirs: one
image per card (named by code or name, any size, the card anywhere in the image), or
card by card in front of the camera. A learned deck is a folder under the user's data
directory (`$COMPANION_DATA_DIR`, else platformdirs' user data directory for
"table-companion"): `decks/NAME/manifest.json` and one upright face PNG per card. It
has the cards of its base deck (same codes and names), and once registered
(`register_learned`) it is used by name anywhere a deck is.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.cards import DECK_ALIASES, Deck, get_deck, register_deck
from companion.errors import CompanionError, UnknownCard
from companion.paths import ENV_VAR as ENV_VAR  # re-exported: the variable that moves the data
from companion.paths import learned_decks_dir
from vision.detect import find_cards, order_quad, refine_quad, snap_quad
from vision.glyphs import IndexLayout, glyph_boxes, ink_map, learn_layout, read_index
from vision.identify import IdentifyParams, by_glyphs, warp_card
from vision.imageio import BadImageFile, read_image
from vision.outline import find_outlines
from vision.templates import BACK, Templates, build_templates, with_glyphs

#: Resolution of the stored faces (px/mm): enough for every template made from them.
LEARN_PPM = 6.0
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
MANIFEST = "manifest.json"
FORMAT = 1
BUILT_IN = ("yokir", "piktas", "standard", "ideal", "ahyoheek")


class NoTemplates(CompanionError, LookupError):
    """A deck with no card images to recognise it by."""


class BadDeckName(CompanionError, ValueError):
    """A name a learned deck cannot have."""


class LearnFailed(CompanionError, ValueError):
    """Nothing could be learned (no such folder, no images, no base deck)."""


# --- where learned decks live ---------------------------------------------------

def decks_dir() -> Path:
    return learned_decks_dir()


def check_name(name: str) -> str:
    """A learned deck's name: lower-case letters, digits, '-' and '_', not a built-in."""
    key = (name or "").strip().lower()
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,39}", key):
        raise BadDeckName(f"a deck name is 1 to 40 letters, digits, '-' or '_', got {name!r}")
    if key in BUILT_IN or key in DECK_ALIASES:
        raise BadDeckName(f"{name!r} is a built-in deck; give the learned deck another name")
    return key


@dataclass(frozen=True)
class LearnedDeck:
    """A learned deck as stored: where, its base deck, its geometry and its faces."""

    name: str
    base: str
    path: Path
    size_mm: tuple[float, float]
    index_box_mm: tuple[float, float, float, float]
    faces: dict[str, str]  # code -> file name in `path`
    back: str | None = None  # file name of the back's picture, if taught
    extra: dict[str, list[str]] = field(default_factory=dict)  # code -> more photos of it
    layout: dict | None = None  # where rank and suit lie in the corner (vision.glyphs)

    @property
    def title(self) -> str:
        return f"{self.name} (learned, {self.base} cards)"


def read_manifest(name: str) -> LearnedDeck | None:
    """The learned deck called `name`, or None if there is none."""
    path = decks_dir() / name.strip().lower()
    try:
        data = json.loads((path / MANIFEST).read_text())
        return LearnedDeck(data["name"], data["base"], path, tuple(data["size_mm"]),
                           tuple(data["index_box_mm"]), dict(data["faces"]), data.get("back"),
                           {k: list(v) for k, v in data.get("extra", {}).items()}, data.get("layout"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise NoTemplates(f"the learned deck {name!r} at {path} is damaged ({exc}); "
                          f"teach it again with `companion deck learn`") from None


def learned_decks() -> list[str]:
    """Names of the learned decks on this machine."""
    root = decks_dir()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / MANIFEST).is_file())


def as_deck(learned: LearnedDeck) -> Deck:
    """The learned deck as a companion Deck: its base's cards under its own name."""
    base = get_deck(learned.base)
    cards = [dataclasses.replace(c, deck=learned.name) for c in base.cards]
    return Deck(learned.name, learned.title, cards, base.suits.values(), size_mm=base.size_mm)


def register_learned() -> list[str]:
    """Register every learned deck with companion.cards so it is usable by name."""
    names = []
    for name in learned_decks():
        learned = read_manifest(name)
        if learned is not None and learned.name not in BUILT_IN:
            register_deck(as_deck(learned))
            names.append(learned.name)
    return names


_CACHE: dict[str, tuple[float, Templates]] = {}


def load_templates(name: str) -> Templates | None:
    """The templates of the learned deck `name` (None if no such learned deck)."""
    key = name.strip().lower()
    if key in BUILT_IN or key in DECK_ALIASES:
        return None
    learned = read_manifest(key)
    if learned is None:
        return None
    stamp = (learned.path / MANIFEST).stat().st_mtime
    if key in _CACHE and _CACHE[key][0] == stamp:
        return _CACHE[key][1]
    faces = _read_faces(learned)
    backs = [faces.pop(BACK)] if BACK in faces else []
    if not faces:
        raise NoTemplates(f"the learned deck {name!r} at {learned.path} has no readable card images")
    from vision import art

    backs.append(art.render_back(learned.base, LEARN_PPM))  # the base deck's back: a face down
    templates = build_templates(learned.name, faces, learned.size_mm, learned.index_box_mm, backs)
    layout = IndexLayout.from_json(learned.layout) if learned.layout else None
    every = {code: [face, *_read_extra(learned, code)] for code, face in faces.items()}
    templates = with_glyphs(templates, every, learned.base, layout)
    _CACHE[key] = (stamp, templates)
    return templates


# --- finding the card in a photo -------------------------------------------------

class BadPhoto(CompanionError, ValueError):
    """A teaching photo that does not show one whole card; the message says why."""


def find_card(image: np.ndarray, size_mm: tuple[float, float]) -> np.ndarray | None:
    """The card in a teaching photo, as a (4, 2) quad in the photo's pixels with corner
    0 the card's top-left as the photo shows it (photos are taken roughly upright), or
    None when the photo shows no card. Raises BadPhoto when it shows more than one."""
    quads = card_quads(image, size_mm)
    if not quads:
        return None
    big = abs(cv2.contourArea(quads[0].astype(np.float32)))
    rivals = [q for q in quads[1:] if abs(cv2.contourArea(q.astype(np.float32))) >= 0.5 * big]
    if rivals:
        raise BadPhoto(f"{1 + len(rivals)} cards in view: a teaching photo shows one card alone")
    return quads[0]


def card_quads(image: np.ndarray, size_mm: tuple[float, float]) -> list[np.ndarray]:
    """Every whole card in a photo, largest first: the outline finder's (any scale, on
    any surface), else the bright-card detector's, else closed outlines of edges."""
    aspect = max(size_mm) / min(size_mm)
    square = abs(aspect - 1) < 0.05
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    min_area = 0.01 * gray.shape[0] * gray.shape[1]

    def area(q: np.ndarray) -> float:
        return abs(cv2.contourArea(q.astype(np.float32)))

    quads = [c.corners for c in find_outlines(image, aspect)]
    if not quads:
        scale = min(1.0, 900.0 / max(gray.shape))
        small = gray if scale >= 1 else cv2.resize(gray, None, fx=scale, fy=scale,
                                                   interpolation=cv2.INTER_AREA)
        found = [c.corners for c in find_cards(small, aspect) if c.complete] or _edge_quads(small, aspect)
        quads = []
        for q in found:
            big = order_quad((q + 0.5) / scale - 0.5, square)
            reach = max(3.0, 0.025 * float(np.linalg.norm(big[1] - big[0])))
            quads.append(order_quad(snap_quad(gray, big, reach, polarity=1), square))
    quads = [q for q in quads if area(q) >= min_area]
    return sorted(quads, key=lambda q: -area(q))


def _edge_quads(gray: np.ndarray, aspect: float) -> list[np.ndarray]:
    """Card-shaped quads among the closed outlines of the image's edges."""
    edges = cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 0), 30, 90)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = []
    for c in contours:
        hull = cv2.convexHull(c)
        approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
        if len(approx) != 4:
            continue
        quad = refine_quad(order_quad(approx.astype(np.float32), abs(aspect - 1) < 0.05), c)
        sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
        a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
        if min(a, b) > 0 and abs(max(a, b) / min(a, b) - aspect) < 0.2 * aspect:
            # The dilated edge lies about a pixel outside the card: pull the corners in.
            centre = quad.mean(axis=0)
            out.append(centre + (quad - centre) * (1 - 2.0 / max(min(a, b), 1)))
    return out


def extract_face(image: np.ndarray, quad: np.ndarray, size_mm: tuple[float, float],
                 ppm: float = LEARN_PPM) -> np.ndarray:
    """The card inside `quad` (corner 0 its top-left) as an upright face image."""
    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return warp_card(colour, quad, size_mm, ppm)


def estimate_index_box(faces: dict[str, np.ndarray], size_mm: tuple[float, float],
                       fallback: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """Where this maker prints the corner index: the part of the top-left corner that
    changes most from card to card. The base deck's box if there are too few cards
    to tell or nothing stands out."""
    if len(faces) < 8:
        return fallback
    w, h = size_mm
    ppm = 2.0
    region = (int(0.34 * w * ppm), int(0.42 * h * ppm))
    stack = []
    for face in faces.values():
        g = cv2.cvtColor(cv2.resize(face, (int(w * ppm), int(h * ppm)), interpolation=cv2.INTER_AREA),
                         cv2.COLOR_BGR2GRAY).astype(np.float32)
        stack.append(g[:region[1], :region[0]])
    spread = np.std(np.stack(stack), axis=0)
    spread[: int(1.0 * ppm)] = 0  # the card's own edge
    spread[:, : int(1.0 * ppm)] = 0
    strong = spread > max(20.0, 0.35 * float(spread.max()))
    if strong.sum() < 20:
        return fallback
    ys, xs = np.nonzero(strong)
    x0, x1 = np.percentile(xs, [1, 99]) / ppm
    y0, y1 = np.percentile(ys, [1, 99]) / ppm
    pad = 1.0
    x0, y0 = max(0.8, x0 - pad), max(0.8, y0 - pad)
    x1, y1 = min(0.45 * w, x1 + pad), min(0.45 * h, y1 + pad)
    if x1 - x0 < 5 or y1 - y0 < 8:
        return fallback
    return (round(x0, 1), round(y0, 1), round(x1 - x0, 1), round(y1 - y0, 1))


# --- learning --------------------------------------------------------------------

@dataclass
class LearnReport:
    """What a teaching session did. `missing`: cards of the deck with no image yet.
    `refused`: (file, why) for every photo nothing was taken from. `alike`: pairs of
    cards the deck cannot yet tell apart well, with what to do. `confirmed`: teaching
    photos read back as their own card."""

    deck: str
    path: Path
    learned: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    photos: int = 0  # photos taken, several of one card counted each
    back: bool = False  # a picture of the back was taught (face-down cards then never read)
    confirmed: int = 0
    checked: bool = False  # the photos were read back (decks with ranks and suits)
    alike: list[str] = field(default_factory=list)
    layout: dict | None = None

    @property
    def complete(self) -> bool:
        return not self.missing


def _base(base: str) -> tuple[Deck, tuple[float, float], tuple[float, float, float, float]]:
    from vision import art

    deck = get_deck(base)
    if deck.name not in art.art_decks():
        raise LearnFailed(f"a learned deck takes its cards from a deck with card art "
                          f"({', '.join(art.art_decks())}), got {base!r}")
    return deck, art.card_size_mm(deck.name), art.index_box_mm(deck.name)


def _read_faces(learned: LearnedDeck) -> dict[str, np.ndarray]:
    """The learned pictures that can be read: the faces by code, the back as BACK."""
    files = dict(learned.faces)
    if learned.back:
        files[BACK] = learned.back
    faces = {}
    for code, file in files.items():
        image = cv2.imread(str(learned.path / file), cv2.IMREAD_COLOR)
        if image is not None:
            faces[code] = image
    return faces


def _read_extra(learned: LearnedDeck, code: str) -> list[np.ndarray]:
    """The further photos of a card, those that can be read."""
    out = []
    for file in learned.extra.get(code, []):
        image = cv2.imread(str(learned.path / file), cv2.IMREAD_COLOR)
        if image is not None:
            out.append(image)
    return out


def _existing_faces(name: str, base: str) -> dict[str, np.ndarray]:
    """The faces (and back) already learned for this deck (teaching adds to them)."""
    learned = read_manifest(name)
    if learned is None or learned.base != base:
        return {}
    return _read_faces(learned)


def save_deck(name: str, base: str, faces: dict[str, np.ndarray],
              extra: dict[str, list[np.ndarray]] | None = None) -> LearnedDeck:
    """Write a learned deck (faces upright at any size; `extra`: more photos of some
    cards) and register it. Every file is written before the manifest that names them,
    and the manifest by rename, so a failed write leaves the deck as it was."""
    key = check_name(name)
    deck, size, fallback_box = _base(base)
    extra = extra or {}
    if not [c for c in faces if c != BACK]:
        raise LearnFailed(f"no card images to make the deck {name!r} from")
    path = decks_dir() / key
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LearnFailed(f"cannot make the deck folder {str(path)!r}: {exc.strerror}") from None
    px = (round(size[0] * LEARN_PPM), round(size[1] * LEARN_PPM))

    def write(file: str, face: np.ndarray) -> str:
        image = face if face.shape[1::-1] == px else cv2.resize(face, px, interpolation=cv2.INTER_AREA)
        if not cv2.imwrite(str(path / file), image):
            raise LearnFailed(f"cannot write {str(path / file)!r} (is the data directory writable?)")
        return file

    files = {code: write("back.png" if code == BACK else f"{code}.png", face) for code, face in faces.items()}
    more = {code: [write(f"{code}-{i}.png", f) for i, f in enumerate(fs, 2)]
            for code, fs in extra.items() if fs}
    back = files.pop(BACK, None)
    cards = {c: f for c, f in faces.items() if c != BACK}
    layout = learn_layout(cards, size)
    box = layout.index if layout is not None else estimate_index_box(cards, size, fallback_box)
    manifest = {"format": FORMAT, "name": key, "base": deck.name, "size_mm": list(size),
                "index_box_mm": [round(v, 2) for v in box], "faces": dict(sorted(files.items())),
                "back": back, "extra": dict(sorted(more.items())),
                "layout": layout.to_json() if layout is not None else None}
    tmp = path / (MANIFEST + ".tmp")
    try:
        tmp.write_text(json.dumps(manifest, indent=2) + "\n")
        tmp.replace(path / MANIFEST)
    except OSError as exc:
        raise LearnFailed(f"cannot write {str(path / MANIFEST)!r}: {exc.strerror}") from None
    learned = LearnedDeck(key, deck.name, path, size, tuple(manifest["index_box_mm"]), files, back, more,
                          manifest["layout"])
    register_deck(as_deck(learned))
    _CACHE.pop(key, None)
    return learned


#: A second photo of a card: the card's code or name, then -N ("AS-2.jpg").
_NUMBERED = re.compile(r"^(.*?)[-_ ](\d{1,3})$")


def _name_code(deck: Deck, stem: str) -> tuple[str, int] | None:
    """(code, photo number) a file's stem names ("AS", "AS-2", "queen of hearts"), the
    back as BACK, or None."""
    text = stem.strip()
    number = 1
    m = _NUMBERED.match(text)
    candidates = [(text, 1)] + ([(m.group(1), int(m.group(2)))] if m else [])
    for words, n in candidates:
        if words.strip().lower() == "back":
            return BACK, n
        try:
            return deck.parse(words.replace("_", " ")).code, n
        except UnknownCard:
            continue
    del number
    return None


def _check_photo(image: np.ndarray, size: tuple[float, float], code: str,
                 index_box: tuple[float, float, float, float] | None = None) -> np.ndarray:
    """The upright face of the one card in a teaching photo; BadPhoto says why not."""
    quad = find_card(image, size)
    if quad is None:
        raise BadPhoto("no whole card found: lay the card alone, all four corners in view, "
                       "on a surface darker than the card")
    face = extract_face(image, quad, size)
    if code != BACK and index_box is not None and not any(
            _has_index(f, size, index_box) for f in (face, cv2.rotate(face, cv2.ROTATE_180))):
        raise BadPhoto("no corner index where the card's corner should show one: is the whole card "
                       "in view, face up and in focus?")
    return face


def _has_index(face: np.ndarray, size: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    """Does the face show marks in its top-left corner, where the base deck prints its
    index (the box grown by half, since makers differ)? Marks are sharp ink on the
    paper: a blurred photo or a patch of table shows none, a card's back or picture
    covers the whole corner."""
    if glyph_boxes(face, size) is not None:
        return True
    ppm = face.shape[1] / size[0]
    x, y, w, h = box
    region = face[int(y * ppm):int((y + 1.5 * h) * ppm), int(x * ppm):int((x + 1.5 * w) * ppm)]
    if region.size == 0:
        return False
    ink = ink_map(region) > 0.38
    return 0.03 <= float(ink.mean()) <= 0.6


def learn_from_dir(name: str, base: str, directory: str | Path,
                   say: Callable[[str], None] | None = None) -> LearnReport:
    """Teach (or add to) the deck `name` from a folder of photos named by the card's
    code or full name ("AS.jpg", "queen of hearts.png"), several of one card as
    "AS-2.jpg", "AS-3.jpg", and optionally "back.jpg" (face-down cards are then never
    read). Every photo is checked (one whole card, its corner index where the deck has
    one); a photo that fails is refused with the reason and nothing is taken from it.
    Then the deck is checked against its own photos (report.confirmed, report.alike)."""
    key = check_name(name)
    deck, size, index_box = _base(base)
    folder = Path(directory).expanduser()
    if not folder.is_dir():
        raise LearnFailed(f"no such folder: {str(directory)!r}")
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    report = LearnReport(key, decks_dir() / key)
    faces = _existing_faces(key, deck.name)
    taken: dict[tuple[str, int], tuple[str, np.ndarray]] = {}
    for path in files:
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            report.refused.append((path.name, "not an image file (" + ", ".join(IMAGE_SUFFIXES) + ")"))
            continue
        named = _name_code(deck, path.stem)
        if named is None:
            report.refused.append((path.name, f"the name names no card of the {deck.name} deck"))
            continue
        if named in taken:
            report.refused.append((path.name, f"{named[0]} is named twice (also {taken[named][0]}); "
                                              f"number further photos: {named[0]}-2{path.suffix}"))
            continue
        try:
            image = read_image(path)
        except BadImageFile as exc:
            report.refused.append((path.name, str(exc)))
            continue
        try:
            face = _check_photo(image, size, named[0], index_box)
        except BadPhoto as exc:
            report.refused.append((path.name, str(exc)))
            continue
        if say is not None:
            say(f"{path.name}: {named[0]}")
        taken[named] = (path.name, face)
    if not taken:
        raise LearnFailed(_nothing(folder, report))
    new: dict[str, np.ndarray] = {}
    extra: dict[str, list[np.ndarray]] = {}
    for (code, _n), (_file, face) in sorted(taken.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        if code not in new:
            new[code] = face
        else:
            extra.setdefault(code, []).append(face)
    report.back = BACK in new
    report.learned = sorted(c for c in new if c != BACK)
    report.photos = len(taken)
    faces.update(new)
    learned = save_deck(key, deck.name, faces, extra)
    report.layout = learned.layout
    report.missing = [c for c in deck.codes if c not in faces]
    _self_check(key, taken, report)
    return report


def _self_check(name: str, taken: dict, report: LearnReport) -> None:
    """Read every teaching photo back with the deck just made: it must come out as its
    own card, clearly. A photo that does not, or that only just does, names a pair of
    cards the deck cannot yet tell apart well."""
    t = load_templates(name)
    if t is None or t.glyphs is None:
        return
    report.checked = True
    p = IdentifyParams()
    size = t.size_mm
    w, h = size[0] * LEARN_PPM, size[1] * LEARN_PPM
    quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    pairs: set[tuple[str, str]] = set()
    for (code, _n), (_file, face) in taken.items():
        if code == BACK:
            continue
        ident = by_glyphs(face, quad, t, (True,) * 4, p, 0)
        read = read_index(face, quad, t.glyphs)
        if ident.code == code:
            report.confirmed += 1
        rank, suit = code[:-1], code[-1]
        if read.ranks[0][0] == rank and len(read.ranks) > 1 and read.rank_margin < 2 * p.glyph_rank_margin:
            pairs.add((*tuple(sorted((code, read.ranks[1][0] + suit))), "rank glyph"))
        if read.suits[0][0] == suit and len(read.suits) > 1 and read.suit_margin < 2 * p.glyph_suit_margin:
            pairs.add((*tuple(sorted((code, rank + read.suits[1][0]))), "suit pip"))
        if ident.code != code:
            other = ident.best if ident.best != code else None
            pairs.add((*tuple(sorted((code, other or "?"))), "index"))
    for a, b, what in sorted(pairs):
        report.alike.append(f"{a} and {b} differ only in the {what} at this resolution: "
                            f"add another photo of each")


def _nothing(folder: Path, report: LearnReport) -> str:
    if not report.refused:
        return f"no card learned from {folder}: it has no images"
    file, why = report.refused[0]
    more = f" (and {len(report.refused) - 1} more refused)" if len(report.refused) > 1 else ""
    return f"no card learned from {folder}: {file}: {why}{more}"


def learn_from_frames(name: str, base: str, frames: Iterable[np.ndarray],
                      say: Callable[[str], None] = print, codes: Iterable[str] | None = None,
                      settle_frames: int = 6) -> LearnReport:
    """Teach the deck card by card in front of the camera.

    For each card (every card of the base deck, or `codes`) `say` asks the user to lay
    it alone in view; when one card has lain still for `settle_frames` frames its face
    is taken, the user is asked to take it away, and the next card follows once the
    view is empty. A card that looks like one already taken is refused. Cards not
    shown before the frames end are reported missing; what was taken is saved.
    """
    key = check_name(name)
    deck, size, _ = _base(base)
    wanted = [deck.parse(c).code for c in codes] if codes is not None else list(deck.codes)
    faces = _existing_faces(key, deck.name)
    taken: dict[str, np.ndarray] = {}
    report = LearnReport(key, decks_dir() / key)
    it = iter(frames)
    aspect = max(size) / min(size)
    for i, code in enumerate(wanted, 1):
        say(f"{i}/{len(wanted)}: lay {deck[code].name} ({code}) face up, alone, in view")
        face = _wait_for_card(it, size, aspect, settle_frames, taken, say)
        if face is None:
            break
        taken[code] = face
        report.learned.append(code)
        say(f"got {code}; take it away")
        if not _wait_for_empty(it, aspect):
            break
    if taken:
        faces.update(taken)
        save_deck(key, deck.name, faces)
    report.missing = [c for c in deck.codes if c not in faces]
    return report


def _image(frame) -> np.ndarray:
    return getattr(frame, "image", frame)


def _cards_in_view(image: np.ndarray, aspect: float) -> list[np.ndarray]:
    """The whole cards in view, as quads in image pixels."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    scale = min(1.0, 640.0 / max(gray.shape))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return [(c.corners + 0.5) / scale - 0.5 for c in find_cards(small, aspect) if c.complete]


def _wait_for_card(frames, size_mm, aspect, settle: int, taken: dict[str, np.ndarray],
                   say: Callable[[str], None]) -> np.ndarray | None:
    """The face of the one card that lies still in view for `settle` frames."""
    last, still = None, 0
    for frame in frames:
        image = _image(frame)
        cards = _cards_in_view(image, aspect)
        if len(cards) != 1:
            last, still = None, 0
            continue
        quad = cards[0]
        reach = 0.03 * float(np.linalg.norm(quad[1] - quad[0]))
        still = still + 1 if last is not None and float(np.abs(quad - last).max()) <= reach else 1
        last = quad
        if still < settle:
            continue
        face = extract_face(image, quad, size_mm)
        twin = _looks_like(face, taken)
        if twin is not None:
            say(f"that looks like {twin}, already taken; take it away and lay the card asked for")
            if not _wait_for_empty(frames, aspect):
                return None
            last, still = None, 0
            continue
        return face
    return None


def _wait_for_empty(frames, aspect: float, frames_needed: int = 3) -> bool:
    """Wait until no card has been in view for a few frames; False if the frames end."""
    empty = 0
    for frame in frames:
        empty = empty + 1 if not _cards_in_view(_image(frame), aspect) else 0
        if empty >= frames_needed:
            return True
    return False


def _looks_like(face: np.ndarray, taken: dict[str, np.ndarray]) -> str | None:
    """The code of an already taken face this one matches (either way up), if any."""
    small = cv2.resize(cv2.cvtColor(face, cv2.COLOR_BGR2GRAY), (48, 64), interpolation=cv2.INTER_AREA)
    for code, other in taken.items():
        o = cv2.resize(cv2.cvtColor(other, cv2.COLOR_BGR2GRAY), (48, 64), interpolation=cv2.INTER_AREA)
        for candidate in (o, cv2.rotate(o, cv2.ROTATE_180)):
            if float(cv2.matchTemplate(small, candidate, cv2.TM_CCOEFF_NORMED)[0, 0]) > 0.97:
                return code
    return None


def contact_sheet(name: str, columns: int = 8, face_px: int = 160) -> bytes:
    """A PNG of every face the deck `name` learned (several photos of a card side by
    side), each with its code and, where the deck's layout is known, the rank box (red)
    and the suit box (blue) outlined: what a person checks before trusting the deck."""
    learned = read_manifest(name)
    if learned is None:
        raise NoTemplates(f"no learned deck called {name!r}")
    w, h = learned.size_mm
    size = (face_px, round(face_px * h / w))
    ppm = face_px / w
    layout = learned.layout
    tiles = []
    for code in sorted(learned.faces, key=lambda c: get_deck(learned.base).codes.index(c)
                       if c in get_deck(learned.base).codes else 999):
        for file in [learned.faces[code], *learned.extra.get(code, [])]:
            image = cv2.imread(str(learned.path / file), cv2.IMREAD_COLOR)
            if image is None:
                continue
            tile = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
            if layout:
                for box, colour in ((layout["rank"], (0, 0, 230)), (layout["suit"], (230, 80, 0))):
                    x, y, bw, bh = (round(v * ppm) for v in box)
                    cv2.rectangle(tile, (x, y), (x + bw, y + bh), colour, 1)
            label = np.full((22, size[0], 3), 255, np.uint8)
            cv2.putText(label, f"{code}  {file}", (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
            tiles.append(np.vstack([tile, label]))
    if not tiles:
        raise NoTemplates(f"the learned deck {name!r} has no readable faces")
    blank = np.full_like(tiles[0], 255)
    while len(tiles) % columns:
        tiles.append(blank)
    rows = [np.hstack(tiles[i:i + columns]) for i in range(0, len(tiles), columns)]
    ok, png = cv2.imencode(".png", np.vstack(rows))
    if not ok:
        raise LearnFailed(f"cannot draw the contact sheet of {name!r}")
    return png.tobytes()
