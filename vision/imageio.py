"""One way to read an image file: checked before it is decoded, named when it is bad.

A photo from a user can be anything: not an image, cut short by a failed copy, or a
header claiming 100000 x 100000 pixels that would take tens of gigabytes to decode.
The size is read from the header first (Pillow reads headers without decoding), a
truncated file is caught (Pillow refuses to finish decoding it, where OpenCV quietly
fills the rest with grey), and the pixels are then decoded by OpenCV as BGR.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.errors import CompanionError

#: The most pixels an image may have: a 40-megapixel phone photo with room to spare.
MAX_PIXELS = 64_000_000


class BadImageFile(CompanionError, ValueError):
    """An image file that is missing, not an image, damaged or too large."""


def read_image(path: str | Path, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """The image at `path` as a BGR uint8 array; BadImageFile names the file and says
    what is wrong with it."""
    from PIL import Image, UnidentifiedImageError

    name = str(path)
    p = Path(path)
    if not p.is_file():
        raise BadImageFile(f"{name}: no such image file")
    try:
        with Image.open(p) as im:
            w, h = im.size
            if w * h > max_pixels:
                raise BadImageFile(f"{name}: {w}x{h} pixels is more than the "
                                   f"{max_pixels:,} an image may have")
            im.load()  # raises on a truncated file
    except BadImageFile:
        raise
    except Image.DecompressionBombError as exc:
        raise BadImageFile(f"{name}: more pixels than the {max_pixels:,} an image may have ({exc})") from None
    except UnidentifiedImageError:
        raise BadImageFile(f"{name}: not an image file") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise BadImageFile(f"{name}: damaged image ({exc})") from None
    data = np.fromfile(p, np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None:
        raise BadImageFile(f"{name}: cannot be decoded as an image")
    return image
