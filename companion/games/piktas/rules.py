"""Piktas's rules: the scoring, the best arrangement of a player's pool (hand + field) into units.

The rules are `shared/rules/piktas.txt` read through the Piktas section of
`shared/RULINGS.md`; docs/games/piktas.md names every reading taken here.

How the search works. Trumps are never used up (a trump counts in every unit it
fits), so only the non-trump cards ("pips") are shared out. Units come in two
families:
  * structural units, which pin down exactly which pips they hold: True and Value
    Sequences and Mixed Sequences. There are few of them, and at most three fit in
    one pool (each needs four or more pips), so every packing of them is tried.
  * the rest (value sets and Suit Runs), which only care how many pips of a value or
    of a suit they get. For the pips no structural unit took, `_Solver._leftover`
    finds the best sets and runs exactly by counting: how many runs per suit, and
    which lone pip of a value is paired with a pip of a suit that has runs to spare.
Among arrangements with the same total the solver keeps the one with the best
tie-break keys (highest unit, then highest card in a unit), so the arrangement on
the screen is the one the tie-breaks are read from.

Pure: standard library only.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from companion.cards import Card, get_deck
from companion.errors import CompanionError
from companion.words import deck_order as deck_positions

DECK = get_deck("piktas")
SUITS: tuple[str, ...] = tuple(DECK.suits)  # "O", "W", "K", "U", "M"; bit i stands for SUITS[i]
HAND_SIZE = 6
FIELD_POSITIONS = 6
MIN_LENGTH = 6  # sequences need 6 values, runs 6 cards, Mixed an n of 6

TRUE_SEQUENCE = "true_sequence"
VALUE_SEQUENCE = "value_sequence"
MIXED_SEQUENCE = "mixed_sequence"
MULTI_MIXED_SEQUENCE = "multi_mixed_sequence"
SUIT_RUN = "suit_run"
QUINTET, QUARTET, TRIO, DUO = "quintet", "quartet", "trio", "duo"
TRUMP_DUO = "trump_duo"
FULL_HAND = "full_hand"

KIND_NAMES = {TRUE_SEQUENCE: "True Sequence", VALUE_SEQUENCE: "Value Sequence",
              MIXED_SEQUENCE: "Mixed Sequence", MULTI_MIXED_SEQUENCE: "Multi-Mixed Sequence",
              SUIT_RUN: "Suit Run", QUINTET: "Quintet", QUARTET: "Quartet", TRIO: "Trio",
              DUO: "Duo", TRUMP_DUO: "Duo of trumps", FULL_HAND: "Full Hand"}
SET_KINDS = {2: DUO, 3: TRIO, 4: QUARTET, 5: QUINTET}
_KIND_ORDER = {k: i for i, k in enumerate(KIND_NAMES)}


class BadPool(CompanionError, ValueError):
    """A hand or field that cannot be scored: a card given twice, too many cards."""


class BadUnit(CompanionError, ValueError):
    """Cards that do not form the scoring unit they are said to form."""


# --- cards -------------------------------------------------------------------

_ORDER = deck_positions("piktas")


def _suit_mask(card: Card) -> int:
    return sum(1 << SUITS.index(s) for s in card.suits)


# code: (kind, deck order, value, suit index of a pip, suit bit mask)
_INFO = {c.code: (c.kind, _ORDER[c.code], c.value or 0,
                  SUITS.index(c.suits[0]) if c.kind == "pip" else -1, _suit_mask(c)) for c in DECK}
_SUIT_BITS = [tuple(s for s in range(5) if mask >> s & 1) for mask in range(32)]


def card_order(code: str) -> int:
    """A card's place in the deck: the order the solver and the screen list cards in."""
    return _ORDER[code]


def is_void(code: str) -> bool:
    return DECK[code].kind == "void"


def codes(cards: Iterable[str | Card]) -> list[str]:
    """Card codes for codes, full names or Cards; UnknownCard names the closest cards."""
    out = []
    for item in cards:
        if isinstance(item, Card):
            item = item.code
        out.append(item if isinstance(item, str) and item in DECK else DECK.parse(str(item)).code)
    return out


def check_pool(hand: Sequence[str], field: Sequence[str]) -> None:
    """BadPool if the hand and field could not be on a Piktas table together."""
    seen: set[str] = set()
    for code in [*hand, *field]:
        if code in seen:
            raise BadPool(f"card {code} ({DECK[code].name}) is given twice")
        seen.add(code)
    if len(hand) > HAND_SIZE:
        raise BadPool(f"a hand holds at most {HAND_SIZE} cards, got {len(hand)}: {' '.join(hand)}")
    scoring = [c for c in field if not is_void(c)]
    if len(scoring) > FIELD_POSITIONS:
        raise BadPool(f"the field has {FIELD_POSITIONS} positions, got {len(scoring)} field cards: "
                      f"{' '.join(scoring)}")


# --- results -----------------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    """One scoring unit. `high` is its highest value (a trump counts as the value it
    stands for; 0 for a Duo of trumps and the Full Hand), used by the tie-breaks."""

    kind: str
    cards: tuple[str, ...]
    points: int
    high: int = 0

    @property
    def name(self) -> str:
        return KIND_NAMES[self.kind]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "cards": list(self.cards), "points": self.points}


@dataclass(frozen=True)
class Score:
    """A pool's best total and the units that make it, best unit first.

    The tie-break keys (RULINGS): `best_unit`, the highest points of one unit (the Full
    Hand bonus is not a unit of cards and does not count); `best_card`, the highest value
    in a unit; `top_card`, the highest value of any card in the pool."""

    total: int
    units: tuple[Unit, ...]
    best_unit: int
    best_card: int
    top_card: int

    def rank(self) -> tuple[int, int, int, int]:
        """Compare two players' scores with this: higher wins the round."""
        return (self.total, self.best_unit, self.best_card, self.top_card)

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "units": [u.to_json() for u in self.units]}


# --- one unit on its own ---------------------------------------------------------

def _fail(kind: str, cards: Sequence[str], why: str) -> BadUnit:
    return BadUnit(f"{' '.join(cards)} is not a {KIND_NAMES.get(kind, kind)}: {why}")


def _runs_of(kind: str, cards: Sequence[str]) -> list[list[Card]]:
    """Split a Mixed Sequence's cards at its knitting trumps; each piece checked as a run."""
    pieces: list[list[Card]] = [[]]
    for code in cards:
        card = DECK[code]
        if card.kind == "trump":
            pieces.append([])
        else:
            pieces[-1].append(card)
    for piece in pieces:
        if len(piece) < 2:
            raise _fail(kind, cards, "each run holds two or more non-trump cards")
        if len({c.suit for c in piece}) > 1:
            raise _fail(kind, cards, "each run is of one suit")
        if [c.value for c in piece] != list(range(piece[0].value or 0, (piece[0].value or 0)
                                                + len(piece))):
            raise _fail(kind, cards, "each run goes up one value at a time")
    return pieces


def unit_points(kind: str, cards: Sequence[str]) -> int:
    """The points of `cards` laid out as the unit `kind` (sequences lowest value first,
    with any end trumps in place; a Mixed Sequence as its chain: run, trump, run, ...).
    BadUnit says why the cards do not make that unit. Independent of the solver, so the
    tests can hold every unit it returns against the definitions."""
    cards = list(cards)
    info = [DECK[c] for c in cards]
    if len(set(cards)) != len(cards):
        raise _fail(kind, cards, "a card appears twice")
    if any(c.kind == "void" for c in info):
        raise _fail(kind, cards, "a void scores nothing and belongs to no unit")
    pips = [c for c in info if c.kind == "pip"]
    trumps = [c for c in info if c.kind == "trump"]
    if kind == FULL_HAND:
        return 2
    if kind == TRUMP_DUO:
        if len(trumps) != 2 or pips or trumps[0].suits != trumps[1].suits:
            raise _fail(kind, cards, "it is two trumps of the same pair of suits")
        return 4
    if not pips:
        raise _fail(kind, cards, "every unit but a Duo of trumps holds a non-trump card")
    if kind in SET_KINDS.values():
        size = {v: k for k, v in SET_KINDS.items()}[kind]
        if trumps or len(pips) != size or len({c.value for c in pips}) != 1:
            raise _fail(kind, cards, f"it is {size} non-trump cards of one value")
        return size
    if kind == SUIT_RUN:
        suit = pips[0].suit
        if any(c.suit != suit for c in pips) or any(suit not in c.suits for c in trumps):
            raise _fail(kind, cards, "every card carries the same suit")
        if len(cards) < MIN_LENGTH:
            raise _fail(kind, cards, f"it needs {MIN_LENGTH} or more cards")
        return len(pips) + 2 * len(trumps)
    if kind in (TRUE_SEQUENCE, VALUE_SEQUENCE):
        if any(c.kind == "trump" for c in info[1:-1]) or len(pips) < 2:
            raise _fail(kind, cards, "trumps stand only at the ends, next to a non-trump card")
        values = [c.value or 0 for c in pips]
        if values != list(range(values[0], values[0] + len(values))):
            raise _fail(kind, cards, "the values go up one at a time")
        low, high = values[0], values[-1]
        if info[0].kind == "trump":
            low -= 1
            if low < 1 or pips[0].suit not in info[0].suits:
                raise _fail(kind, cards, "a trump below stands for the next value down (1 at "
                                         "least) and shares the suit of the card it extends")
        if info[-1].kind == "trump":
            high += 1
            if high > 10 or pips[-1].suit not in info[-1].suits:
                raise _fail(kind, cards, "a trump above stands for the next value up (10 at "
                                         "most) and shares the suit of the card it extends")
        if high - low + 1 < MIN_LENGTH:
            raise _fail(kind, cards, f"it needs {MIN_LENGTH} values in a row")
        one_suit = len({c.suit for c in pips}) == 1
        if one_suit != (kind == TRUE_SEQUENCE):
            raise _fail(kind, cards, "a True Sequence is of one suit, a Value Sequence is not")
        n = len(pips) + 2 * len(trumps)
        return (2 * n if one_suit else n) + high
    if kind in (MIXED_SEQUENCE, MULTI_MIXED_SEQUENCE):
        if info[0].kind == "trump" or info[-1].kind == "trump":
            raise _fail(kind, cards, "trumps stand between runs, knitting them")
        pieces = _runs_of(kind, cards)
        for knit, (a, b) in zip(trumps, itertools.pairwise(pieces), strict=True):
            if a[0].suit == b[0].suit or set(knit.suits) != {a[0].suit, b[0].suit}:
                raise _fail(kind, cards, f"{knit.code} must carry exactly the suits of the two "
                                         "different-suited runs it knits")
        if (len(pieces) == 2) != (kind == MIXED_SEQUENCE):
            raise _fail(kind, cards, "two runs make a Mixed Sequence, more a Multi-Mixed one")
        n = len(pips) + 2 * len(trumps)
        if n < MIN_LENGTH:
            raise _fail(kind, cards, f"its length (trumps counted twice) is {n}, under "
                                     f"{MIN_LENGTH}")
        return n + max(c.value or 0 for c in pips)
    raise BadUnit(f"unknown unit kind {kind!r}; the kinds are {', '.join(KIND_NAMES)}")


# --- the solver --------------------------------------------------------------

def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _widest(layouts: list[Any], wanted: int) -> list[Any]:
    """The layouts (knit mask first) whose knits cover a largest set of `wanted` trumps: one
    for each such set, the first given."""
    first: dict[int, Any] = {}
    for lay in layouts:
        first.setdefault(lay[0] & wanted, lay)
    keys = list(first)
    return [first[k] for k in keys if not any(k != o and k & o == k for o in keys)]


Layout = tuple[tuple[int, ...], tuple[int, ...]]  # a chain: suits in order, knitting trumps


@lru_cache(maxsize=4096)
def _chains(counts: tuple[int, ...], pairs: tuple[tuple[int, tuple[int, ...]], ...],
            wanted: int) -> tuple[Layout, ...]:
    """Chains of runs: orders of suits visiting suit s `counts[s]` times, neighbours always
    different, each neighbouring pair knitted by its own trump of that pair of suits (`pairs`:
    (pair mask, trump indices)). Which trumps knit matters only for the Full Hand, and only
    for the trumps in `wanted` (hand trumps): one chain is returned for each largest set of
    wanted trumps some chain knits with (just the first chain when `wanted` is 0); () when
    no chain exists. Drives Mixed Sequences."""
    trumps_of = dict(pairs)
    total = sum(counts)
    left = list(counts)
    found: dict[int, Layout] = {}
    order: list[int] = []
    knits: list[int] = []

    def walk(used: int) -> bool:
        """Extend the chain; True to stop (the first chain is all that is wanted)."""
        if len(order) == total:
            key = used & wanted
            if key not in found:
                found[key] = (tuple(order), tuple(knits))
            return not wanted
        last = order[-1]
        for s in range(len(left)):
            if not left[s] or s == last:
                continue
            spare_tried = False  # unwanted trumps of one pair are interchangeable
            for t in trumps_of.get((1 << s) | (1 << last), ()):
                if used >> t & 1 or (spare_tried and not wanted >> t & 1):
                    continue
                spare_tried = spare_tried or not wanted >> t & 1
                left[s] -= 1
                order.append(s)
                knits.append(t)
                stop = walk(used | 1 << t)
                knits.pop()
                order.pop()
                left[s] += 1
                if stop:
                    return True
                if not wanted:
                    break  # another trump of the same pair gives the same chain
        return False

    for first in range(len(left)):
        if left[first]:
            left[first] -= 1
            order.append(first)
            stop = walk(0)
            order.pop()
            left[first] += 1
            if stop:
                break
    keys = list(found)
    return tuple(found[k] for k in keys if not any(k != o and k & o == k for o in keys))


class _Cand:
    """A structural unit the pool allows: its pips (bit mask), points and how to lay it out."""

    __slots__ = ("bottom", "high", "kind", "layouts", "mask", "pips", "points", "sources", "top")

    def __init__(self, kind: str, mask: int, points: int, high: int) -> None:
        self.kind, self.mask, self.points, self.high = kind, mask, points, high
        self.pips: tuple[int, ...] = ()  # sequences: pip indices, lowest value first
        self.bottom = 0  # sequences: bit mask of trumps that may stand below / above
        self.top = 0
        # mixed: the ways to chain its runs that differ in the hand trumps they knit with, each
        # (knitting trumps as a bit mask, runs of pip indices in chain order, the trump index
        # between neighbouring runs)
        self.layouts: list[tuple[int, tuple[tuple[int, ...], ...], tuple[int, ...]]] | None = []
        # mixed, until its layouts are asked for: (chains, the runs as (suit, pips) pairs)
        self.sources: list[tuple[tuple[Layout, ...], tuple[tuple[int, int], ...]]] = []


class _Option:
    """One way to score the pips no structural unit took (value sets and Suit Runs)."""

    __slots__ = ("best_card", "best_unit", "covers", "matched", "runs", "total", "unc", "widest")

    def __init__(self, total: int, best_unit: int, best_card: int, unc: int, covers: int,
                 runs: tuple[int, ...], matched: tuple[tuple[int, int], ...],
                 widest: tuple[str, int] | None) -> None:
        self.total, self.best_unit, self.best_card = total, best_unit, best_card
        self.unc, self.covers = unc, covers  # hand pips in no unit; hand trumps in a Suit Run
        self.runs, self.matched, self.widest = runs, matched, widest

    def beats(self, other: _Option) -> bool:
        """At least as good as `other` in every respect (so `other` can be dropped)."""
        return (self.total >= other.total and self.best_unit >= other.best_unit
                and self.best_card >= other.best_card and self.unc & ~other.unc == 0
                and self.covers | other.covers == self.covers)


class _Solver:
    """The search for one pool. Pips are indexed by (value, suit) order, trumps by deck order."""

    def __init__(self, hand: Sequence[str], field: Sequence[str],
                 others: Sequence[Sequence[str]] = ()) -> None:
        """The pool is `hand` and `field`; `others` are more hands (cards of the same pool) to
        score it for in the same search (`solve_hands`): a hint's moves leave one pool."""
        pips: list[tuple[int, int, str, bool]] = []
        trumps: list[tuple[int, str, int, bool]] = []
        self.hand = tuple(sorted(hand, key=card_order))
        self.hands = [self.hand, *(tuple(sorted(h, key=card_order)) for h in others)]
        somewhere = {c for h in self.hands for c in h}  # in some hand: the Full Hand may need it
        hand, field = [c for c in [*hand, *field] if c in somewhere], \
            [c for c in [*hand, *field] if c not in somewhere]
        for code, in_hand in [*((c, True) for c in hand), *((c, False) for c in field)]:
            kind, order, value, suit, mask = _INFO[code]
            if kind == "pip":
                pips.append((value, suit, code, in_hand))
            elif kind == "trump":
                trumps.append((order, code, mask, in_hand))
        pips.sort()
        trumps.sort()
        self.value = [p[0] for p in pips]
        self.suit = [p[1] for p in pips]
        self.pip_code = [p[2] for p in pips]
        self.all_pips = (1 << len(pips)) - 1
        self.suit_pips = [0] * 5
        self.value_pips = [0] * 11
        self.hand_pips = 0
        for i, (v, su, _, in_hand) in enumerate(pips):
            self.suit_pips[su] |= 1 << i
            self.value_pips[v] |= 1 << i
            if in_hand:
                self.hand_pips |= 1 << i
        self.trump_code = [t[1] for t in trumps]
        self.trump_suits = [t[2] for t in trumps]
        self.hand_trumps = 0
        self.t = [0] * 5
        self.carrying = [0] * 5
        for i, (_, _, mask, in_hand) in enumerate(trumps):
            if in_hand:
                self.hand_trumps |= 1 << i
            for su in _SUIT_BITS[mask]:
                self.t[su] += 1
                self.carrying[su] |= 1 << i
        self.m = [max(1, MIN_LENGTH - t) for t in self.t]  # pips a Suit Run of the suit needs
        self.pairs: dict[int, list[int]] = {}
        for i, m in enumerate(self.trump_suits):
            self.pairs.setdefault(m, []).append(i)
        self.duos = [idx for idx in self.pairs.values() if len(idx) == 2]
        duo_trumps = sum((1 << a) | (1 << b) for a, b in self.duos)
        self.duo_trumps = duo_trumps
        self.need_trumps = self.hand_trumps & ~duo_trumps  # hand trumps a unit must still take
        self.pip_index = {c: i for i, c in enumerate(self.pip_code)}
        self.trump_index = {c: i for i, c in enumerate(self.trump_code)}
        self.one_hand = len(self.hands) == 1
        self.memo: dict[int, list[_Option]] = {}
        self.covers: dict[tuple[int, ...], tuple[Any, ...] | None] = {}
        self.cands = self._sequences() + self._mixed()
        self.cands.sort(key=lambda c: (-c.points, c.mask))

    # -- structural candidates ------------------------------------------------
    def _sequences(self) -> list[_Cand]:
        cols: list[list[int]] = [[] for _ in range(12)]
        for i, v in enumerate(self.value):
            cols[v].append(i)
        out = []
        for a in range(1, 8):
            if not (cols[a] and cols[a + 1] and cols[a + 2]):
                continue
            for b in range(a + 3, 11):  # four pips at least: two trump ends make six values
                if not cols[b]:
                    break
                for choice in itertools.product(*(cols[v] for v in range(a, b + 1))):
                    cand = self._sequence(a, b, choice)
                    if cand:
                        out.append(cand)
        return out

    def _sequence(self, a: int, b: int, choice: tuple[int, ...]) -> _Cand | None:
        below = self.carrying[self.suit[choice[0]]] if a >= 2 else 0
        above = self.carrying[self.suit[choice[-1]]] if b <= 9 else 0
        # one trump per end, two different cards; the top end is worth one more
        top = bool(above)
        bottom = bool(below) and (not top or (below | above).bit_count() >= 2)
        width = b - a + 1
        if width + top + bottom < MIN_LENGTH:
            return None
        n = width + 2 * (top + bottom)
        high = b + top
        mask = sum(1 << i for i in choice)
        if len({self.suit[i] for i in choice}) == 1:
            cand = _Cand(TRUE_SEQUENCE, mask, 2 * n + high, high)
        else:
            cand = _Cand(VALUE_SEQUENCE, mask, n + high, high)
        cand.pips = choice
        cand.bottom = below if bottom else 0
        cand.top = above if top else 0
        return cand

    def _segments(self) -> list[tuple[int, int, int, int]]:
        """Every run of 2+ pips of one suit in consecutive values: (suit, high, mask, size)."""
        at = [[-1] * 12 for _ in range(5)]
        for i, (v, s) in enumerate(zip(self.value, self.suit, strict=True)):
            at[s][v] = i
        out = []
        for s in range(5):
            row = at[s]
            for lo in range(1, 10):
                if row[lo] < 0 or row[lo + 1] < 0:
                    continue
                mask = 1 << row[lo]
                for v in range(lo + 1, 11):
                    if row[v] < 0:
                        break
                    mask |= 1 << row[v]
                    out.append((s, v, mask, v - lo + 1))
        return out

    def _mixed(self) -> list[_Cand]:
        """Every set of disjoint runs that some chain of knitting trumps can join, keeping
        the best points for each set of pips (more runs, more knits: more points)."""
        segments = self._segments()
        present = {seg[0] for seg in segments}
        knits = [0] * 5  # trumps that could knit a run of suit s to a run of another suit
        for pair, idx in self.pairs.items():
            a, b = _bits(pair)
            if a in present and b in present:
                knits[a] += len(idx)
                knits[b] += len(idx)
        segments = [seg for seg in segments if knits[seg[0]]]
        pairs = tuple(sorted((pair, tuple(idx)) for pair, idx in self.pairs.items()))
        # a suit met c times in the chain touches at least 2c - 2 knits, each its own trump
        most = [1 + knits[s] // 2 for s in range(5)]
        best: dict[int, _Cand] = {}
        counts = [0] * 5
        chosen: list[int] = []

        def extend(start: int, mask: int, size: int, high: int) -> None:
            k = len(chosen)
            if k >= 2 and size + 2 * (k - 1) >= MIN_LENGTH:
                points = size + 2 * (k - 1) + high
                old = best.get(mask)
                if old is None or old.points <= points:
                    chains = _chains(tuple(counts), pairs, self.need_trumps)
                    if chains:
                        runs = tuple((segments[j][0], segments[j][2]) for j in chosen)
                        if old is not None and old.points == points:  # the same pips, other runs
                            old.sources.append((chains, runs))
                        else:
                            cand = _Cand(MIXED_SEQUENCE if k == 2 else MULTI_MIXED_SEQUENCE, mask,
                                         points, high)
                            cand.layouts = None
                            cand.sources.append((chains, runs))
                            best[mask] = cand
            for j in range(start, len(segments)):
                s, hi, m, n = segments[j]
                if not m & mask and counts[s] < most[s]:
                    counts[s] += 1
                    chosen.append(j)
                    extend(j + 1, mask | m, size + n, max(high, hi))
                    chosen.pop()
                    counts[s] -= 1

        extend(0, 0, 0, 0)
        return list(best.values())

    def _layouts(self, cand: _Cand) -> list[tuple[int, tuple[tuple[int, ...], ...], tuple[int, ...]]]:
        """A Mixed Sequence's layouts (knitting trumps as a bit mask, runs of pip indices in
        chain order, the trumps between them), one for each largest set of hand trumps some
        chain of its runs knits with; [] for a sequence. Built when first asked for."""
        if cand.layouts is None:
            layouts = []
            for chains, chosen in cand.sources:
                for order, knits in chains:
                    by_suit: dict[int, list[int]] = {}
                    for suit, pips in chosen:
                        by_suit.setdefault(suit, []).append(pips)
                    runs = tuple(tuple(_bits(by_suit[s].pop(0))) for s in order)
                    layouts.append((sum(1 << k for k in knits), runs, knits))
            cand.layouts = _widest(layouts, self.need_trumps) if len(cand.sources) > 1 else layouts
        return cand.layouts

    # -- sets and Suit Runs for the pips left over ----------------------------
    def _leftover(self, rem: int) -> list[_Option]:
        """The best ways to score the pips in `rem` as value sets and Suit Runs, keeping every
        way that could still win once the Full Hand and the tie-breaks are counted."""
        found = self.memo.get(rem)
        if found is not None:
            return found
        per_suit = [(rem & self.suit_pips[s]).bit_count() for s in range(5)]
        choices = []
        for s in range(5):
            k, m = per_suit[s], self.m[s]
            if k < m or k == 0:
                choices.append((0,))
            elif self.t[s] >= 3:  # an extra run gains 2t, costs at most m = 6 - t set points
                choices.append((k // m,))
            else:
                choices.append(tuple(range(k // m + 1)))
        options: list[_Option] = []
        for runs in itertools.product(*choices):
            for opt in self._with_runs(rem, per_suit, runs):
                if not any(o.beats(opt) for o in options):
                    options = [o for o in options if not opt.beats(o)]
                    options.append(opt)
        self.memo[rem] = options
        return options

    def _sets_only(self, rem: int) -> _Option:
        total = unit = card = unc = 0
        for v in range(10, 0, -1):
            group = rem & self.value_pips[v]
            if group:
                n = group.bit_count()
                if n >= 2:
                    total += n
                    unit = max(unit, n)
                    card = max(card, v)
                else:
                    unc |= group
        return _Option(total, unit, card, self._unc(unc), 0, (0,) * 5, (), None)

    def _unc(self, unused: int) -> int:
        """The hand pips among `unused`; with one hand, any such pip blocks the Full Hand as
        much as all of them (so options compare as before: Full Hand possible or not)."""
        unc = unused & self.hand_pips
        return self.hand_pips if unc and self.one_hand else unc

    def _with_runs(self, rem: int, per_suit: list[int], runs: tuple[int, ...]) -> list[_Option]:
        """The best ways to score `rem` when suit s makes `runs[s]` Suit Runs. Every pip of a
        suit with runs scores 1 (it joins a run); pips of other suits ("lone" here) score only
        in sets, and a single one of its value needs a partner: a pip of that value from a
        suit with runs that has pips to spare beyond the m each of its runs needs."""
        t, m, suit, value_pips = self.t, self.m, self.suit, self.value_pips
        in_runs, base, covers = 0, 0, 0
        for s in range(5):
            if runs[s]:
                in_runs |= self.suit_pips[s]
                base += per_suit[s] + 2 * t[s] * runs[s]
                covers |= self.carrying[s]
        if not in_runs:
            return [self._sets_only(rem)]
        flex = rem & in_runs
        lone = rem & ~in_runs
        best_card = self.value[flex.bit_length() - 1]  # pips are in value order
        spare = [per_suit[s] - runs[s] * m[s] for s in range(5)]
        lone_n = [0] * 11
        needy = []
        blocked = 0
        for v in range(10, 0, -1):
            group = lone & value_pips[v]
            if not group:
                continue
            n = lone_n[v] = group.bit_count()
            if n >= 2:
                base += n
                best_card = max(best_card, v)
            elif flex & value_pips[v]:
                needy.append(v)
            else:
                blocked |= group
        covers &= self.need_trumps
        out = []
        for matched in self._matchings(needy, flex, spare):
            left = list(spare)
            for _, s in matched:
                left[s] -= 1
            paired = {v for v, _ in matched}
            unc = blocked
            for v in needy:
                if v not in paired:
                    unc |= lone & value_pips[v]
            unit, widest = 0, None
            for s in range(5):
                if runs[s]:
                    size = per_suit[s] - (spare[s] - left[s]) - (runs[s] - 1) * m[s] + 2 * t[s]
                    if size > unit:
                        unit, widest = size, ("run", s)
            for v in range(1, 11):
                n = lone_n[v]
                size = n + (v in paired) if n >= 2 or v in paired else 0
                extra = flex & value_pips[v]
                if extra:
                    taken = {s for w, s in matched if w == v}
                    size += sum(1 for i in _bits(extra) if suit[i] not in taken and left[suit[i]] > 0)
                if size >= 2 and size >= unit:
                    unit, widest = size, ("set", v)
            out.append(_Option(base + len(matched), unit, max(best_card, *paired, 0), self._unc(unc),
                               covers, runs, tuple(matched), widest))
        return out

    def _matchings(self, needy: list[int], flex: int,
                   spare: list[int]) -> list[tuple[tuple[int, int], ...]]:
        """Every largest pairing of single lone pips (by value) with a spare pip of their value
        from a suit with runs, as (value, suit) pairs. Rarely more than one needy value."""
        if not needy:
            return [()]
        results: list[tuple[tuple[int, int], ...]] = []
        best = [0]
        left = list(spare)
        path: list[tuple[int, int]] = []
        partners = [[self.suit[i] for i in _bits(flex & self.value_pips[v])] for v in needy]

        def walk(k: int) -> None:
            if len(path) + len(needy) - k < best[0]:
                return
            if k == len(needy):
                if len(path) > best[0]:
                    best[0] = len(path)
                    results.clear()
                results.append(tuple(path))
                return
            for s in partners[k]:
                if left[s] > 0:
                    left[s] -= 1
                    path.append((needy[k], s))
                    walk(k + 1)
                    path.pop()
                    left[s] += 1
            walk(k + 1)

        walk(0)
        return [r for r in results if len(r) == best[0]]

    # -- the search -----------------------------------------------------------
    def solve(self) -> Score:
        """The best arrangement of the pool for `hand`."""
        return self.solve_hands()[0]

    def solve_hands(self) -> list[Score]:
        """The best arrangement for each hand in `self.hands`, from one search of the pool.

        Every packing of structural units is tried, its leftover pips scored by `_leftover`.
        The Full Hand is the only part that depends on the hand, and it is worth 2, so only
        arrangements within 2 of the best total (without it) can win; those are kept and
        each hand takes the best of them (total, best unit, best card)."""
        near = self._search()
        return [self._best_for(hand, near) for hand in self.hands]

    def best_total(self) -> int:
        """The best total without a Full Hand (all there is for a pool with no hand)."""
        self._search(slack=0)
        return self.top_total

    def _search(self, slack: int = 2) -> list[tuple[int, int, int, tuple[_Cand, ...], _Option]]:
        """The arrangements within `slack` of the best total (2: a Full Hand could lift them;
        0 when only the best total is wanted), in search order; sets `top_total`."""
        duo_points = 4 * len(self.duos)
        duo_unit = 4 if self.duos else 0
        cands = self.cands
        chosen: list[_Cand] = []
        near: list[tuple[int, int, int, tuple[_Cand, ...], _Option]] = []
        top = [-1]
        # later[j]: the candidates after j that share no pip with it, as a bit set
        holding = [0] * len(self.value)
        for j, c in enumerate(cands):
            for p in _bits(c.mask):
                holding[p] |= 1 << j
        later = []
        for j, c in enumerate(cands):
            clash = 0
            for p in _bits(c.mask):
                clash |= holding[p]
            later.append(~clash & ~((2 << j) - 1))

        # Branch and bound: a pip can add at most `weight` to any completion, the most per pip
        # of a unit that could hold it (a structural unit's points over its pips; a set gives
        # 1 a pip, a Suit Run 1 + 2t/m); a branch whose bound falls more than the Full Hand
        # below the best total found cannot hold a near-best arrangement.
        weight = [1.0 + 2 * self.t[self.suit[i]] / self.m[self.suit[i]] for i in range(len(self.value))]
        for c in cands:
            share = c.points / c.mask.bit_count()
            for p in _bits(c.mask):
                weight[p] = max(weight[p], share)
        cand_weight = [sum(weight[p] for p in _bits(c.mask)) for c in cands]

        def leaf(used: int, points: int, unit: int, card: int) -> None:
            for opt in self._leftover(self.all_pips & ~used):
                total = points + opt.total
                if total >= top[0] - slack:
                    top[0] = max(top[0], total)
                    near.append((total, max(unit, opt.best_unit), max(card, opt.best_card),
                                 tuple(chosen), opt))

        def visit(allowed: int, used: int, points: int, unit: int, card: int, bound: float) -> None:
            if bound < top[0] - slack - 1e-9:
                return
            leaf(used, points, unit, card)
            while allowed:
                low = allowed & -allowed
                allowed ^= low
                j = low.bit_length() - 1
                c = cands[j]
                chosen.append(c)
                visit(allowed & later[j], used | c.mask, points + c.points, max(unit, c.points),
                      max(card, c.high), bound - cand_weight[j] + c.points)
                chosen.pop()

        visit((1 << len(cands)) - 1, 0, duo_points, duo_unit, 0, duo_points + sum(weight))
        self.top_total = top[0]
        return [leaf for leaf in near if leaf[0] >= top[0] - slack]

    def _best_for(self, hand: tuple[str, ...],
                  near: list[tuple[int, int, int, tuple[_Cand, ...], _Option]]) -> Score:
        """The best of the near-best arrangements for `hand`: the first with the highest
        (total with the Full Hand, best unit, best card)."""
        pips = sum(1 << self.pip_index[c] for c in hand if c in self.pip_index)
        need = sum(1 << self.trump_index[c] for c in hand if c in self.trump_index)
        need &= ~self.duo_trumps
        full = bool(hand) and not any(is_void(c) for c in hand)
        best_key = (-1, -1, -1)
        best: tuple[Any, ...] = ()
        for total, unit, card, chosen, opt in near:
            if (total + 2, unit, card) <= best_key:
                continue  # not even with the Full Hand
            cover = None
            if full and not opt.unc & pips:
                cover = self._cover(chosen, need & ~opt.covers)
            key = (total + 2 if cover else total, unit, card)
            if key > best_key:
                best_key, best = key, (chosen, opt, cover)
        return self._arrangement(*best, hand)

    def _cover(self, chosen: tuple[_Cand, ...], need: int) -> tuple[Any, ...] | None:
        """How the chosen units take every hand trump in `need` (for the Full Hand): a layout
        for each Mixed Sequence (which trumps knit) and the end trumps of each sequence, as
        (layouts, ends); None when they cannot. Remembered: the hands of a hint ask again."""
        key = (*map(id, chosen), need)
        if key not in self.covers:
            self.covers[key] = self._find_cover(chosen, need)
        return self.covers[key]

    def _find_cover(self, chosen: tuple[_Cand, ...], need: int) -> tuple[Any, ...] | None:
        for combo in itertools.product(*(self._layouts(c) for c in chosen if c.sources)):
            knit = 0
            for lay in combo:
                knit |= lay[0]
            ends = self._ends(chosen, need & ~knit)
            if ends is not None:
                return combo, ends
        return None

    def _ends(self, chosen: Sequence[_Cand], need: int) -> list[tuple[int, int]] | None:
        """Trumps (indices, -1 for none) for the bottom and top of each chosen sequence so
        that every hand trump in `need` stands at an end (for the Full Hand); None when that
        cannot be done. Otherwise the deck's first trumps that fit."""
        seqs = [c for c in chosen if c.top or c.bottom]
        per_seq = []
        for c in seqs:
            ways = []
            for lo in (_bits(c.bottom) or [-1]):
                for hi in (_bits(c.top) or [-1]):
                    if lo != hi or lo == -1:
                        ways.append((lo, hi))
            # prefer needed trumps, then the deck's order
            ways.sort(key=lambda w: (-sum(1 for x in w if x >= 0 and need >> x & 1), w))
            per_seq.append(ways)
        for combo in itertools.product(*per_seq):
            got = 0
            for lo, hi in combo:
                for x in (lo, hi):
                    if x >= 0:
                        got |= 1 << x
            if need & ~got == 0:
                return list(combo)
        return None

    # -- laying out the winner ------------------------------------------------
    def _arrangement(self, structural: tuple[_Cand, ...], opt: _Option,
                     cover: tuple[Any, ...] | None, hand: tuple[str, ...]) -> Score:
        """The units of the chosen arrangement; `cover` (from `_cover`) says how the Full Hand
        is made, None for no Full Hand."""
        units: list[Unit] = []
        pc, tc = self.pip_code, self.trump_code
        for a, b in self.duos:
            units.append(Unit(TRUMP_DUO, (tc[a], tc[b]), 4, 0))
        layouts, ends = cover or ([self._layouts(c)[0] for c in structural if c.sources],
                                  self._ends(structural, 0) or [])
        seq_ends, chains = iter(ends), iter(layouts)
        used = 0
        for c in structural:
            used |= c.mask
            if c.kind in (TRUE_SEQUENCE, VALUE_SEQUENCE):
                lo, hi = next(seq_ends) if (c.top or c.bottom) else (-1, -1)
                cards = ([tc[lo]] if lo >= 0 else []) + [pc[i] for i in c.pips] + \
                        ([tc[hi]] if hi >= 0 else [])
            else:
                _, segments, knits = next(chains)
                cards = []
                for run, knit in itertools.zip_longest(segments, knits):
                    cards += [pc[i] for i in run]
                    if knit is not None:
                        cards.append(tc[knit])
            units.append(Unit(c.kind, tuple(cards), c.points, c.high))
        units += self._leftover_units(self.all_pips & ~used, opt)
        total = sum(u.points for u in units)
        if cover is not None:
            units.append(Unit(FULL_HAND, hand, 2, 0))
            total += 2
        units.sort(key=lambda u: (-u.points, _KIND_ORDER[u.kind], [card_order(c) for c in u.cards]))
        cards = [u for u in units if u.kind != FULL_HAND]
        return Score(total, tuple(units), max([0, *(u.points for u in cards)]),
                     max([0, *(u.high for u in cards)]), max([0, *self.value]))

    def _leftover_units(self, rem: int, opt: _Option) -> list[Unit]:
        runs, suit, value = opt.runs, self.suit, self.value
        sets: dict[int, list[int]] = {}
        in_runs: list[list[int]] = [[] for _ in range(5)]
        for i in _bits(rem):
            (in_runs[suit[i]] if runs[suit[i]] else sets.setdefault(value[i], [])).append(i)
        sets = {v: p for v, p in sets.items() if len(p) >= 2 or any(w == v for w, _ in opt.matched)}
        for v, s in opt.matched:
            partner = next(i for i in in_runs[s] if value[i] == v)
            in_runs[s].remove(partner)
            sets[v].append(partner)
        if opt.widest and opt.widest[0] == "set":
            v = opt.widest[1]
            for s in range(5):
                extra = [i for i in in_runs[s] if value[i] == v]
                if extra and len(in_runs[s]) > runs[s] * self.m[s]:
                    in_runs[s].remove(extra[0])
                    sets.setdefault(v, []).append(extra[0])
        units = []
        for v, group in sets.items():
            cards = tuple(sorted((self.pip_code[i] for i in group), key=card_order))
            units.append(Unit(SET_KINDS[len(group)], cards, len(group), v))
        for s in range(5):
            if not runs[s]:
                continue
            trumps = [self.trump_code[i] for i in _bits(self.carrying[s])]
            group = sorted(in_runs[s], key=lambda i: value[i])
            m = self.m[s]
            pieces = [group[k * m:(k + 1) * m] for k in range(runs[s] - 1)] + \
                     [group[(runs[s] - 1) * m:]]
            for piece in pieces:
                cards = tuple(self.pip_code[i] for i in piece) + tuple(trumps)
                units.append(Unit(SUIT_RUN, cards, len(piece) + 2 * len(trumps),
                                  max(value[i] for i in piece)))
        return units


def _checked(hand: Iterable[str | Card], field: Iterable[str | Card]) -> tuple[tuple[str, ...],
                                                                             tuple[str, ...]]:
    hand_codes, field_codes = codes(hand), codes(field)
    check_pool(hand_codes, field_codes)
    return (tuple(sorted(hand_codes, key=card_order)), tuple(sorted(field_codes, key=card_order)))


@lru_cache(maxsize=8192)
def _score(hand: tuple[str, ...], field: tuple[str, ...]) -> Score:
    return _Solver(hand, field).solve()


def score(hand: Iterable[str | Card], field: Iterable[str | Card] = ()) -> Score:
    """The best total of a player's pool (their hand with every field card, covered ones
    included) and the units that make it. Cards are codes, full names or Cards; the
    Full Hand bonus needs a hand with no void, every card of it in a unit.
    Raises UnknownCard or BadPool for cards that cannot be scored together.
    Results are cached: the table asks again for the same pools as it changes."""
    return _score(*_checked(hand, field))


def solve(hand: Iterable[str | Card], field: Iterable[str | Card] = ()) -> Score:
    """`score` computed afresh, without the cache: for benchmarks and tests."""
    return _Solver(*_checked(hand, field)).solve()


def score_hands(hand: Iterable[str | Card], field: Iterable[str | Card],
                hands: Sequence[Iterable[str | Card]]) -> list[Score]:
    """`score(h, pool - h)` for each hand h of `hands`, where the pool is `hand` with `field`
    and each h is cards of it (voids aside: a void scores nothing): one search for all of
    them, as a hint needs (every move on a turn leaves the same pool, another hand).
    Raises BadPool for a hand with a card that is not in the pool."""
    first, rest = _checked(hand, field)
    pool = {c for c in [*first, *rest] if not is_void(c)}
    wanted = []
    for h in hands:
        cards = tuple(sorted(codes(h), key=card_order))
        stray = [c for c in cards if c not in pool and not is_void(c)]
        if stray:
            raise BadPool(f"{' '.join(stray)} in a hand to score but not in the pool "
                          f"{' '.join(sorted(pool, key=card_order))}")
        wanted.append(cards)
    solver = _Solver(first, rest, wanted)
    near = solver._search()
    return [solver._best_for(h, near) for h in solver.hands[1:]]


@lru_cache(maxsize=8192)
def _field_total(field: tuple[str, ...]) -> int:
    return _Solver((), field).best_total()


def field_total(field: Iterable[str | Card]) -> int:
    """`score((), field).total` without laying the units out: what the field alone is worth
    to every player, as a hint asks for each move."""
    return _field_total(_checked((), field)[1])



# --- positions in the field -------------------------------------------------------------

def position_card(position: Sequence[str]) -> str | None:
    """The card of a field position (top first: any voids, then the card under them);
    None for a void dealt when the stock had no card left to put under it."""
    return None if is_void(position[-1]) else position[-1]


def is_covered(position: Sequence[str]) -> bool:
    return is_void(position[0])
