"""Synthetic table benchmark: milliseconds to render one 1280x720 frame, per preset and per
camera degradation on its own.

    python -m benchmarks synthetic          (part of `make bench`)

The scene is the scripted Piktas table for four (cards dealt, moved, taken away, hands
passing), run until about 12 cards lie on it, as the vision benchmark renders it.
OpenCV runs single-threaded. Setting up the camera and the first frame, which draws the
cards at the camera's resolution, are timed apart: the steady-state figure is what a
long run costs per frame. Results go to benchmarks/results/synthetic.json.
"""

from __future__ import annotations

import time

from benchmarks.common import save, summarise

FRAMES = 240
SETTLE = 600  # scripted frames before timing starts: the table fills up
SIZE = (1280, 720)


def _run(degrade, game: str = "piktas", seed: int = 3) -> dict:
    from vision.mats import get_mat
    from vision.sources.synthetic import TableScript
    from vision.synthetic import SyntheticCamera

    mat = get_mat(game)
    start = time.perf_counter()
    camera = SyntheticCamera(mat, mat.game, seed, SIZE, degrade)
    setup = time.perf_counter() - start
    scenes = TableScript(mat, mat.game, seed, degrade).scenes()
    for _ in range(SETTLE):
        next(scenes)
    samples, cards, first = [], [], None
    for i in range(SETTLE, SETTLE + FRAMES):
        scene = next(scenes)
        t0 = time.perf_counter()
        camera.render(scene, i / 30.0)
        elapsed = time.perf_counter() - t0
        if first is None:
            first = elapsed
        else:
            samples.append(elapsed)
            cards.append(len(scene.placements))
    return {**summarise(samples), "camera_setup_ms": round(setup * 1000, 1),
            "first_frame_ms": round((first or 0) * 1000, 1), "cards_max": max(cards),
            "cards_mean": round(sum(cards) / len(cards), 1)}


def main() -> None:
    import cv2

    from vision.synthetic import Degradations

    cv2.setNumThreads(1)
    results: dict = {"frame": f"{SIZE[0]}x{SIZE[1]}", "frames": FRAMES, "presets": {}, "alone": {}}
    for name in ("clean", "typical", "hard"):
        r = _run(Degradations.preset(name))
        results["presets"][name] = r
        print(f"  {name:<17} median {r['median_ms']:6.1f} ms  p95 {r['p95_ms']:6.1f} ms  "
              f"(first frame {r['first_frame_ms']} ms, up to {r['cards_max']} cards)", flush=True)
    hard = Degradations.preset("hard")
    for knob in Degradations.CAMERA_KNOBS:
        r = _run(hard.only(knob))
        results["alone"][knob] = r
        label = f"{knob} alone"
        print(f"  {label:<17} median {r['median_ms']:6.1f} ms  p95 {r['p95_ms']:6.1f} ms", flush=True)
    save("synthetic", results)


if __name__ == "__main__":
    main()
