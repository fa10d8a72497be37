"""A frame source for the recognition process's tests that loads numpy only when it runs
(in the child): the parent pickles it by name without importing numpy itself."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def numbered_frames(uri: str) -> Iterator[Any]:
    """An endless source of 48x64 BGR frames whose red channel is the frame's number
    (mod 256) and whose blue and green are 0."""
    import numpy as np

    def frames() -> Iterator[Any]:
        i = 0
        while True:
            image = np.zeros((48, 64, 3), np.uint8)
            image[:, :, 2] = i % 256
            yield image
            i += 1
    return frames()
