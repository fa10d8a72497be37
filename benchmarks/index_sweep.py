"""The operating point of the corner-index finder (vision.indices) on real photos.

Called by the real-photo benchmark (bench_real) with the taught deck. Every photo is
read by outlines alone (`PipelineParams(indices=False)`), then the index finder runs
with loose thresholds and every reading it makes is kept; the thresholds are then
applied afterwards, so one pass gives precision and recall at every point of the grid.
A reading is right when its code is one of the photo's cards and its outline covers
that card's box (benchmarks/realphotos.py); recall is of all labelled cards, the
cards named by their outlines included.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from benchmarks import realphotos as rp

SCORES = (0.72, 0.75, 0.78, 0.80, 0.84)
LEADS = (0.03, 0.05, 0.08)
QUIET = (1.0, 0.5, 0.3)


def sweep(folder: Path, test: list[rp.Photo], deck: str, templates) -> dict:
    """Precision and recall at thresholds around the chosen ones, plus the best score of
    any wrong reading."""
    import cv2

    from vision import indices as vi
    from vision.pipeline import PipelineParams, Recognizer

    chosen = vi.IndexParams()
    loose = dataclasses.replace(chosen, min_score=min(SCORES), min_margin=min(LEADS), quiet=1.0)
    g = templates.glyphs
    per_photo = []
    for photo in test:
        image = cv2.imread(str(folder / "train" / photo.file))
        result = Recognizer(deck, None, templates=templates, params=PipelineParams(indices=False)).see(image)
        cards = [(c.code, c.corners_px) for c in result.cards]
        named = [q for c, q in cards if c]
        readings = []
        for reading in _every_reading(image, g, loose, named):
            readings.append((reading, vi.quiet_above(image, reading.corners, g)))
        per_photo.append((photo, cards, readings))

    def tally(score: float, lead: float, quiet: float, source: str = "") -> rp.Tally:
        t = rp.Tally()
        for photo, cards, readings in per_photo:
            if not photo.file.startswith(source):
                continue
            have = {c for c, _ in cards if c}
            plain = [r for r, q in readings if r.score >= score and r.margin >= lead and q <= quiet]
            kept = vi._one_each(plain)
            t.add(photo, cards + [(r.code, r.corners) for r in kept if r.code not in have])
        return t

    points = []
    for score in SCORES:
        for lead in LEADS:
            for quiet in QUIET:
                t = tally(score, lead, quiet)
                points.append({"score": score, "lead": lead, "quiet": quiet, "right": t.right,
                               "wrong": t.wrong, "precision": round(t.precision, 4),
                               "recall": round(t.recall, 4)})
    wrong_scores = []
    for photo, _cards, readings in per_photo:
        for r, _q in readings:
            if not any(b.code == r.code and rp._cover(r.corners, b.box) >= 0.3 for b in photo.boxes):
                wrong_scores.append(round(min(r.score, 1.0), 3))
    by_source = {}
    sources = (("IMG_", "phone (the camera taught with)"), ("cam_", "webcam (never taught with)"))
    for source, name in sources:
        t = tally(chosen.min_score, chosen.min_margin, chosen.quiet, source)
        by_source[name] = {"cards": t.boxes, "right": t.right, "wrong": t.wrong, "recall": round(t.recall, 4)}
    return {"chosen": {"score": chosen.min_score, "lead": chosen.min_margin, "quiet": chosen.quiet},
            "by_source": by_source,
            "best_wrong_score": max(wrong_scores, default=None), "wrong_readings": len(wrong_scores),
            "points": points}


def _every_reading(image, g, params, named):
    """Every plain reading the finder makes, before one reading per code is kept."""
    from vision import indices as vi

    keep = vi._one_each
    vi._one_each = lambda found: found
    try:
        return vi.find_index_cards(image, g, dataclasses.replace(params, quiet=1.0), named)
    finally:
        vi._one_each = keep


def markdown(s: dict) -> list[str]:
    """The sweep as a section of real.md."""
    c = s["chosen"]
    out = ["## Operating point of the corner-index finder", "",
           "Cards found by their corner index alone (`vision.indices`), added to the cards named by "
           "their outlines. Each row: rank and suit each at least *score* with a lead of at least *lead* "
           "over the runner-up, and at most *quiet* ink in the band above the index. Recall is of all "
           "labelled cards.", "",
           f"Chosen: score {c['score']}, lead {c['lead']}, quiet {c['quiet']}. The best-scoring wrong "
           f"reading (of {s['wrong_readings']} wrong readings at the loosest point) scored "
           f"{s['best_wrong_score']}.", "",
           "| score | lead | quiet | right | wrong | precision | recall |", "|---|---|---|---|---|---|---|"]
    for p in s["points"]:
        at = (p["score"], p["lead"], p["quiet"]) == (c["score"], c["lead"], c["quiet"])
        mark = " **(chosen)**" if at else ""
        out.append(f"| {p['score']} | {p['lead']} | {p['quiet']} | {p['right']} | {p['wrong']} | "
                   f"{p['precision']} | {p['recall']}{mark} |")
    out += ["", "At the chosen point, by camera:", "", "| photos | cards | right | wrong | recall |",
            "|---|---|---|---|---|"]
    for name, r in s["by_source"].items():
        out.append(f"| {name} | {r['cards']} | {r['right']} | {r['wrong']} | {r['recall']} |")
    return [*out, ""]
