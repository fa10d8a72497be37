"""The settings screen's Lens tab runs the camera's ChArUco calibration through the table:
progress (views, coverage, error) on screen, a refusal with the numbers, and a kept
calibration, as `companion camera calibrate` does. The camera is a fake feed showing
rendered views of the board through a known wide lens."""

from __future__ import annotations

import pytest

from tests.kiosk.clock import pump_until
from tests.runtime.boardviews import SIZE, HandFeed, render_views

pytestmark = pytest.mark.kiosk


@pytest.fixture(scope="module")
def board_views():
    return render_views()




def test_the_lens_tab_calibrates_the_camera_and_refuses_too_few_views(kiosk_app, pump, tap, board_views,
                                                                     tmp_path, monkeypatch):
    from vision import calibration as cal

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    feeds: list[HandFeed] = []

    def make(config):
        feeds.append(HandFeed(config, kiosk_app._camera_trigger))
        return feeds[-1]
    kiosk_app._make_feed = make
    try:
        kiosk_app.camera_source = "cv:0"
        kiosk_app.open_settings()
        settings = kiosk_app.screen("settings")
        settings.show_tab("lens")
        pump()
        ids = settings.ids
        assert "Print the board" in ids.lens_progress.text and ids.lens_finish.disabled
        # too few views: refused with the numbers, nothing kept
        tap(ids.lens_start)
        assert kiosk_app.calibration and feeds[-1].config.source == "cv:0?calibration=none"
        for view in board_views[:3]:
            feeds[-1].show(view)
            seen = feeds[-1].frames
            assert pump_until(pump, lambda s=seen: kiosk_app.calibration.get("views", 0) >= s, seconds=60)
        assert "Views [b]3[/b] of 20" in ids.lens_progress.text and "covered" in ids.lens_progress.text
        tap(ids.lens_finish)
        assert not kiosk_app.calibration and "only 3 views" in kiosk_app.message
        assert "10 are needed" in kiosk_app.message
        assert cal.find_calibration("test-cam", SIZE) is None
        # every view: kept, and the camera reopens straightened
        tap(ids.lens_start)
        for view in board_views:
            feeds[-1].show(view)
            seen = feeds[-1].frames
            views = min(seen, 12)
            assert pump_until(pump, lambda v=views: kiosk_app.calibration.get("views", 0) >= v, seconds=60)
        assert kiosk_app.calibration["error"] is not None and kiosk_app.calibration["error"] < 1.0
        assert "error [b]0." in ids.lens_progress.text
        tap(ids.lens_finish)
        assert kiosk_app.message.startswith("Calibrated test-cam at 800x450: 12 views"), kiosk_app.message
        assert cal.find_calibration("test-cam", SIZE) is not None
        assert feeds[-1].config.source == "cv:0"
    finally:
        kiosk_app.go_home()
        del kiosk_app._make_feed
