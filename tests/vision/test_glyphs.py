"""Matching rank and suit samples in a corner's window (vision.glyphs)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.glyphs import best_of_classes


def _one_by_one(window: np.ndarray, samples: np.ndarray) -> float:
    """The best TM_CCOEFF_NORMED of any sample, as OpenCV gives it sample by sample."""
    best = -1.0
    for s in samples:
        if s.shape[0] <= window.shape[0] and s.shape[1] <= window.shape[1]:
            best = max(best, float(cv2.matchTemplate(window, s, cv2.TM_CCOEFF_NORMED).max()))
    return best


def _ink(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """A soft random ink pattern in 0..1, as vision.glyphs makes of a corner."""
    raw = (rng.random(shape) > 0.7).astype(np.float32)
    return cv2.GaussianBlur(raw, (0, 0), 1.5)


def test_every_class_scores_as_matching_its_samples_one_by_one():
    rng = np.random.default_rng(4)
    classes = {name: np.stack([_ink(rng, (20, 14)) for _ in range(3)]) for name in "AKQ7"}
    # one class's sample in the window, moved and noisy; and a window of other ink
    window = _ink(rng, (30, 24))
    window[6:26, 4:18] = classes["Q"][1] + rng.normal(0, 0.05, (20, 14)).astype(np.float32)
    for win in (window, _ink(rng, (30, 24))):
        got = best_of_classes(win, classes)
        want = {name: _one_by_one(win, s) for name, s in classes.items()}
        assert got.keys() == want.keys()
        for name in want:
            assert abs(got[name] - want[name]) < 1e-4, (name, got[name], want[name])
    assert max(best_of_classes(window, classes).items(), key=lambda kv: kv[1])[0] == "Q"


def test_a_flat_window_correlates_zero_and_a_sample_too_large_minus_one():
    rng = np.random.default_rng(5)
    classes = {"S": np.stack([_ink(rng, (10, 10))]), "H": np.stack([_ink(rng, (40, 10))])}
    got = best_of_classes(np.zeros((20, 20), np.float32), classes)
    assert got == {"S": 0.0, "H": -1.0}
    assert _one_by_one(np.zeros((20, 20), np.float32), classes["S"]) == 0.0
