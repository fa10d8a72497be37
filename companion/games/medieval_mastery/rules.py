"""Families and communes of Medieval Mastery: what is legal, what it scores, and the best
arrangement of a set of cards. Pure functions on IDEAL card codes ("KS", "XW").

Reading (rules/medieval-mastery.txt section 4, RULINGS, docs/games/medieval-mastery.md):
- A family is started by a marriage: a King and a Queen of any suits (a Royal marriage when
  they share a suit), or a Jack and a Princess of different suits (a junior family). Its
  other members belong to the partners' suit(s). A family holds one King and one Queen; a
  junior family holds one Jack, one Princess and no King or Queen; no family holds a
  Xenocrat. A King-Queen family may take Jacks and Princesses of its suits as members.
- An A-commune is an Apothecary followed by one card of each next letter, B, C, D, ...,
  with no gaps, of any suits, up to W (X can only lead). A lone Apothecary is a commune.
- A Religious commune is a Xenocrat and any cards of its suit; while a player has one, no
  other family or commune of theirs holds that suit.
- The tableau is judged as a whole, as it lies after the trick winner has finished: a card
  laid before may only leave it (as a reject) when no family or commune of the new tableau
  could take it and it could not start one, alone or with another reject.

A group is not labelled on the table: the referee reads it as whichever kind is legal (the
better scoring one when two are), so families and communes can be rebuilt freely.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from typing import Any

from companion.cards import IDEAL_RANKS, IDEAL_SUITS, get_deck
from companion.words import and_list
from companion.words import deck_order as deck_positions

RANKS = "".join(r for r, _ in IDEAL_RANKS)  # "KQPFJESIACOUBMRHGYDLWVTNZX", value 25 down to 0
SUITS = "".join(s.code for s in IDEAL_SUITS)  # "SCTPW", the ranking order, high to low
RANK_NAMES = dict(IDEAL_RANKS)
SUIT_NAMES = {s.code: s.name for s in IDEAL_SUITS}
VALUES = {r: 25 - i for i, r in enumerate(RANKS)}
ALL_CARDS: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
COMMUNE_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVW"  # X can only lead: an A-commune stops at W
ROYAL_POINTS_FACTOR = 2

# Kinds of group, in the order the referee prefers when a group is legal as two of them.
RELIGIOUS, ROYAL, FAMILY, JUNIOR, COMMUNE, NOTHING = (
    "religious commune", "royal family", "family", "junior family", "commune", "none")
KIND_ORDER = (RELIGIOUS, ROYAL, FAMILY, JUNIOR, COMMUNE)

_DECK = get_deck("ideal")
_SOURCE_ORDER = {"before": 0, "trick": 1, "hand": 2}


def suit(card: str) -> str:
    return card[1]


def value(card: str) -> int:
    """The face value: King 25 down to Xenocrat 0."""
    return VALUES[card[0]]


def name(card: str) -> str:
    """The card's full name: "Queen of Cups"."""
    return _DECK[card].name if card in _DECK else repr(card)


def names(cards: Iterable[str]) -> str:
    """Full names joined for a sentence: "King of Swords and Queen of Cups"."""
    return and_list(name(c) for c in cards)


def suit_list(suits: Iterable[str]) -> str:
    """Suit names in the ranking order, joined for a sentence: "Swords and Wands"."""
    wanted = set(suits)
    return and_list(SUIT_NAMES[s] for s in SUITS if s in wanted)


_DECK_ORDER = deck_positions("ideal")  # the deck's listing: by suit (Swords first), then rank
_LETTER = {letter: i for i, letter in enumerate(COMMUNE_LETTERS)}


def deck_order(card: str) -> int:
    """Sort key: by suit order (Swords first), then by rank (King first), as the deck lists
    the cards (`companion.words.deck_order`)."""
    return _DECK_ORDER[card]


# --- one group --------------------------------------------------------------

@dataclass(frozen=True)
class GroupCheck:
    """One family or commune judged on its own: its kind, legality, problems and points
    (0 when illegal)."""

    cards: tuple[str, ...]
    kind: str
    legal: bool
    problems: tuple[str, ...] = ()
    points: int = 0
    suits: tuple[str, ...] = ()  # a family's suits, a Religious commune's suit

    @property
    def title(self) -> str:
        """Words for the kind: "Royal family of Swords", "A-commune"."""
        if self.kind == COMMUNE:
            return "A-commune"
        if self.kind == NOTHING:
            return "neither a family nor a commune"
        label = {RELIGIOUS: "Religious commune", ROYAL: "Royal family", FAMILY: "family",
                 JUNIOR: "junior family"}[self.kind]
        return f"{label} of {suit_list(self.suits)}" if self.suits else label

    def to_json(self) -> dict[str, Any]:
        return {"cards": list(self.cards), "kind": self.kind, "title": self.title,
                "legal": self.legal, "problems": list(self.problems), "points": self.points}


def _by_rank(cards: Sequence[str], r: str) -> list[str]:
    return [c for c in cards if c[0] == r]


def _read_religious(cards: tuple[str, ...]) -> GroupCheck:
    xs = _by_rank(cards, "X")
    problems = []
    if len(xs) > 1:
        problems.append(f"a Religious commune has one Xenocrat, not {len(xs)}: {names(xs)}")
    s = suit(xs[0])
    for c in cards:
        if suit(c) != s:
            problems.append(f"{name(c)} cannot join the Religious commune of {SUIT_NAMES[s]}: "
                            f"it holds only {SUIT_NAMES[s]}")
    points = ROYAL_POINTS_FACTOR * sum(value(c) for c in cards)
    return GroupCheck(cards, RELIGIOUS, not problems, tuple(problems), points, (s,))


def _read_family(cards: tuple[str, ...]) -> GroupCheck:
    ks, qs, js, ps = (_by_rank(cards, r) for r in "KQJP")
    problems: list[str] = []
    if ks and qs:
        kind = ROYAL if suit(ks[0]) == suit(qs[0]) else FAMILY
        suits = {suit(ks[0]), suit(qs[0])}
        if len(ks) > 1:
            problems.append(f"a family may contain only one King: {names(ks)}")
        if len(qs) > 1:
            problems.append(f"a family may contain only one Queen: {names(qs)}")
    elif js and ps:
        kind = JUNIOR
        suits = {suit(js[0]), suit(ps[0])}
        if suit(js[0]) == suit(ps[0]):
            problems.append(f"Jack and Princess of {SUIT_NAMES[suit(js[0])]} cannot marry: same suit")
        if len(js) > 1:
            problems.append(f"a junior family has only one Jack: {names(js)}")
        if len(ps) > 1:
            problems.append(f"a junior family has only one Princess: {names(ps)}")
        if ks or qs:
            problems.append(f"a junior family may contain no King or Queen: {names(ks + qs)}")
    else:
        single = (ks or qs or js or ps)
        lone = f"{name(single[0])} has no partner: " if single else ""
        problems.append(f"{lone}a family starts with a marriage, of a King and a Queen or of a Jack "
                        "and a Princess")
        return GroupCheck(cards, FAMILY, False, tuple(problems), 0, ())
    for c in cards:
        if c[0] == "X":
            problems.append(f"{name(c)} cannot join a family: a Xenocrat can only start a "
                            "Religious commune")
        elif suit(c) not in suits:
            owner = (f"a Royal family of {SUIT_NAMES[next(iter(suits))]} holds only that suit"
                     if kind == ROYAL else f"the family's suits are {suit_list(suits)}")
            problems.append(f"{name(c)} does not belong: {owner}")
    factor = ROYAL_POINTS_FACTOR if kind == ROYAL else 1
    points = factor * sum(value(c) for c in cards)
    ordered = tuple(s for s in SUITS if s in suits)
    return GroupCheck(cards, kind, not problems, tuple(problems), points, ordered)


def _read_commune(cards: tuple[str, ...]) -> GroupCheck:
    problems: list[str] = []
    by_letter: dict[str, list[str]] = {}
    for c in cards:
        by_letter.setdefault(c[0], []).append(c)
    for c in cards:
        if c[0] == "X":
            problems.append(f"{name(c)} cannot join an A-commune: a Xenocrat can only start a "
                            "Religious commune")
    beyond = [c for c in cards if c[0] in "YZ"]
    if beyond:
        problems.append(f"an A-commune runs only as far as W (Witch): {names(beyond)} cannot join")
    for letter, group in sorted(by_letter.items()):
        if len(group) > 1 and letter not in "XYZ":
            what = "one leader" if letter == "A" else f"one card for the letter {letter}"
            problems.append(f"an A-commune has {what}: {names(group)}")
    present = [c for c in cards if c[0] in COMMUNE_LETTERS]
    last = max((_LETTER[c[0]] for c in present), default=0)
    for i in range(last + 1):
        letter = COMMUNE_LETTERS[i]
        if letter not in by_letter:
            after = min((c for c in present if _LETTER[c[0]] > i), key=lambda c: _LETTER[c[0]])
            problems.append(f"no {letter} card ({RANK_NAMES[letter]}) before {name(after)}: an "
                            "A-commune goes in strict alphabetic order with no gaps")
            break
    points = sum(value(c) for c in cards)
    return GroupCheck(cards, COMMUNE, not problems, tuple(problems), points, ())


def check_group(cards: Sequence[str]) -> GroupCheck:
    """Judge one group of cards (any order) as a family or a commune. When it is legal as
    two kinds it counts as the better scoring; when it is legal as none, the problems are
    those of the kind it most looks like."""
    return _check_group(tuple(cards))


@lru_cache(maxsize=8192)
def _check_group(cards: tuple[str, ...]) -> GroupCheck:
    unknown = [c for c in cards if not isinstance(c, str) or c not in _DECK]
    if unknown:
        return GroupCheck(cards, NOTHING, False, (f"{unknown[0]!r} is not an IDEAL card",))
    if not cards:
        return GroupCheck(cards, NOTHING, False, ("an empty group is neither a family nor a "
                                                  "commune",))
    if len(set(cards)) < len(cards):
        twice = sorted({c for c in cards if cards.count(c) > 1}, key=deck_order)
        return GroupCheck(cards, NOTHING, False, (f"{name(twice[0])} is in the group twice",))
    ranks = {c[0] for c in cards}
    readings = []
    if "X" in ranks:
        readings.append(_read_religious(cards))
    if ranks & set("KQJP"):
        readings.append(_read_family(cards))
    if "A" in ranks:
        readings.append(_read_commune(cards))
    legal = [g for g in readings if g.legal]
    if legal:
        return max(legal, key=lambda g: (g.points, -KIND_ORDER.index(g.kind)))
    if not readings:
        return GroupCheck(cards, NOTHING, False, (
            "a family starts with a marriage (a King and a Queen, or a Jack and a Princess) and "
            "a commune with its leader (an Apothecary or a Xenocrat): there is none here",))
    # Equally wrong readings: the one whose leader is listed first (groups are laid leader first).
    leaders = {RELIGIOUS: "X", COMMUNE: "A"}
    closest = min(readings, key=lambda g: (len(g.problems), min(
        i for i, c in enumerate(cards) if c[0] in leaders.get(g.kind, "KQJP"))))
    return GroupCheck(cards, closest.kind, False, closest.problems, 0, closest.suits)


# --- a whole tableau --------------------------------------------------------

@dataclass(frozen=True)
class ArrangementCheck:
    """A player's whole tableau judged at once, as it lies after a trick.

    rejects: cards laid before that the tableau no longer holds (to the stock);
    unused: trick cards not laid (to the stock); from_hand: cards laid from the hand."""

    groups: tuple[GroupCheck, ...]
    problems: tuple[str, ...]
    rejects: tuple[str, ...]
    unused: tuple[str, ...]
    from_hand: tuple[str, ...]
    points: int

    @property
    def legal(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"legal": self.legal, "problems": list(self.problems), "points": self.points,
                "groups": [g.to_json() for g in self.groups], "rejects": list(self.rejects),
                "unused": list(self.unused), "from_hand": list(self.from_hand)}


def religious_suits(groups: Iterable[Sequence[str]]) -> set[str]:
    """The suits of the Xenocrats laid in these groups."""
    return {suit(c) for g in groups for c in g if c[0] == "X"}


def can_join(group: Sequence[str], card: str, religious: set[str]) -> bool:
    """Could `card` join the legal `group` and leave it legal (and respect conversions)?"""
    r, s = card
    ranks = {c[0] for c in group}
    if s in religious and "X" not in ranks:
        return False
    # Cheap necessary conditions first, so that most refusals need no full check.
    if "X" in ranks:
        plausible = r != "X" and any(c[0] == "X" and c[1] == s for c in group)
    else:
        plausible = ("A" in ranks and r in COMMUNE_LETTERS and r not in ranks
                     and _LETTER[r] <= len(group))
        if not plausible and r != "X":
            lead = "KQ" if "K" in ranks and "Q" in ranks else "JP" if "J" in ranks and "P" in ranks else ""
            plausible = bool(lead) and r not in lead and any(c[1] == s for c in group if c[0] in lead)
    return plausible and check_group([*group, card]).legal


_STARTERS = frozenset("KQJPABX")  # the only ranks that can start a group, alone or in a pair


def starts_group(card: str, other: str | None = None) -> bool:
    """Is this one card, or this pair, a legal group by itself? (Fast and exact: a lone
    Apothecary or Xenocrat, a marriage, an Apothecary and a Blacksmith, a Xenocrat and a
    card of its suit.)"""
    if other is None:
        return card[0] in "AX"
    pair = {card[0], other[0]}
    if pair == {"K", "Q"} or pair == {"A", "B"}:
        return True
    if pair == {"J", "P"}:
        return card[1] != other[1]
    return "X" in pair and len(pair) == 2 and card[1] == other[1]


def homeless_reason(card: str, groups: Sequence[Sequence[str]], others: Sequence[str]) -> str | None:
    """Why `card` may not be rejected from this tableau (None: it is genuinely a reject).
    `others` are the other rejects it could start a new group with."""
    religious = religious_suits(groups)
    if starts_group(card):
        return "it can stand alone as a commune"
    for g in groups:
        if can_join(g, card, religious):
            return f"it can join the {check_group(g).title} ({' '.join(g)})"
    if suit(card) not in religious:
        for other in others:
            if other != card and suit(other) not in religious and starts_group(card, other):
                return f"it can start a group with the {name(other)}, also rejected"
    return None


def check_arrangement(groups: Sequence[Sequence[str]], before: Sequence[str] = (),
                      trick: Sequence[str] = (), hand: Sequence[str] | None = None) -> ArrangementCheck:
    """Judge a player's whole tableau `groups` after a trick: `before` are the cards the
    player had laid, `trick` the cards just won, `hand` the hand when known (None: any
    other card counts as laid from the hand; the caller checks it)."""
    problems: list[str] = []
    checks = tuple(check_group(g) for g in groups)
    laid = [c for g in groups for c in g]
    seen: set[str] = set()
    for c in laid:
        if c in seen:
            problems.append(f"{name(c)} is laid twice")
        seen.add(c)
    for i, (g, gc) in enumerate(zip(groups, checks, strict=True), start=1):
        problems += [f"group {i} ({' '.join(g)}): {p}" for p in gc.problems]
    religious = {gc.suits[0] for gc in checks if gc.legal and gc.kind == RELIGIOUS}
    for g, gc in zip(groups, checks, strict=True):
        if gc.kind == RELIGIOUS:
            continue
        for c in g:
            if suit(c) in religious:
                problems.append(f"{name(c)} must be converted to the Religious commune of "
                                f"{SUIT_NAMES[suit(c)]}: no other family or commune of this player "
                                f"may hold {SUIT_NAMES[suit(c)]}")
    before_set, trick_set = set(before), set(trick)
    if hand is not None:
        hand_set = set(hand)
        for c in laid:
            if c not in before_set and c not in trick_set and c not in hand_set:
                problems.append(f"{name(c)} is neither in the hand, in the trick nor laid before")
    for c in trick:
        if c[0] == "X" and c not in seen:
            problems.append(f"{name(c)} was won in the trick: it must start a Religious commune")
    rejects = tuple(c for c in before if c not in seen)
    for c in rejects:
        why = homeless_reason(c, groups, rejects)
        if why:
            problems.append(f"{name(c)} is not a reject: {why} (laid cards stay laid while they "
                            "have a home)")
    unused = tuple(c for c in trick if c not in seen)
    from_hand = tuple(c for c in laid if c not in before_set and c not in trick_set)
    return ArrangementCheck(checks, tuple(problems), rejects, unused, from_hand,
                            sum(gc.points for gc in checks if gc.legal))


def canonical_group(cards: Sequence[str]) -> list[str]:
    """The group in the order it is laid out: leader(s) first, then the members (an
    A-commune alphabetically, others by suit then rank)."""
    gc = check_group(cards)
    if gc.kind == COMMUNE:
        return sorted(cards, key=lambda c: (_LETTER.get(c[0], -1), _DECK_ORDER[c]))
    lead = {RELIGIOUS: "X", ROYAL: "KQ", FAMILY: "KQ", JUNIOR: "JP"}.get(gc.kind, "")
    return sorted(cards, key=lambda c: (lead.find(c[0]) if c[0] in lead else len(lead),
                                        deck_order(c)))


def canonical(groups: Iterable[Sequence[str]]) -> list[list[str]]:
    """Groups in a stable order: each laid out, then by their leading card."""
    laid = [canonical_group(g) for g in groups if g]
    return sorted(laid, key=lambda g: (_kind_rank(g), deck_order(g[0])))


def _kind_rank(group: Sequence[str]) -> int:
    kind = check_group(group).kind
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


# --- the procedure of the text: conversion, truncation, rehoming -------------------

def _repair(kind: str, group: list[str]) -> tuple[list[str], list[str]]:
    """What is left of a group of `kind` that lost cards to a conversion: (kept, homeless).
    A family that lost a spouse falls apart; an A-commune is truncated at its first gap."""
    if not group:
        return [], []
    if kind == COMMUNE:
        kept = []
        for letter in COMMUNE_LETTERS:
            here = [c for c in group if c[0] == letter]
            if not here:
                break
            kept.append(here[0])
        return kept, [c for c in group if c not in kept]
    if check_group(group).legal:
        return group, []
    return [], list(group)


def rehome(groups: list[list[str]], homeless: Sequence[str]) -> tuple[list[list[str]], list[str]]:
    """Give each homeless card a legitimate home if there is one: join a group (a Religious
    commune first, then Royal families, families, communes), marry another homeless card,
    or start an A-commune. Repeats until nothing moves. Returns (groups, still homeless)."""
    groups = [list(g) for g in groups]
    left = sorted(dict.fromkeys(homeless), key=lambda c: (-value(c), deck_order(c)))
    moved = True
    while moved and left:
        moved = False
        religious = religious_suits(groups)
        order = sorted(range(len(groups)), key=lambda i: _kind_rank(groups[i]))
        for card in list(left):
            for i in order:
                if can_join(groups[i], card, religious):
                    groups[i].append(card)
                    left.remove(card)
                    moved = True
                    break
        for card in list(left):
            if card not in left or card[0] not in _STARTERS or suit(card) in religious:
                continue
            if starts_group(card):
                groups.append([card])
                left.remove(card)
                moved = True
                continue
            for other in left:
                if other != card and suit(other) not in religious and starts_group(card, other):
                    groups.append([card, other])
                    left.remove(card)
                    left.remove(other)
                    moved = True
                    break
    return groups, left


def lay_xenocrats(groups: Sequence[Sequence[str]], xenocrats: Iterable[str]) -> tuple[
        list[list[str]], list[str]]:
    """Start a Religious commune with each Xenocrat and convert to it every card of its suit
    from the other groups; broken families and truncated communes lose cards, which are
    rehomed when possible. Returns (groups, homeless cards)."""
    groups = [list(g) for g in groups]
    homeless: list[str] = []
    for x in xenocrats:
        s = suit(x)
        converted = [c for g in groups for c in g if suit(c) == s]
        rest = [(check_group(g).kind, [c for c in g if suit(c) != s]) for g in groups]
        groups = []
        for kind, g in rest:
            kept, lost = _repair(kind, g)
            if kept:
                groups.append(kept)
            homeless += lost
        groups.append([x, *[c for c in converted if c != x]])
    return rehome(groups, homeless)


def proposals(before_groups: Sequence[Sequence[str]], trick: Sequence[str],
              extra: Sequence[str] = ()) -> list[list[list[str]]]:
    """Legal tableaux after a trick by the text's procedure: the least (keep what is laid and
    start a Religious commune with every Xenocrat won, converting) and, when `extra` cards
    (trick or hand cards) are given, that plus every extra card that finds a home without
    rebuilding anything. Distinct tableaux only, the least first."""
    xs = [c for c in trick if c[0] == "X"]
    groups, homeless = lay_xenocrats(before_groups, xs)
    out = [canonical(groups)]
    if extra:
        more, _ = rehome(groups, [*homeless, *[c for c in extra if c[0] != "X" and c not in xs]])
        if canonical(more) != out[0]:
            out.append(canonical(more))
    return out


# --- the best arrangement ------------------------------------------------------

@dataclass
class _Pool:
    """The cards of one search, by source: laid before, won in the trick, in hand."""

    source: dict[str, str]
    cards: list[str] = field(default_factory=list)
    forced: frozenset[str] = frozenset()  # the suits of Xenocrats laid before or won
    marriages: tuple[dict, dict] | None = None  # `_plans`: every choice's marriages, keyed

    def priority(self, card: str) -> int:
        return _SOURCE_ORDER[self.source[card]]


_SUIT_BIT = {s: 1 << i for i, s in enumerate(SUITS)}


_SUIT_SETS = [frozenset(s for s, bit in _SUIT_BIT.items() if mask & bit) for mask in range(32)]


def _matchings(left: Sequence[str], right: Sequence[str], junior: bool) -> dict[tuple, list[tuple[str, str]]]:
    """For each key, the first partial matching of `left` with `right` cards that has it, in
    the order of a plain walk (each left card unmatched first, then matched with each right
    card in turn). King-Queen matchings (`left` Kings, `right` Queens) are keyed by the suits
    they cover, their Royal suits and their number of marriages; Jack-Princess ones (`junior`:
    Jacks and Princesses of different suits) by the suits of their Jacks and of their
    Princesses. The walk skips a state (cards decided, cards used, key) it has met: every
    matching through it has a key already found, and found first. Keys are suit bit masks
    while walking, sets of suit letters in the result."""
    found: dict[tuple[int, int, int], list[tuple[str, str]]] = {}
    seen: set[tuple[int, int, int, int, int]] = set()
    pairs: list[tuple[str, str]] = []
    lbits = [_SUIT_BIT[suit(c)] for c in left]
    rbits = [_SUIT_BIT[suit(c)] for c in right]
    n = len(left)

    def walk(i: int, used: int, a: int, b: int, m: int) -> None:
        state = (i, used, a, b, m)
        if state in seen:
            return
        seen.add(state)
        if i == n:
            if (a, b, m) not in found:
                found[(a, b, m)] = list(pairs)
            return
        walk(i + 1, used, a, b, m)
        lb = lbits[i]
        for j, rb in enumerate(rbits):
            if used >> j & 1:
                continue
            pairs.append((left[i], right[j]))
            if junior:
                if lb != rb:
                    walk(i + 1, used | 1 << j, a | lb, b | rb, m + 1)
            else:
                walk(i + 1, used | 1 << j, a | lb | rb, b | lb if lb == rb else b, m + 1)
            pairs.pop()

    walk(0, 0, 0, 0, 0)
    if junior:
        return {(_SUIT_SETS[a], _SUIT_SETS[b]): ps for (a, b, _), ps in found.items()}
    return {(_SUIT_SETS[a], _SUIT_SETS[b], m): ps for (a, b, m), ps in found.items()}


def _commune_plan(candidates: dict[str, list[tuple[int, str]]], leaders: int) -> tuple[int, list[int]]:
    """The best A-communes: `candidates[letter]` are (gain, card) sorted best first, where
    gain is what the card adds in a commune over its best use elsewhere. Returns the total
    gain and, per letter, how many communes reach it (never more than the letter before)."""
    if not leaders:
        return 0, []
    if leaders == 1:
        return _one_commune(candidates)
    # gains[k]: the best gain of the letters so far with k communes reaching the last one;
    # back[n][k]: which k of the letter before that came from (unrolled at the end)
    gains: list[int] = []
    back: list[list[int]] = []
    for n, letter in enumerate(COMMUNE_LETTERS):
        cands = candidates.get(letter, ())
        limit = min(len(cands), leaders, len(gains) - 1 if n else leaders)
        top = [0] * (limit + 1)
        for k in range(limit):
            top[k + 1] = top[k] + cands[k][0]
        if not n:
            gains = top
        else:
            # the best earlier plan with at least k communes (the fewest on a tie), for each k
            ahead = len(gains) - 1
            pick = [ahead] * len(gains)
            for j in range(len(gains) - 2, -1, -1):
                if gains[j] >= gains[ahead]:
                    ahead = j
                pick[j] = ahead
            back.append(pick[:limit + 1])
            gains = [gains[pick[k]] + top[k] for k in range(limit + 1)]
        if limit == 0:
            break
    gain = max(gains)
    k = gains.index(gain)  # the first best: the fewest communes
    plan = [k]
    for pick in reversed(back):
        k = pick[k]
        plan.append(k)
    plan.reverse()
    return gain, plan


def _one_commune(candidates: dict[str, list[tuple[int, str]]]) -> tuple[int, list[int]]:
    """`_commune_plan` with one Apothecary: the commune runs A, B, ... as far as its gains
    add up to the most (the shortest such run), taking the best card of each letter; the
    plan lists 1 for each letter it takes and 0 up to the first letter with no card."""
    total = best = length = 0
    letters = 0
    for letter in COMMUNE_LETTERS:
        cands = candidates.get(letter)
        letters += 1
        if not cands:
            break
        total += cands[0][0]
        if total > best:
            best, length = total, letters
    return best, [1] * length + [0] * (letters - length)


@dataclass
class _Budget:
    """The steps a search may still take (a step: one choice of marriages weighed; a commune
    plan worked out costs `PLAN_STEPS`); `cut` once it stopped for want of steps."""

    left: int
    used: int = 0
    cut: bool = False

    def spend(self, steps: int = 1) -> bool:
        """Take `steps`; False (and `cut`) when there were not enough left."""
        self.used += steps
        self.left -= steps
        if self.left < 0:
            self.cut = True
        return not self.cut


PLAN_STEPS = 3  # a commune plan worked out costs about three times a choice of marriages


@dataclass(frozen=True)
class Tableau:
    """A best-tableau search's answer: the groups, whether they are the best there is
    (`exact`; False: the best found within the steps allowed) and the steps it took."""

    groups: list[list[str]]
    exact: bool
    steps: int


def best_arrangement(before: Sequence[str] = (), trick: Sequence[str] = (),
                     hand: Sequence[str] = ()) -> list[list[str]]:
    """The legal tableau with the most points that the trick winner can lay from the cards
    laid before, the trick and the hand (a hint; the hand may be empty when unknown).
    Every Xenocrat laid before or won in the trick leads a Religious commune; one in hand
    does when that scores more. Ties go to keeping laid cards, then to fewer hand cards.
    Up to about 100 ms on this machine in the worst positions (benchmarks/results/
    search.json): a screen uses `best_arrangement_within`."""
    return _best(before, trick, hand, None).groups


def best_arrangement_within(before: Sequence[str] = (), trick: Sequence[str] = (),
                            hand: Sequence[str] = (), *, steps: int) -> Tableau:
    """`best_arrangement` that stops after `steps` search steps (an anytime search): the
    best legal tableau found by then, `exact` when the search finished. Choices of
    marriages are weighed best bound first, so a cut search has weighed the likeliest.
    Deterministic: the same cards and steps give the same answer. `HINT_STEPS` keeps it
    under about 10 ms on this machine (docs/games/medieval-mastery.md)."""
    if steps < 1:
        raise ValueError(f"a search needs at least 1 step, got {steps}")
    return _best(before, trick, hand, _Budget(steps))


HINT_STEPS = 400


def _best(before: Sequence[str], trick: Sequence[str], hand: Sequence[str],
          budget: _Budget | None) -> Tableau:
    pool = _Pool({})
    for src, cards in (("before", before), ("trick", trick), ("hand", hand)):
        for c in cards:
            if c not in pool.source:
                pool.source[c] = src
                pool.cards.append(c)
    forced = [c for c in pool.cards if c[0] == "X" and pool.source[c] != "hand"]
    pool.forced = frozenset(suit(x) for x in forced)
    optional = [c for c in pool.cards if c[0] == "X" and pool.source[c] == "hand"]
    best: tuple[tuple[int, int, int], list[list[str]]] | None = None
    for n in range(len(optional) + 1):
        for chosen in combinations(optional, n):
            religious = {suit(x) for x in [*forced, *chosen]}
            if best is not None:
                # the plans of this choice cannot beat the best so far: their points are at
                # most every card at its highest (doubled in a Religious commune, or in a
                # Royal family when its suit's King and Queen are free), and they use every
                # hand card of a religious suit
                ceiling = (_ceiling(pool.cards, religious), 0,
                           -sum(1 for c in pool.cards if pool.source[c] == "hand" and suit(c) in religious))
                if ceiling <= best[0]:
                    continue
            if budget is not None and budget.cut:
                break
            floor = best[0][0] if best else -1  # a plan under the best so far cannot win
            for plan in _plans(pool, [*forced, *chosen], floor, budget):
                key = (sum(check_group(g).points for g in plan),
                       -sum(1 for c in before if not any(c in g for g in plan)),
                       -sum(1 for g in plan for c in g if pool.source[c] == "hand"))
                if best is None or key > best[0]:
                    best = (key, plan)
    assert best is not None
    groups = best[1]
    if budget is not None and budget.cut:
        # a plan short of the best may leave out laid or won cards that have a home (the
        # best never does: a card at home only adds points); they may not be rejected
        laid = {c for g in groups for c in g}
        groups, _ = rehome(groups, [c for c in pool.cards if c not in laid and pool.source[c] != "hand"])
    return Tableau(canonical(groups), budget is None or not budget.cut,
                   0 if budget is None else budget.used)


def _ceiling(cards: Sequence[str], religious: set[str]) -> int:
    """At least the points of any tableau of `cards` with Religious communes in `religious`:
    every card doubled in a religious suit, or in a suit whose King and Queen are both free."""
    free = {c for c in cards if c[0] in "KQ" and suit(c) not in religious}
    return sum(value(c) * (ROYAL_POINTS_FACTOR if suit(c) in religious or
                           ("K" + suit(c) in free and "Q" + suit(c) in free) else 1)
               for c in cards if c[0] != "X")


Pairs = list[tuple[str, str]]


def _bits_of(suits: Iterable[str]) -> int:
    """The bit mask of a collection of suit letters (repeats allowed)."""
    mask = 0
    for s in suits:
        mask |= _SUIT_BIT[s]
    return mask


def _plans(pool: _Pool, xenocrats: Sequence[str], floor: int = -1,
           budget: _Budget | None = None) -> list[list[list[str]]]:
    """The best tableaux (equal on points) with these Religious communes; none when the best
    scores under `floor`. With a `budget`, the best found when its steps run out (once a
    tableau is found, or when `floor` comes from one found before).

    Every choice of marriages is scored without communes first (cheap: members count by
    suit); the A-communes can add at most `bound` to that, so only choices within reach of
    the best are given the commune plan."""
    religious = {suit(x) for x in xenocrats}
    cards = [c for c in pool.cards if c[0] != "X" and suit(c) not in religious]
    by_rank: dict[str, list[str]] = {}
    for c in cards:
        by_rank.setdefault(c[0], []).append(c)
    base = ROYAL_POINTS_FACTOR * sum(value(c) for c in pool.cards if suit(c) in religious)
    members: dict[str, int] = dict.fromkeys(SUITS, 0)
    for c in cards:
        if c[0] not in "KQJP":
            members[suit(c)] += value(c)
    # The marriages of the cards outside the forced Religious communes, found once for
    # every choice of Xenocrats from the hand: a choice's marriages are those whose suits
    # avoid its religious suits, with the same first matching for each key.
    kept = [c for c in pool.cards if c[0] in "KQJP" and suit(c) not in pool.forced]
    if pool.marriages is None:
        both = (_matchings([c for c in kept if c[0] == "K"], [c for c in kept if c[0] == "Q"], False),
                _matchings([c for c in kept if c[0] == "J"], [c for c in kept if c[0] == "P"], True))
        pool.marriages = tuple([(key, match, _bits_of(key[0]), _bits_of(key[1])) for key, match in
                                found.items()] for found in both)
    rbits_religious = _bits_of(religious)
    seniors = [m for m in pool.marriages[0] if not m[2] & rbits_religious]
    juniors = [m for m in pool.marriages[1] if not (m[2] | m[3]) & rbits_religious]
    jacks = [suit(c) for c in by_rank.get("J", [])]
    princesses = [suit(c) for c in by_rank.get("P", [])]
    leaders = len(by_rank.get("A", []))
    reach = ""
    for letter in COMMUNE_LETTERS if leaders else "":
        if letter not in by_rank:
            break
        reach += letter
    bounds: dict[tuple[frozenset[str], frozenset[str]], int] = {}

    def bound(covered: frozenset[str], senior_suits: frozenset[str]) -> int:
        """The most the communes can add: per letter, the best cards that no family takes."""
        key = (covered, senior_suits)
        if key not in bounds:
            total = 0
            for letter in reach:
                taken = senior_suits if letter in "JP" else frozenset() if letter in "KQ" else covered
                free = sorted((value(c) for c in by_rank[letter] if suit(c) not in taken), reverse=True)
                total += sum(free[:leaders])
            bounds[key] = total
        return bounds[key]

    # Without communes a plan scores its partners, the members of the covered suits, and single
    # Jacks and Princesses as members of a King-Queen family of their suit. Each choice of
    # King-Queen marriages first gets a bound over every choice of junior marriages (each Jack
    # or Princess and each suit's members at most once, at their best), best bound first, so
    # the pairs of choices are scored only while they could still reach the best.
    bit = _SUIT_BIT
    jack_bits = sum(bit[s] for s in jacks)
    princess_bits = sum(bit[s] for s in princesses)
    member_sum = [sum(members[s] for s in _SUIT_SETS[mask]) for mask in range(32)]
    pc = [mask.bit_count() for mask in range(32)]
    plans: dict[tuple, tuple[int, list[int], dict[str, list[tuple[int, str]]]]] = {}
    # the cards a commune could take: (card, suit, value, could be a family member), sorted
    # as ties between equal gains go: laid before first, then trick, then hand; deck order
    reach_cards = [(c, _SUIT_BIT[suit(c)], value(c), c[0] not in "KQ") for c in
                   sorted((c for c in cards if c[0] in reach),
                          key=lambda c: (pool.priority(c), deck_order(c)))]
    reach_set = frozenset(c for c in cards if c[0] in reach)
    index = {c: i for i, c in enumerate(cards)}
    jp_suits = _bits_of(suit(c) for c in cards if c[0] in reach and c[0] in "JP")
    other_suits = _bits_of(suit(c) for c in cards if c[0] in reach and c[0] not in "KQJP")

    free_cands: dict[tuple[int, int, int], dict[str, list[tuple[int, str]]]] = {}

    def commune_plan(covered: int, senior_suits: int, royal: int,
                     partners: frozenset[str]) -> tuple[Any, ...]:
        """The A-communes of the cards no marriage (`partners`) takes, given the families'
        suits (bit masks): (gain, letters per commune, candidates, the cards they take as a
        set and as a bit mask of `cards`). Remembered, by the suits that change what a card
        gains in a commune and by the partners that could change it: a commune takes at
        most `leaders` cards of a letter, best first, so only the partners met before that
        many other cards of their letter count."""
        suits_key = (covered & other_suits, senior_suits & jp_suits, royal & (other_suits | jp_suits))
        free = free_cands.get(suits_key)
        if free is None:
            free = {}
            for c, b, v, family_letter in reach_cards:  # in the order ties go by
                member = family_letter and b & (senior_suits if c[0] in "JP" else covered)
                fam = v * (ROYAL_POINTS_FACTOR if b & royal else 1) if member else 0
                free.setdefault(c[0], []).append((v - fam, c))
            for lst in free.values():
                lst.sort(key=lambda gc: -gc[0])  # stable: ties stay in the order they go by
            free_cands[suits_key] = free
        if partners:
            met = []
            for lst in free.values():
                others = 0
                for _, c in lst:
                    if c in partners:
                        met.append(c)
                    else:
                        others += 1
                        if others == leaders:
                            break
            partners = frozenset(met)
        key = (suits_key, partners)
        if key not in plans:
            cands = free if not partners else {
                letter: [gc for gc in lst if gc[1] not in partners] for letter, lst in free.items()}
            if budget is not None:
                budget.spend(PLAN_STEPS)
            gain, counts = _commune_plan(cands, leaders)
            taken = frozenset(cands[letter][i][1] for letter, k in
                              zip(COMMUNE_LETTERS, counts, strict=False) for i in range(k))
            plans[key] = (gain, counts, cands, taken, sum(1 << index[c] for c in taken))
        return plans[key]
    senior_list = []
    for si, (skey, senior, sbits, rbits) in enumerate(seniors):
        # partners (a Royal one doubled), members of the covered suits (doubled in a Royal
        # family); at most: every Jack and Princess at its best, the other suits' members
        part = base + 49 * (skey[2] + pc[rbits]) + member_sum[sbits] + member_sum[rbits]
        reach_j = (21 * (pc[jack_bits] + pc[jack_bits & rbits])
                   + 23 * (pc[princess_bits] + pc[princess_bits & rbits]) + member_sum[31 & ~sbits])
        # the communes can add at most bound(senior_suits, ...): every plan covers those suits
        senior_list.append((part + reach_j + bound(skey[0], skey[0]), si, skey, senior, part,
                            sbits, rbits, reach_j))
    senior_list.sort(key=lambda o: (-o[0], o[1]))
    junior_list = [(ji, jkey, junior, js, ps, len(jkey[0]))
                   for ji, (jkey, junior, js, ps) in enumerate(juniors)]
    best = floor
    found: list[tuple[Any, ...]] = []
    for top, si, skey, senior, part, sbits, rbits, reach_j in senior_list:
        if top < best:
            break
        if budget is not None and budget.cut and (found or floor >= 0):
            break
        # tighter: what the communes add when the families cover only these suits and take no
        # card from them (a card gains less when more suits are covered)
        most_s = commune_plan(sbits, sbits, rbits, frozenset())[0] if reach else 0
        if part + reach_j + most_s < best:
            continue
        senior_suits = skey[0]
        not_s = ~sbits
        j_s, j_r = jack_bits & sbits, jack_bits & rbits
        p_s, p_r = princess_bits & sbits, princess_bits & rbits
        # partners, members of suits only the junior families cover, single Jacks and
        # Princesses as members of a King-Queen family of their suit (doubled if Royal);
        # best first, so the rest can be dropped once even the communes cannot lift them
        scored = sorted(((part + 44 * nj + member_sum[(js | ps) & not_s]
                          + 21 * (pc[j_s & ~js] + pc[j_r & ~js]) + 23 * (pc[p_s & ~ps] + pc[p_r & ~ps]),
                          ji, junior, js | ps) for ji, _, junior, js, ps, nj in junior_list),
                        key=lambda o: -o[0])
        for score, ji, junior, jbits in scored:
            if score + most_s < best:
                break
            if budget is not None and not budget.spend() and (found or floor >= 0):
                break
            covered = _SUIT_SETS[sbits | jbits]
            if score + bound(covered, senior_suits) < best:
                continue
            gain, partners = 0, frozenset()
            if reach:
                # the communes without the partners' exclusion first: as many cards or more
                # for every letter, so at least the gain; often enough to rule the pair out,
                # and the gain itself when those communes take no partner
                free, _, _, free_taken, _ = commune_plan(sbits | jbits, sbits, rbits, frozenset())
                if score + free < best:
                    continue
                partners = frozenset(c for p in senior + junior for c in p) & reach_set
                gain = free
                if not partners.isdisjoint(free_taken):
                    gain = commune_plan(sbits | jbits, sbits, rbits, partners)[0]
            best = max(best, score + gain)
            if score + gain == best:
                found.append((-score, si, ji, score + gain, senior, junior,
                              (sbits | jbits, sbits, rbits, partners)))
    # the tied plans in the order of the plain search: score, then senior and junior choice
    found.sort(key=lambda f: f[:3])
    tied = chosen = [f for f in found if f[3] == best]
    if len(chosen) > 1:
        # Equal on points, the tie-breaks (keep laid cards, then fewer hand cards) read which
        # cards the tableau holds, and the first of the best wins: only it is built. The
        # cards `_build` lays: the partners, the communes' cards, and every other card of a
        # suit a family takes (Jacks and Princesses: a King-Queen family's suits).
        laid_before = sum(1 << i for i, c in enumerate(cards) if pool.source[c] == "before")
        from_hand = sum(1 << i for i, c in enumerate(cards) if pool.source[c] == "hand")
        jp_of = [sum(1 << i for i, c in enumerate(cards) if c[0] in "JP" and bit[suit(c)] & mask)
                 for mask in range(32)]
        rest_of = [sum(1 << i for i, c in enumerate(cards) if c[0] not in "KQJP" and bit[suit(c)] & mask)
                   for mask in range(32)]
        keys = []
        for f in chosen:
            covered, sbits = f[6][0], f[6][1]
            used = sum(1 << index[c] for p in f[4] + f[5] for c in p) | jp_of[sbits] | rest_of[covered]
            if reach:
                used |= commune_plan(*f[6])[4]
            keys.append((-(laid_before & ~used).bit_count(), (from_hand & used).bit_count() * -1))
        chosen = [chosen[keys.index(max(keys))]]
    def build(f: tuple[Any, ...]) -> list[list[str]]:
        counts, cands = commune_plan(*f[6])[1:3] if reach else ([], {})
        return _build(pool, xenocrats, cards, f[4], f[5], counts, cands)

    plans_out = [build(f) for f in chosen]
    if chosen is not tied and any(sum(check_group(g).points for g in plan) != best for plan in plans_out):
        plans_out = [build(f) for f in tied]  # never expected: let the caller weigh them all
    return plans_out


def _build(pool: _Pool, xenocrats: Sequence[str], cards: list[str], senior: Pairs, junior: Pairs,
           counts: list[int], cands: dict[str, list[tuple[int, str]]]) -> list[list[str]]:
    """The tableau of one plan: Religious communes, the marriages with every member placed
    where it counts most (a Royal family first), and the A-communes of the commune plan."""
    groups: list[list[str]] = []
    for x in xenocrats:
        groups.append([x, *[c for c in pool.cards if suit(c) == suit(x) and c != x]])
    used: set[str] = {c for p in senior + junior for c in p}
    communes: list[list[str]] = [[] for _ in range(counts[0] if counts else 0)]
    for letter, k in zip(COMMUNE_LETTERS, counts, strict=False):
        for i in range(k):
            card = cands[letter][i][1]
            communes[i].append(card)
            used.add(card)
    families = [[k, q] for k, q in senior] + [[j, p] for j, p in junior]
    # Royal families first: a card there counts double.
    ranked = sorted(range(len(families)), key=lambda i: (
        0 if check_group(families[i]).kind == ROYAL else 1 if i < len(senior) else 2))
    for c in cards:
        if c in used or c[0] in "KQ":
            continue
        for i in ranked:
            fam = families[i]
            if c[0] in "JP" and i >= len(senior):
                continue
            if suit(c) in {suit(x) for x in fam[:2]}:
                fam.append(c)
                break
    return groups + families + [c for c in communes if c]


# --- tricks ---------------------------------------------------------------------

HAND_SIZE = 9
NEMESIS = {"K": "Z", "Q": "N", "P": "T", "F": "V", "J": "W"}  # Ruler -> its Wanderer
SUIT_ORDER_WORDS = "Swords, Cups, Staffs, Pentacles, Wands"


def _strength(card: str) -> tuple[int, int]:
    return VALUES[card[0]], -SUITS.index(card[1])


def trick_winner(cards: Sequence[str]) -> tuple[int, str]:
    """The index (in playing order) of the card that wins a trick, and why in words."""
    met = [(i, cards.index(NEMESIS[c[0]] + c[1])) for i, c in enumerate(cards)
           if c[0] in NEMESIS and NEMESIS[c[0]] + c[1] in cards]
    if met:
        ruler, nemesis = max(met, key=lambda p: _strength(cards[p[0]]))
        why = (f"{name(cards[nemesis])} beats {name(cards[ruler])}: a Ruler that meets its own "
               "nemesis in a trick loses to it, whatever else is played")
        if len(met) > 1:
            rulers = sorted((cards[i] for i, _ in met), key=_strength, reverse=True)
            why += (f"; of the Rulers that met their nemesis ({names(rulers)}) the "
                    f"{name(cards[ruler])} ranks highest")
        return nemesis, why
    if all(c[0] == "X" for c in cards):
        return 0, (f"only Xenocrats: all Xenocrats are equal, so the first played, the "
                   f"{name(cards[0])}, wins")
    best = max(range(len(cards)), key=lambda i: _strength(cards[i]))
    card = cards[best]
    why = f"{name(card)} is the highest card ({RANK_NAMES[card[0]]}, value {value(card)})"
    same = [c for c in cards if c[0] == card[0] and c != card and c[0] != "X"]
    if same:
        why += f"; it beats the {names(same)} on suit order ({SUIT_ORDER_WORDS})"
    if suit(card) != suit(cards[0]):
        why += f"; it need not follow the suit led ({SUIT_NAMES[suit(cards[0])]}): there are no trumps"
    return best, why
