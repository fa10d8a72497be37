"""The operating point of the corner-index finder (vision.indices) on real photos.

Called by the real-photo benchmark (bench_real) with the taught deck, and with the
generic samples of a deck never taught (`untaught=True`: the untaught thresholds and
the corner-edge test, vision.indices.corner_edges, are swept instead). Every photo is
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
#: Untaught: the same, and the corner-edge test (both edges at least, or one at least; 0 off).
UNTAUGHT_SCORES = (0.80, 0.82, 0.84, 0.86)
UNTAUGHT_LEADS = (0.03, 0.04, 0.06)
EDGES = ((0.0, 0.0), (10.0, 40.0), (20.0, 60.0))


def sweep(folder: Path, test: list[rp.Photo], deck: str, templates, untaught: bool = False) -> dict:
    """Precision and recall at thresholds around the chosen ones, plus the best score of
    any wrong reading."""
    import cv2

    from vision import indices as vi
    from vision.pipeline import PipelineParams, Recognizer

    base = vi.IndexParams()
    if untaught:
        chosen = base.untaught()
        loose = dataclasses.replace(base, untaught_score=min(UNTAUGHT_SCORES),
                                    untaught_margin=min(UNTAUGHT_LEADS), untaught_edge=0.0,
                                    untaught_one_edge=0.0, quiet=1.0)
        grid = [(s, lead, chosen.quiet, e) for s in UNTAUGHT_SCORES for lead in UNTAUGHT_LEADS for e in EDGES]
    else:
        chosen = base
        loose = dataclasses.replace(base, min_score=min(SCORES), min_margin=min(LEADS), quiet=1.0)
        grid = [(s, lead, q, (0.0, 0.0)) for s in SCORES for lead in LEADS for q in QUIET]
    g = templates.glyphs
    per_photo = []
    for photo in test:
        image = cv2.imread(str(folder / "train" / photo.file))
        result = Recognizer(deck, None, templates=templates, params=PipelineParams(indices=False)).see(image)
        cards = [(c.code, c.corners_px) for c in result.cards]
        named = [q for c, q in cards if c]
        grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (0, 0), 1.0)
        readings = []
        for reading in _every_reading(image, g, loose, named):
            readings.append((reading, vi.quiet_above(image, reading.corners, g),
                             vi.corner_edges(grey, reading.corners, reading.scale)))
        per_photo.append((photo, cards, readings))

    def tally(score: float, lead: float, quiet: float, edge: tuple[float, float],
              source: str = "") -> rp.Tally:
        gate = dataclasses.replace(base, min_edge=edge[0], one_edge=edge[1])
        t = rp.Tally()
        for photo, cards, readings in per_photo:
            if not photo.file.startswith(source):
                continue
            have = {c for c, _ in cards if c}
            plain = [r for r, q, e in readings if r.score >= score and r.margin >= lead and q <= quiet
                     and vi._at_a_corner(e, gate)]
            kept = vi._one_each(plain)
            t.add(photo, cards + [(r.code, r.corners) for r in kept if r.code not in have])
        return t

    points = []
    for score, lead, quiet, edge in grid:
        t = tally(score, lead, quiet, edge)
        points.append({"score": score, "lead": lead, "quiet": quiet, "edge": list(edge), "right": t.right,
                       "wrong": t.wrong, "precision": round(t.precision, 4), "recall": round(t.recall, 4)})
    wrong_scores = []
    for photo, _cards, readings in per_photo:
        for r, _q, _e in readings:
            if not any(b.code == r.code and rp._cover(r.corners, b.box) >= 0.3 for b in photo.boxes):
                wrong_scores.append(round(min(r.score, 1.0), 3))
    by_source = {}
    sources = ((("IMG_", "phone"), ("cam_", "webcam")) if untaught else
               (("IMG_", "phone (the camera taught with)"), ("cam_", "webcam (never taught with)")))
    for source, name in sources:
        edge = (chosen.min_edge, chosen.one_edge)
        t = tally(chosen.min_score, chosen.min_margin, chosen.quiet, edge, source)
        by_source[name] = {"cards": t.boxes, "right": t.right, "wrong": t.wrong, "recall": round(t.recall, 4)}
    return {"chosen": {"score": chosen.min_score, "lead": chosen.min_margin, "quiet": chosen.quiet,
                       "edge": [chosen.min_edge, chosen.one_edge]},
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


def markdown(s: dict, title: str = "## Operating point of the corner-index finder") -> list[str]:
    """The sweep as a section of real.md."""
    c = s["chosen"]
    edges = any(p.get("edge", [0, 0]) != [0, 0] for p in s["points"])
    out = [title, "",
           "Cards found by their corner index alone (`vision.indices`), added to the cards named by "
           "their outlines. Each row: rank and suit each at least *score* with a lead of at least *lead* "
           "over the runner-up, and at most *quiet* ink in the band above the index"
           + (" (untaught: *edge* a, b: the card's top and left edges, where the index places them, "
              "each a step of at least a grey levels over 1 mm, or one of at least b; 0, 0 is off)"
              if edges else "")
           + ". Recall is of all labelled cards.", "",
           f"Chosen: score {c['score']}, lead {c['lead']}, quiet {c['quiet']}"
           + (f", edge {c['edge'][0]:g}, {c['edge'][1]:g}" if edges else "")
           + f". The best-scoring wrong reading (of {s['wrong_readings']} wrong readings at the loosest "
           f"point) scored {s['best_wrong_score']}.", "",
           "| score | lead | quiet |" + (" edge |" if edges else "")
           + " right | wrong | precision | recall |",
           "|---|---|---|" + ("---|" if edges else "") + "---|---|---|---|"]
    for p in s["points"]:
        at = (p["score"], p["lead"], p["quiet"], p.get("edge", [0, 0])) == (
            c["score"], c["lead"], c["quiet"], c.get("edge", [0, 0]))
        mark = " **(chosen)**" if at else ""
        edge = f" {p['edge'][0]:g}, {p['edge'][1]:g} |" if edges else ""
        out.append(f"| {p['score']} | {p['lead']} | {p['quiet']} |{edge} {p['right']} | {p['wrong']} | "
                   f"{p['precision']} | {p['recall']}{mark} |")
    out += ["", "At the chosen point, by camera:", "", "| photos | cards | right | wrong | recall |",
            "|---|---|---|---|---|"]
    for name, r in s["by_source"].items():
        out.append(f"| {name} | {r['cards']} | {r['right']} | {r['wrong']} | {r['recall']} |")
    return [*out, ""]
