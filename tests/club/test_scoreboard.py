"""Three tables playing different games through a real Mosquitto; the hub's scoreboard in a
real headless Chromium; the JSON API; the director's page."""

from __future__ import annotations

import base64
import json
import tempfile
import urllib.error
import urllib.parse
import urllib.request

import pytest
from chromium import Chromium, chromium_path
from club_support import DIRECTOR_PASSWORD, need

from club.simulate import audit, wait_for


def get(url: str, headers: dict | None = None, data: bytes | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def delivered(tables) -> bool:
    return all(t.club.publisher.hub_mark >= t.club.outbox.last_seq() for t in tables)


@pytest.fixture
def evening(make_hub, make_tables):
    hub = make_hub()
    tables = make_tables(3)
    for t in tables:
        t.play_game()
    wait_for(lambda: delivered(tables), 15, "every table's outbox stored at the hub")
    return hub, tables


def test_three_tables_three_games_reach_the_hub_once_each(evening):
    hub, tables = evening
    assert {t.game for t in tables} == {"yonac", "ahyoheek", "yokir"}
    result = audit(hub.store, [t.club for t in tables])
    assert result.ok, result.words()
    status, text = get(hub.url + "api/tables")
    data = json.loads(text)
    assert status == 200 and [t["table"] for t in data["tables"]] == [t.name for t in tables]
    for t, row in zip(tables, data["tables"], strict=True):
        record = t.club.store.game(t.games_played[0])
        assert row["status"] == "online"
        assert row["state"]["scores"] == list(record.scores)  # the retained live state
        (game,) = row["games"]
        assert game["scores"] == list(record.scores) and game["final"]
    status, text = get(hub.url + "api/standings")
    standings = json.loads(text)
    assert standings["final_results"] == 3 and set(standings["games"]) == {"yonac", "ahyoheek", "yokir"}


def test_public_pages_are_read_only_and_the_director_needs_the_password(evening):
    hub, tables = evening
    t = tables[0]
    game_id = t.games_played[0]
    form = urllib.parse.urlencode({"table": t.name, "game_id": game_id, "scores": "1,2,3,4",
                                   "winners": "3", "reason": "a Set was scored twice"}).encode()
    assert get(hub.url + "api/tables", data=b"x")[0] == 405
    assert get(hub.url + "director")[0] == 401
    assert get(hub.url + "director/correct", data=form)[0] == 401
    wrong = {"Authorization": "Basic " + base64.b64encode(b"director:guess").decode()}
    assert get(hub.url + "director/correct", wrong, form)[0] == 401
    good = {"Authorization": "Basic " + base64.b64encode(f"director:{DIRECTOR_PASSWORD}".encode()).decode()}
    no_reason = form.replace(b"a+Set+was+scored+twice", b"")
    assert get(hub.url + "director/correct", good, no_reason)[0] == 400
    assert get(hub.url + "director/correct", {**good, "Origin": "http://evil.example"}, form)[0] == 403
    status, page = get(hub.url + "director/correct", good, form)
    assert status == 200 and "Corrected game" in page
    (game,) = [g for g in hub.store.results() if g["table"] == t.name]
    assert game["scores"] == [1, 2, 3, 4] and game["correction"]["reason"] == "a Set was scored twice"
    assert game["winners"] == [2]  # the form counts seats from 1


def test_a_table_that_drops_off_is_marked_offline_by_its_last_will(evening):
    hub, tables = evening
    tables[2].club.publisher.stop(will=True)
    wait_for(lambda: {t["table"]: t["status"] for t in hub.store.tables()}[tables[2].name] == "offline",
             10, "the last will marking the table offline")


def test_a_real_browser_shows_the_scores_and_updates_by_itself(make_hub, make_tables):
    need(chromium_path() is not None, "chromium is not installed (make sysdeps installs it)")
    hub = make_hub()
    (t1, t2) = make_tables(2)
    t1.play_game()
    wait_for(lambda: delivered([t1]), 15, "table 1 at the hub")
    record = t1.club.store.game(t1.games_played[0])
    with tempfile.TemporaryDirectory() as profile:
        browser = Chromium(profile, chromium_path())
        try:
            desk = browser.open(hub.url, 1280, 800)
            text = browser.wait_for(desk, "document.body.dataset.loaded && document.body.innerText", 20)
            assert "table-1" in text and "confirmed by seat" in text
            shown = browser.evaluate(desk, "[...document.querySelectorAll("
                                           "'[data-table=\"table-1\"] .score')].map(e => e.textContent)")
            assert shown == [str(s) for s in record.scores]
            # a second table starts playing: the page shows it without being reloaded
            t2.play_game(events=5, confirm=False)
            wait_for(lambda: delivered([t2]), 15, "table 2 at the hub")
            browser.wait_for(desk, "!!document.querySelector('[data-table=\"table-2\"] .score')", 10)
            phone = browser.open(hub.url, 390, 844, mobile=True)
            browser.wait_for(phone, "document.body.dataset.loaded", 20)
            overflow = browser.evaluate(phone, "document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, f"the page is {overflow} px wider than a phone"
        finally:
            browser.close()
