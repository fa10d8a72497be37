"""The Piktas solver against a brute-force reference written straight from the rulings.

The reference tries every way to share the pips out (every partition into units, some
pips left unused), every unit each part could be, and every trump choice; it is
exponential, so the pools here are small but dense in sequences, runs and trumps: random
ones, and ones built to hold Mixed Sequences (runs in two or three suits, the trumps that
could knit them, some of those trumps in the hand, where the chain's order and which trump
knits decide the Full Hand).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.piktas.rules import DECK, score, unit_points

Option = tuple[int, int, frozenset[str]]  # points, high, trumps the unit holds


def partitions(items: list[str]) -> Iterator[tuple[list[list[str]], list[str]]]:
    """Every way to put each item in a block or leave it unused: (blocks, unused)."""
    if not items:
        yield [], []
        return
    first, rest = items[0], items[1:]
    for blocks, unused in partitions(rest):
        yield blocks, [first, *unused]
        for i in range(len(blocks)):
            yield [*blocks[:i], [first, *blocks[i]], *blocks[i + 1:]], unused
        yield [[first], *blocks], unused


def carriers(trumps: list[str], suit: str) -> list[str]:
    return [t for t in trumps if suit in DECK[t].suits]


def is_run(block: list[str]) -> bool:
    cards = sorted((DECK[c] for c in block), key=lambda c: c.value)
    return (len(cards) >= 2 and len({c.suit for c in cards}) == 1
            and [c.value for c in cards] == list(range(cards[0].value, cards[0].value + len(cards))))


def block_options(block: list[str], trumps: list[str]) -> list[Option]:
    """Every unit the pips of `block` can form (with any trumps): points, high, trumps."""
    cards = sorted((DECK[c] for c in block), key=lambda c: (c.value, c.code))
    values = [c.value for c in cards]
    suits = {c.suit for c in cards}
    out: list[Option] = []
    if 2 <= len(cards) <= 5 and len(set(values)) == 1:
        out.append((len(cards), values[0], frozenset()))
    if len(suits) == 1:
        tr = carriers(trumps, cards[0].suit)
        if len(cards) + len(tr) >= 6:
            out.append((len(cards) + 2 * len(tr), max(values), frozenset(tr)))
    if values == list(range(values[0], values[0] + len(values))):
        lows = [None] + (carriers(trumps, cards[0].suit) if values[0] >= 2 else [])
        highs = [None] + (carriers(trumps, cards[-1].suit) if values[-1] <= 9 else [])
        for lo, hi in itertools.product(lows, highs):
            if lo is not None and lo == hi:
                continue
            ends = [t for t in (lo, hi) if t is not None]
            if len(values) + len(ends) < 6:
                continue
            n = len(values) + 2 * len(ends)
            high = values[-1] + (hi is not None)
            out.append(((2 * n if len(suits) == 1 else n) + high, high, frozenset(ends)))
    for runs, unused in partitions(block):
        if unused or len(runs) < 2 or not all(is_run(r) for r in runs):
            continue
        n = len(block) + 2 * (len(runs) - 1)
        if n < 6:
            continue
        for order in itertools.permutations(runs):
            knit_choices = []
            for a, b in itertools.pairwise(order):
                pair = {DECK[a[0]].suit, DECK[b[0]].suit}
                knit_choices.append([t for t in trumps if set(DECK[t].suits) == pair])
            for knits in itertools.product(*knit_choices):
                if len(set(knits)) == len(knits):
                    out.append((n + max(values), max(values), frozenset(knits)))
    return out


def reference(hand: list[str], field: list[str]) -> tuple[int, int, int]:
    """(total, best unit, best card in a unit) by trying every arrangement."""
    pool = hand + field
    pips = [c for c in pool if DECK[c].kind == "pip"]
    trumps = [c for c in pool if DECK[c].kind == "trump"]
    duo = [t for t in trumps if sum(DECK[u].suits == DECK[t].suits for u in trumps) == 2]
    duo_points = 2 * len(duo)  # 4 per pair
    hand_pips = {c for c in hand if DECK[c].kind == "pip"}
    hand_trumps = {c for c in hand if DECK[c].kind == "trump"}
    full_possible = bool(hand) and not any(DECK[c].kind == "void" for c in hand)
    cache: dict[tuple[str, ...], list[Option]] = {}
    best = (0, 4 if duo else 0, 0)
    for blocks, unused in partitions(pips):
        per_block = []
        for block in blocks:
            key = tuple(sorted(block))
            if key not in cache:
                cache[key] = block_options(block, trumps)
            per_block.append(cache[key])
        if not all(per_block):
            continue
        full_cards = full_possible and not hand_pips & set(unused)
        for combo in itertools.product(*per_block):
            total = duo_points + sum(o[0] for o in combo)
            covered = set(duo).union(*(o[2] for o in combo))
            if full_cards and hand_trumps <= covered:
                total += 2
            unit = max([4 if duo else 0, *(o[0] for o in combo)])
            card = max([0, *(o[1] for o in combo)])
            best = max(best, (total, unit, card))
    return best


DENSE = ([f"{s}{v}" for s in "OWU" for v in range(2, 9)]
         + ["lizard", "serpent", "tree", "grain", "reeds", "man", "jackal", "void1"])


@st.composite
def small_pools(draw) -> tuple[list[str], list[str]]:
    pips = draw(st.lists(st.sampled_from(DENSE[:21]), min_size=2, max_size=7, unique=True))
    others = draw(st.lists(st.sampled_from(DENSE[21:]), max_size=4, unique=True))
    cards = draw(st.permutations(pips + others))
    cut = draw(st.integers(max(0, len(cards) - 6), min(6, len(cards))))
    return cards[:cut], cards[cut:]


SUITS = "OWKUM"
TRUMPS = [c.code for c in DECK if c.kind == "trump"]
SCORING = [c.code for c in DECK if c.kind != "void"]


def knitting(a: str, b: str) -> list[str]:
    """The two trumps of the pair of suits a, b."""
    return [t for t in TRUMPS if set(DECK[t].suits) == {a, b}]


def chained_pool(choose: Callable[[Sequence[Any]], Any], most_pips: int = 7) -> tuple[list[str],
                                                                                       list[str]]:
    """A pool built to hold Mixed Sequences: runs of 2 or 3 values in two or three suits, up
    to two trumps of each pair of those suits (the possible knits), now and then one card
    more; some of the trumps and some of the pips in the hand, the rest in the field.
    `choose(options)` returns one of the options: hypothesis draws or a seeded random."""
    suits = list(SUITS)
    chosen = [suits.pop(suits.index(choose(suits))) for _ in range(choose((2, 2, 3)))]
    pips: list[str] = []
    for k, s in enumerate(chosen):
        room = most_pips - len(pips) - 2 * (len(chosen) - 1 - k)
        length = choose(range(2, min(3, room) + 1))
        low = choose(range(1, 12 - length))
        pips += [f"{s}{v}" for v in range(low, low + length)]
    trumps = [t for a, b in itertools.combinations(chosen, 2) for t in knitting(a, b)
              if choose((False, True))]
    extra = []
    if choose((False, False, False, True)):
        extra.append(choose([c for c in [*SCORING, "void1"] if c not in pips and c not in trumps
                             and (DECK[c].kind != "pip" or len(pips) < most_pips)]))
    cards = pips + trumps + extra
    hand = [c for c in cards if choose((False, True))][:6]
    return hand, [c for c in cards if c not in hand][:6]


@st.composite
def chained_pools(draw) -> tuple[list[str], list[str]]:
    return chained_pool(lambda options: draw(st.sampled_from(options)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_pools())
def test_solver_matches_the_brute_force_reference(pool):
    hand, field = pool
    result = score(hand, field)
    assert (result.total, result.best_unit, result.best_card) == reference(hand, field)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chained_pools())
def test_solver_matches_the_reference_on_pools_built_for_mixed_sequences(pool):
    hand, field = pool
    result = score(hand, field)
    assert (result.total, result.best_unit, result.best_card) == reference(hand, field)
    for unit in result.units:
        assert unit_points(unit.kind, unit.cards) == unit.points


def test_a_hand_trump_knits_the_chain_for_the_full_hand():
    # issue 18: O6 O7 [bee] K8 K9 [raven] U8 U9 leaves the serpent out; chained the other way,
    # O6 O7 [serpent] U8 U9 [raven] K8 K9, every hand card is in a unit: 19 + Full Hand 2
    hand, field = ["serpent", "O6", "O7", "K8", "U8"], ["K9", "U9", "bee", "raven"]
    assert reference(hand, field)[0] == 21
    result = score(hand, field)
    assert result.total == 21
    chain = next(u for u in result.units if u.kind == "multi_mixed_sequence")
    assert "serpent" in chain.cards and unit_points(chain.kind, chain.cards) == 19
    assert any(u.kind == "full_hand" for u in result.units)


def test_reference_reads_the_rule_text_examples_like_the_solver():
    # the reference is itself checked on the text's vectors before it judges the solver
    assert reference(["void1"], ["O3", "O4", "O5", "O6", "O7", "lizard"])[0] == 22
    assert reference(["void1", "O10"], ["O1", "O2", "O5", "O7", "O9", "lizard"])[0] == 8
    assert reference(["void1", "U2", "jackal", "M10"], ["O4", "O5", "O6", "lizard", "U1", "M9"])[0] == 21
    assert reference(["O7", "W7"], ["K7"])[0] == 3 + 2


@settings(max_examples=60, deadline=None)
@given(small_pools())
def test_every_unit_matches_its_definition(pool):
    hand, field = pool
    for unit in score(hand, field).units:
        assert unit_points(unit.kind, unit.cards) == unit.points
