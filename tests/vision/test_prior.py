"""The rules help the eyes: a reading between a card already in play and one still unseen
goes to the unseen one, and says so; a card already in play is still reported when it
is clear, so the referee can rule on it."""

from __future__ import annotations

from vision.glyphs import GlyphDecision
from vision.identify import IdentifyParams, Prior, _prior_pick, _with_prior

P = IdentifyParams()


def faces(values):
    return lambda code: (values.get(code, 0.9), 0)


def test_a_king_queen_confusion_is_resolved_by_the_cards_still_unseen():
    # Rank unclear between K and Q of spades: the glyphs alone name nothing.
    d = GlyphDecision(None, "KS", 0.8, 0.02, 0, "rank K at 0.80, 0.02 ahead")
    cands = [("KS", 0.80), ("QS", 0.78)]
    prior = Prior(frozenset({"QS", "AH"}), {"KS": "already played by seat 2"})
    code, note = _with_prior(None, d, cands, prior, P, True, faces({}))
    assert code == "QS" and note == "read as QS; KS is already played by seat 2"


def test_a_clear_card_already_in_play_is_still_reported_for_the_referee():
    d = GlyphDecision("KS", "KS", 0.9, 0.3, 0)
    prior = Prior(frozenset({"AH"}), {"KS": "already played by seat 2"})
    code, note = _with_prior("KS", d, [("KS", 0.9)], prior, P, True, faces({}))
    assert code == "KS" and note == ""


def test_an_unclear_card_already_in_play_with_no_possible_rival_stays_unknown():
    d = GlyphDecision("KS", "KS", 0.6, 0.11, 0)  # just clear alone, not twice as clear
    prior = Prior(frozenset({"AH"}), {"KS": "already played by seat 2"})
    code, _ = _with_prior("KS", d, [("KS", 0.6)], prior, P, True, faces({}))
    assert code is None


def test_a_possible_card_must_still_look_like_itself():
    d = GlyphDecision(None, "KS", 0.8, 0.02, 0)
    prior = Prior(frozenset({"QS"}), {"KS": "already played by seat 2"})
    code, _ = _with_prior(None, d, [("KS", 0.8), ("QS", 0.78)], prior, P, True, faces({"QS": 0.1}))
    assert code is None


def test_whole_corner_reading_prefers_the_unseen_card_when_close():
    exact = {0: (0.86, 0, []), 1: (0.84, 0, [])}
    codes = ("KD", "KH")

    class T:
        pass

    t = T()
    t.codes = codes

    def versus(a, b):
        return (exact[a][0] - exact[b][0]) * 2.5

    prior = Prior(frozenset({"KH"}), {"KD": "already played by seat 1"})
    best, margin, note = _prior_pick(0, 0.05, [0, 1], exact, versus, t, prior, P)
    assert best == 1 and note == "read as KH; KD is already played by seat 1"
    # Unseen card best but unclear only against a card in play: it is taken, with the reason.
    prior = Prior(frozenset({"KD"}), {"KH": "already played by seat 3"})
    best, margin, note = _prior_pick(0, 0.05, [0, 1], exact, versus, t, prior, P)
    assert best == 0 and margin >= P.min_margin and note == "read as KD; KH is already played by seat 3"
