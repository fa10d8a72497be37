"""The table without a toolkit: a game started, dealt and played through it, the pin test
on an injected clock, and the lens calibration from rendered views of the ChArUco board
(the camera is a fake feed whose frames the test hands over; recognition plays no part).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from companion.storage import Store
from runtime.feed import OFF
from runtime.table import Table, TableError, raw_source
from tests.runtime.boardviews import K_TRUE, SIZE, render_views
from tests.runtime.conftest import Clock
from vision import calibration as cal


@pytest.fixture(scope="module")
def board_views() -> list[np.ndarray]:
    return render_views()


def test_a_game_is_started_dealt_and_played_through_the_table(table):
    session = table.start("yokir", ["Ann", "Bea", "Cleo"], {"target": 2}, dealer=1)
    assert table.session is session and table.view.game == "yokir"
    assert table.menu.chance == "Deal"
    table.deal()
    assert table.view.events == 1 and session.events()[0].data["dealer"] == 1  # the chosen dealer
    rng = random.Random(5)
    for _ in range(6):
        menu = table.menu
        if menu.choices:
            table.choose(rng.randrange(len(menu.choices)))
        elif menu.chance:
            table.deal()
    assert table.view.events >= 4
    with pytest.raises(TableError, match="not among the cards offered"):
        table.play_card("ZZ")
    assert table.undo() and table.redo()
    finished, unfinished, ratings = table.history()
    assert ratings == []  # nobody has finished a game
    assert [g.id for g in unfinished] == [session.game_id] and not finished


def test_the_pin_test_counts_presses_and_lights_each_output_on_the_injected_clock(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    clock = Clock()
    store = Store(tmp_path / "g.db")
    t = Table(store, source="none", prefs_path=tmp_path / "k.json", panel="keyboard", clock=clock)
    try:
        t.start_pin_test()
        assert t.panel.key_down("q") and t.panel.key_up("q")
        assert t.poll_panel()
        (name, presses), = t.pin_test.presses.items()
        assert presses == 1 and name in [part for part, _, keys in t.panel_parts() if "q" in keys.split(", ")]
        outputs = [name for name, _ in t.panel_outputs()]
        t.light_outputs(step=0.5)
        lit = [t.pin_test.lit]
        for _ in range(len(outputs) + 1):
            clock.now += 0.25
            t.pump()  # half a step: nothing moves
            assert t.pin_test.lit == lit[-1]
            clock.now += 0.25
            t.pump()
            lit.append(t.pin_test.lit)
        assert [p for p in lit if p] == outputs and lit[-1] == ""
        assert not any(t.panel.lit().values())
        t.stop_pin_test()
        assert t.pin_test is None
    finally:
        t.close()
        store.close()


def test_the_lens_is_calibrated_at_the_table_with_progress_and_kept(table, board_views, tmp_path):
    table.camera_source = "cv:0"
    table.calibration_start(background=False, target_views=12, min_views=8)
    feed = table.feeds[-1]
    assert feed.keep_full and feed.config.source == "cv:0?calibration=none"  # raw frames only
    progress = [table.calibration.progress()]
    for view in board_views:
        feed.show(view)
        table.pump()
        progress.append(table.calibration.progress())
    views = [p["views"] for p in progress]
    assert views == sorted(views) and views[-1] == 12 and progress[-1]["done"]
    assert progress[3]["error"] is None and progress[-1]["error"] < 1.0  # the error once there are views
    assert progress[-1]["coverage"] > 0.4 and "taken" in progress[-1]["reason"]
    path = table.calibration_finish()
    assert table.calibration is None and "12 views" in table.message and "px" in table.message
    saved = cal.load_calibration(path)
    assert saved.camera == "test-cam" and saved.size == SIZE
    assert saved.matrix[0, 0] == pytest.approx(K_TRUE[0, 0], rel=0.03)
    assert table.feeds[-1].config.source == "cv:0"  # the camera reopens, straightened by it


def test_a_calibration_with_too_few_views_is_refused_with_the_numbers(table, board_views):
    table.camera_source = "cv:0"
    table.calibration_start(background=False, target_views=12, min_views=8)
    for view in board_views[:5]:
        table.feeds[-1].show(view)
        table.pump()
    with pytest.raises(TableError, match=r"only 5 views .* 8 are needed"):
        table.calibration_finish()
    assert table.calibration is None
    assert cal.find_calibration("test-cam", SIZE) is None  # nothing kept


def test_no_camera_no_calibration_and_raw_sources(table):
    assert raw_source("picamera2") == "picamera2?calibration=none"
    assert raw_source("synthetic:yokir?frames=0") == "synthetic:yokir?frames=0&calibration=none"
    assert raw_source("dir:photos") == "dir:photos"
    with pytest.raises(TableError, match="No camera"):
        table.calibration_start()
    assert table.calibration is None and table.camera_status == OFF and not table.feeds
