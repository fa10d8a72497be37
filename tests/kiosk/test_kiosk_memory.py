"""The kiosk's memory (the budget, docs/kiosk.md): card pictures are kept once, as
textures; what building a screen freed is given back once it is shown."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.kiosk


def test_a_card_texture_leaves_no_drawing_in_the_art_cache(kiosk_app):
    from kiosk import cardart
    from vision import art

    art._FACES.clear()
    texture = cardart.card_texture("ideal", "GC")
    assert texture is not None and texture.size == (101, 141)
    assert len(art._FACES) == 0  # the texture is the picture kept, not a drawing besides it
    assert cardart.card_texture("ideal", "GC") is texture


def test_memory_is_given_back_once_after_each_screen_change(kiosk_app, pump, monkeypatch):
    import kiosk.app

    released = []
    monkeypatch.setattr(kiosk.app, "release_memory", lambda: released.append(1) or True)
    kiosk_app.tidy_memory()  # whatever the fixture's own screen changes left
    released.clear()
    assert kiosk_app.tidy_memory() is False and released == []  # no screen since
    kiosk_app.open_rules("yokir")
    pump()
    assert kiosk_app.tidy_memory() is True and len(released) == 1
    assert kiosk_app.tidy_memory() is False and len(released) == 1
    kiosk_app.go("home")
    kiosk_app.go("history")
    pump()
    assert kiosk_app.tidy_memory() is True and len(released) == 2  # two changes, one release


def test_a_camera_frame_shows_the_same_pixels_uploaded_without_a_copy(kiosk_app):
    """A contiguous writable frame goes to the texture as it is, any other as a copy;
    the texture holds the same pixels either way."""
    import numpy as np

    from kiosk.widgets import CameraView, _pixels
    from runtime.feed import Shot

    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (36, 64, 3), dtype=np.uint8)
    assert np.shares_memory(_pixels(image), image)  # no copy
    frozen = image.copy()
    frozen.flags.writeable = False
    strided = np.ascontiguousarray(np.concatenate([image, image], axis=1))[:, ::2]
    assert isinstance(_pixels(frozen), bytes) and isinstance(_pixels(strided), bytes)
    from runtime.vision_process import Pixels

    received = Pixels(bytearray(image.tobytes()), image.shape)  # a frame from the recognition process
    assert _pixels(received) is received.data  # its bytes as they are
    shown = []
    for picture in (image, frozen, np.ascontiguousarray(strided), strided, received):
        view = CameraView(size=(64, 36))
        view.shot = Shot(picture, 0, 0.0)
        shown.append(bytes(view._texture.pixels))
    rgba = np.dstack([image, np.full(image.shape[:2], 255, np.uint8)]).tobytes()
    assert shown[0] == shown[1] == shown[4] == rgba
    assert shown[2] == shown[3] == np.dstack([strided, np.full(image.shape[:2], 255, np.uint8)]).tobytes()
