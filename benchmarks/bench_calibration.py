"""What undoing the lens costs on one core: a whole-frame remap (what CalibratedSource
does), straightening points only, and `warp_maps` (raw frame to a straightened top-down
view in one remap) against the plain warp the pipeline does today.

    python -m benchmarks calibration      # saves benchmarks/results/calibration.json
"""

from __future__ import annotations

import os
import time

import cv2
import numpy as np

from benchmarks.common import save, summarise
from vision.calibration import Calibration, Undistorter, undistort_image, warp_maps

REPEATS = 300
SIZES = ((1280, 720), (1536, 864))
TOP_DOWN = (600, 500)  # a mat's top-down view at 1.25 px/mm


def _lens(size: tuple[int, int]) -> Calibration:
    """About the Camera Module 3 Wide: 0.54 x width focal length, strong barrel distortion."""
    w, h = size
    f = 0.54 * w
    matrix = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    return Calibration("bench", size, matrix, np.array([-0.30, 0.10, 0.0, 0.0, 0.0]), 0.3, 20, 0.9)


def _time(fn, repeats: int = REPEATS) -> dict[str, float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return summarise(samples)


def _once(fn) -> float:
    start = time.perf_counter()
    fn()
    return round((time.perf_counter() - start) * 1000, 3)


def main() -> None:
    cv2.setNumThreads(1)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    rng = np.random.default_rng(0)
    results: dict[str, object] = {"threads": "one core, OpenCV single-threaded"}
    for size in SIZES:
        w, h = size
        lens = _lens(size)
        image = rng.integers(0, 255, (h, w, 3), np.uint8)
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        undistorter = Undistorter(lens)
        H = np.array([[TOP_DOWN[0] / w * 1.1, 0, -30], [0, TOP_DOWN[1] / h * 1.1, -20], [0, 0, 1]])
        maps = warp_maps(lens, H, TOP_DOWN, undistorter.matrix)
        points = rng.uniform([0, 0], [w, h], (64, 2))
        row = {
            "maps_once_ms": _once(lambda lens=lens: Undistorter(lens)),
            "remap_whole_frame_bgr": _time(lambda u=undistorter, i=image: u.apply(i)),
            "remap_whole_frame_grey": _time(lambda u=undistorter, g=grey: undistort_image(g, u.maps)),
            "points_64": _time(lambda u=undistorter, p=points: u.points(p)),
            "warp_maps_once_ms": _once(lambda lens=lens, H=H, u=undistorter: warp_maps(lens, H, TOP_DOWN,
                                                                                       u.matrix)),
            "raw_to_straight_top_down": _time(lambda i=image, m=maps: undistort_image(i, m)),
            "plain_warp_top_down": _time(lambda i=image, H=H: cv2.warpPerspective(i, H, TOP_DOWN)),
        }
        results[f"{w}x{h}"] = row
        print(f"{w}x{h}: whole-frame remap {row['remap_whole_frame_bgr']['median_ms']:.2f} ms, "
              f"64 points {row['points_64']['median_ms']:.3f} ms, raw to straightened top-down "
              f"{row['raw_to_straight_top_down']['median_ms']:.2f} ms (plain warp "
              f"{row['plain_warp_top_down']['median_ms']:.2f} ms)")
    save("calibration", results)


if __name__ == "__main__":
    main()
