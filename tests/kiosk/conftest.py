"""The kiosk under a display (Xvfb in `make test` and CI): one app per test session.

Kivy allows one window per process, so the app is built once (`kiosk_app`) at 800x480
and each test resets it to the home screen with a fresh store. Time is driven with
`Clock.tick()` (`pump`), never by sleeping on the UI. Without a display the kiosk tests
are skipped, and the suite's conftest turns a skipped kiosk test into a failure in CI.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

_HOME = tempfile.mkdtemp(prefix="kiosk-tests-")
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
os.environ["KIVY_NO_ARGS"] = "1"
os.environ["KIVY_NO_CONSOLELOG"] = "1"
os.environ["KIVY_HOME"] = os.path.join(_HOME, "kivy")
os.environ.setdefault("KIVY_WINDOW", "sdl2")
DATA_DIR = os.path.join(_HOME, "data")  # the kiosk's settings and learned decks, per test run

HAS_DISPLAY = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if HAS_DISPLAY:
        return
    skip = pytest.mark.skip(reason="no display: run under xvfb-run (make test does)")
    for item in items:
        if item.get_closest_marker("kiosk") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def _kiosk_session() -> Iterator[object]:
    """The one app of this test process, built and started, never run by App.run()."""
    if not HAS_DISPLAY:
        pytest.skip("no display")
    from kiosk.boot import KivyAlreadyStarted, configure

    with contextlib.suppress(KivyAlreadyStarted):  # another test opened Kivy's window first
        configure((800, 480), max_fps=0)
    from kivy.base import EventLoop
    from kivy.core.window import Window

    Window.size = (800, 480)

    from companion.storage import Store
    from kiosk.app import CompanionApp

    store = Store(os.path.join(_HOME, "start.db"))
    app = CompanionApp(store, source="none", panel="keyboard", seed=7,
                       prefs_path=Path(DATA_DIR) / "kiosk.json")
    app._run_prepare()  # what App.run() does before its loop: build, window, on_start
    EventLoop.idle()
    assert tuple(Window.size) == (800, 480)
    yield app
    app.stop()
    app.store.close()


@pytest.fixture
def pump() -> Callable[..., None]:
    """Advance Kivy: `pump(n)` runs n frames of the clock (layout, triggers, drawing)."""
    from kivy.base import EventLoop

    def run(frames: int = 3) -> None:
        for _ in range(frames):
            EventLoop.idle()
    return run


@pytest.fixture
def kiosk_app(_kiosk_session, tmp_path: Path, pump, monkeypatch) -> Iterator[object]:
    """The app on its home screen, with an empty store of its own and no game."""
    from companion.storage import Store

    monkeypatch.setenv("COMPANION_DATA_DIR", DATA_DIR)
    app = _kiosk_session
    app.end_game()
    old = app.store
    app.store = Store(tmp_path / "companion.db")
    app.camera_source = "none"
    app.message = ""
    app.corners = []
    app.refresh_players()
    app.go("home")
    pump()
    yield app
    app.end_game()
    app.stop_camera()
    app.store.close()
    app.store = old
    pump()


@pytest.fixture
def tap(pump) -> Callable[[object], None]:
    """A finger on a button: press and release it (as Kivy does for a touch), then let
    the clock run so the screen shows the result."""
    def run(button: object, frames: int = 3) -> None:
        assert not button.disabled, f"{button} is disabled"
        button.dispatch("on_press")
        button.dispatch("on_release")
        pump(frames)
    return run


@pytest.fixture
def touch(pump) -> Callable[[object], None]:
    """A real touch (a MotionEvent through the window) at the centre of `widget`: it
    goes through Kivy's hit-testing, so it only lands if the widget is really there."""
    from kivy.tests.common import UnitTestTouch

    def run(widget: object, frames: int = 3) -> None:
        x, y = widget.to_window(*widget.center)
        t = UnitTestTouch(x, y)
        t.touch_down()
        pump(1)
        t.touch_up()
        pump(frames)
    return run


def _find(root: object, cls: type, where: Callable[[object], bool] = lambda w: True) -> list:
    found = []

    def walk(w):
        for child in reversed(w.children):
            if isinstance(child, cls) and where(child):
                found.append(child)
            walk(child)
    walk(root)
    return found


@pytest.fixture
def find() -> Callable[..., list]:
    """`find(root, cls, where=...)`: every widget of class `cls` under `root` for which
    `where(widget)` holds, in reading order."""
    return _find
