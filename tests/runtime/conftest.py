"""A bare Table for the runtime's tests: no camera, an injected clock, hand-fed camera feeds."""

from __future__ import annotations

import pytest

from companion.storage import Store
from runtime.table import Table
from tests.runtime.boardviews import HandFeed


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def table(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    store = Store(tmp_path / "games.db")
    clock = Clock()
    t = Table(store, source="none", prefs_path=tmp_path / "data" / "kiosk.json", seed=3,
              vision_process=False, clock=clock)
    t.clock_ = clock
    feeds: list[HandFeed] = []

    def make(config):
        feeds.append(HandFeed(config))
        return feeds[-1]
    t.make_feed = make
    t.feeds = feeds
    yield t
    t.close()
    store.close()
