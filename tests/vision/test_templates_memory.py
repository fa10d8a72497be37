"""The templates' caches stay bounded (the kiosk's memory budget, docs/kiosk.md) and a
dropped entry never changes what is identified."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.vision.test_identify import detected, lay
from vision.art import render_card
from vision.identify import identify
from vision.templates import PAIRS_KEPT_BYTES, KeptCache, deck_templates


def test_a_kept_cache_drops_the_least_recently_used_beyond_its_bytes():
    cache = KeptCache(3000)
    for key in "abc":
        cache[key] = (np.zeros(1000, np.uint8), None)
    assert cache.nbytes == 3000 and list(cache) == ["a", "b", "c"]
    assert "a" in cache  # asking makes "a" the most recent: "b" goes next
    cache["d"] = np.zeros(1000, np.uint8)
    assert list(cache) == ["c", "a", "d"] and cache.nbytes == 3000
    assert cache["c"][0].shape == (1000,)  # reading makes "c" the most recent: "a" goes next
    cache["e"] = (np.zeros(2000, np.uint8),)
    assert list(cache) == ["c", "e"] and cache.nbytes == 3000
    cache["big"] = np.zeros(5000, np.uint8)  # the newest is kept even alone over the bound
    assert list(cache) == ["big"] and cache.nbytes == 5000
    cache["big"] = np.zeros(10, np.uint8)  # put again: counted once, at its new size
    assert len(cache) == 1 and cache.nbytes == 10
    del cache["big"]
    assert len(cache) == 0 and cache.nbytes == 0 and "big" not in cache


def test_the_pair_cache_of_new_templates_is_bounded():
    t = deck_templates("standard")
    assert isinstance(t.pairs, KeptCache) and t.pairs.max_bytes == PAIRS_KEPT_BYTES


@pytest.mark.parametrize("code", ["5S", "5C", "5H", "5D", "KS", "KC", "JK1", "JK2"])
def test_cards_told_apart_by_pair_margins_read_the_same_when_every_pair_is_dropped(code):
    """Suits that differ only in colour or a small mark are settled by pair margins;
    with a cache that keeps one pair, identification is the same, score and margin too."""
    standard = deck_templates("standard")
    frame, corners = lay(render_card("standard", code, 6.0), standard.size_mm, angle=12, blur=1.2)
    quad = detected(corners, 0)
    everything = dataclasses.replace(standard, pairs={}, cache={})
    one = dataclasses.replace(standard, pairs=KeptCache(1), cache={})
    kept = identify(frame, quad, everything)
    dropped = identify(frame, quad, one)
    assert kept.code == code and len(everything.pairs) > 1  # pairs were used ...
    assert len(one.pairs) == 1  # ... and all but the last dropped
    assert repr(dropped) == repr(kept)


def test_a_face_drawn_without_keeping_is_the_same_picture_and_stays_out_of_the_cache():
    from vision import art

    art._FACES.clear()
    drawn = render_card("yokir", "MT", 5.5, keep=False)
    assert art._FACES.find(("yokir", "MT", 5.5)) is None and len(art._FACES) == 0
    kept = render_card("yokir", "MT", 5.5)
    assert kept is not drawn and np.array_equal(kept, drawn) and not drawn.flags.writeable
    assert render_card("yokir", "MT", 5.5, keep=False) is kept  # one already kept is reused


def test_building_a_decks_templates_leaves_none_of_its_faces_in_the_art_cache():
    """The 6 px/mm faces are drawn once each: kept, they held 12 MB of the recognition
    process for as long as it ran."""
    from vision import art
    from vision.templates import art_templates

    art._FACES.clear()
    built = art_templates.__wrapped__("yokir")  # built afresh, not the cached one
    assert len(built.codes) > 1 and len(art._FACES) == 0
    assert np.array_equal(built.index_tl, art_templates("yokir").index_tl)


def test_rows_alike_are_found_a_few_at_a_time_as_over_the_whole_stack():
    from vision.templates import SAME_ART_LEVELS, _alike_rows

    rng = np.random.default_rng(5)
    rows = rng.integers(0, 256, (40, 30), dtype=np.uint8)
    rows[7] = np.clip(rows[3].astype(int) + rng.integers(-11, 12, 30), 0, 255)  # alike row 3
    rows[9] = rows[3]
    rows[9, 0] = (int(rows[3, 0]) + 12) % 256  # one level too far
    whole = np.abs(rows.astype(np.float32) - rows[3].astype(np.float32)).max(axis=1) < SAME_ART_LEVELS
    for chunk in (1, 7, 16, 64):
        assert np.array_equal(_alike_rows(rows, rows[3], chunk), whole)
    assert set(np.flatnonzero(whole)) == {3, 7}


def test_the_pair_cache_keeps_its_places_in_16_bits_and_picks_the_same_values():
    from vision.identify import _pair, _pair_cached
    from vision.templates import white_balance

    t = deck_templates("yokir")
    t.pairs.clear()
    stack = t.colour_tl[1]
    where, mid, d, dd = _pair_cached(t, 1, "tl", 0, 1)
    wide, wide_mid, wide_d = _pair(white_balance(stack[0]), white_balance(stack[1]), 12)
    assert where.dtype == np.uint16 and wide.dtype == np.intp and len(where) > 0
    assert np.array_equal(where, wide) and np.array_equal(mid, wide_mid) and np.array_equal(d, wide_d)
    pixels = stack[2].reshape(-1)
    assert np.array_equal(pixels[where], pixels[wide])
    assert t.pairs.nbytes == where.nbytes + mid.nbytes + d.nbytes + dd.nbytes
