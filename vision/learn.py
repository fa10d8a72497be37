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
from vision.identify import warp_card
from vision.templates import BACK, Templates, build_templates

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

    @property
    def title(self) -> str:
        return f"{self.name} (learned, {self.base} cards)"


def read_manifest(name: str) -> LearnedDeck | None:
    """The learned deck called `name`, or None if there is none."""
    path = decks_dir() / name.strip().lower()
    try:
        data = json.loads((path / MANIFEST).read_text())
        return LearnedDeck(data["name"], data["base"], path, tuple(data["size_mm"]),
                           tuple(data["index_box_mm"]), dict(data["faces"]), data.get("back"))
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
    _CACHE[key] = (stamp, templates)
    return templates


# --- finding the card in a photo -------------------------------------------------

def find_card(image: np.ndarray, size_mm: tuple[float, float]) -> np.ndarray | None:
    """The largest card of the given shape in a photo, as a (4, 2) quad in the photo's
    pixels with corner 0 the card's top-left as the photo shows it (photos are taken
    roughly upright), or None. Tries a card brighter than its background first, then
    the card's outline as edges (a white card on a light table)."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    scale = min(1.0, 900.0 / max(gray.shape))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    aspect = max(size_mm) / min(size_mm)
    square = abs(aspect - 1) < 0.05
    min_area = 0.02 * small.shape[0] * small.shape[1]

    def big(quads: list[np.ndarray]) -> list[np.ndarray]:
        return [q for q in quads if abs(cv2.contourArea(q.astype(np.float32))) >= min_area]

    quads = big([c.corners for c in find_cards(small, aspect) if c.complete])
    quads = quads or big(_edge_quads(small, aspect))
    if not quads:
        return None
    best = max(quads, key=lambda q: abs(cv2.contourArea(q.astype(np.float32))))
    quad = order_quad((best + 0.5) / scale - 0.5, square)
    # Settle each side on the card's own edge (not a shadow's) at full resolution.
    reach = max(3.0, 0.025 * float(np.linalg.norm(quad[1] - quad[0])))
    return order_quad(snap_quad(gray, quad, reach, polarity=1), square)


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
    """What a teaching session did. `missing`: cards of the deck with no image yet."""

    deck: str
    path: Path
    learned: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # files that are not readable images
    no_card: list[str] = field(default_factory=list)  # images in which no card was found
    not_cards: list[str] = field(default_factory=list)  # file names that name no card
    repeated: list[str] = field(default_factory=list)  # a second image of a card: ignored
    back: bool = False  # a picture of the back was taught (face-down cards then never read)

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


def _existing_faces(name: str, base: str) -> dict[str, np.ndarray]:
    """The faces (and back) already learned for this deck (teaching adds to them)."""
    learned = read_manifest(name)
    if learned is None or learned.base != base:
        return {}
    return _read_faces(learned)


def save_deck(name: str, base: str, faces: dict[str, np.ndarray]) -> LearnedDeck:
    """Write a learned deck (faces upright at any size) and register it."""
    key = check_name(name)
    deck, size, fallback_box = _base(base)
    if not faces:
        raise LearnFailed(f"no card images to make the deck {name!r} from")
    path = decks_dir() / key
    path.mkdir(parents=True, exist_ok=True)
    files = {}
    px = (round(size[0] * LEARN_PPM), round(size[1] * LEARN_PPM))
    for code, face in faces.items():
        file = "back.png" if code == BACK else f"{code}.png"
        image = face if face.shape[1::-1] == px else cv2.resize(face, px, interpolation=cv2.INTER_AREA)
        if not cv2.imwrite(str(path / file), image):
            raise LearnFailed(f"cannot write {path / file}")
        files[code] = file
    back = files.pop(BACK, None)
    if not files:
        raise LearnFailed(f"no card images to make the deck {name!r} from (a back alone is not a deck)")
    box = estimate_index_box({c: f for c, f in faces.items() if c != BACK}, size, fallback_box)
    manifest = {"format": FORMAT, "name": key, "base": deck.name, "size_mm": list(size),
                "index_box_mm": list(box), "faces": dict(sorted(files.items())), "back": back}
    (path / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    learned = LearnedDeck(key, deck.name, path, size, box, files, back)
    register_deck(as_deck(learned))
    _CACHE.pop(key, None)
    return learned


def learn_from_dir(name: str, base: str, directory: str | Path) -> LearnReport:
    """Teach (or add to) the deck `name` from a folder with one image per card, each
    named by the card's code or full name ("AS.jpg", "queen of hearts.png"), and
    optionally one of the back ("back.jpg"), so that face-down cards are never read."""
    key = check_name(name)
    deck, size, _ = _base(base)
    folder = Path(directory).expanduser()
    if not folder.is_dir():
        raise LearnFailed(f"no such folder: {str(directory)!r}")
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    report = LearnReport(key, decks_dir() / key)
    faces = _existing_faces(key, deck.name)
    new: dict[str, np.ndarray] = {}
    for path in files:
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            report.unreadable.append(path.name)
            continue
        if path.stem.strip().lower() == "back":
            code = BACK
        else:
            try:
                code = deck.parse(path.stem.replace("_", " ")).code
            except UnknownCard:
                report.not_cards.append(path.name)
                continue
        if code in new:
            report.repeated.append(path.name)
            continue
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            report.unreadable.append(path.name)
            continue
        quad = find_card(image, size)
        if quad is None:
            report.no_card.append(path.name)
            continue
        new[code] = extract_face(image, quad, size)
        if code == BACK:
            report.back = True
        else:
            report.learned.append(code)
    if not new:
        raise LearnFailed(_nothing(folder, report))
    faces.update(new)
    save_deck(key, deck.name, faces)
    report.missing = [c for c in deck.codes if c not in faces]
    return report


def _nothing(folder: Path, report: LearnReport) -> str:
    why = []
    if report.no_card:
        why.append(f"no card found in {', '.join(report.no_card)}")
    if report.unreadable:
        why.append(f"unreadable: {', '.join(report.unreadable)}")
    if report.not_cards:
        why.append(f"not named after a card: {', '.join(report.not_cards)}")
    return f"no card learned from {folder}" + (f" ({'; '.join(why)})" if why else ": it has no images")


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
