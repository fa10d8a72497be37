"""The demo's parts: the truth script, the table layout, the card slots on every mat, the
stagers' inputs (as docs/demo.md lists them) and the console."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import pytest

from companion.errors import CompanionError
from companion.eventlog import bot_game
from companion.games import make_game
from runtime.demo.camera import GAP_MM, mat_zones, slot_centers
from runtime.demo.console import Console, bar, step_line
from runtime.demo.layout import Change, Layout
from runtime.demo.run import DEMO_GAMES, demo_game, demo_games
from runtime.demo.script import Script
from runtime.demo.stages import BUTTON, CAMERA, STAGERS, TOUCH, Zones, stager_for
from vision.art import card_size_mm
from vision.mats import get_mat

DOC = Path(__file__).resolve().parents[2] / "docs" / "demo.md"


def test_the_script_numbers_the_visible_actions_as_the_session_logs_them() -> None:
    game = make_game("yokir", 3, target=1)
    script = Script.of(game, 0)
    state, log = bot_game(game, 0)
    assert script.scores == state.scores() and script.log == log
    assert [s.number for s in script.visible] == list(range(1, len(script) + 1))
    deal = script.steps[0]
    assert deal.action.get("hands") is not None and deal.public.get("hands") is None
    discard = next(s for s in script.steps if s.action.kind == "discard")
    assert discard.public.get("card") is None and discard.action.get("card") is not None
    trick = next(s for s in script.steps if s.outcomes)
    assert trick.outcomes[0]["type"] in game.outcome_kinds


def test_the_layout_keeps_cards_in_their_slots() -> None:
    layout = Layout()
    layout.apply(Change(place=(("A", "z"), ("B", "z"), ("C", "y"))))
    assert layout.in_zone("z") == ["A", "B"] and layout.where("C") == "y"
    layout.apply(Change(remove=("A",), place=(("D", "z"),)))
    assert [(lay.code, lay.slot) for lay in layout if lay.zone == "z"] == [("D", 0), ("B", 1)]
    layout.apply(Change(place=(("B", "y"),)))  # moved, not duplicated
    assert layout.where("B") == "y" and len(layout) == 3 and "A" not in layout


@pytest.mark.parametrize("game", ["yokir", "yonac", "piktas", "medieval-mastery"])
def test_every_slot_lies_in_its_zone_with_room_between_cards(game: str) -> None:
    players = DEMO_GAMES[game].players or make_game(game).default_players
    mat, zones = mat_zones(game, players)
    stager = stager_for(game, zones, players)
    deck = make_game(game, players).deck
    assert deck is not None
    card = card_size_mm(deck)
    for zone in mat.zones:
        info = next(z for z in zones.all if z.name == zone.name)
        centres = slot_centers(zone, card, stager.capacity(info))
        assert len(centres) == stager.capacity(info)
        for x, y in centres:
            assert zone.contains(x, y), (zone.name, x, y)
        turned = round(zone.facing_deg) % 180 == 90
        w, h = (card[1], card[0]) if turned else card
        for i, (x1, y1) in enumerate(centres):
            for x2, y2 in centres[i + 1:]:
                apart = max(abs(x1 - x2) - w, abs(y1 - y2) - h)
                assert apart >= GAP_MM - 4.0 - 1e-6, (zone.name, apart)  # cards never touch


def test_a_single_card_lies_in_the_middle_of_its_zone() -> None:
    mat = get_mat("yokir", 3)
    zone = mat.zone("play-1")
    ((x, y),) = slot_centers(zone, card_size_mm("yokir"), 1)
    assert math.isclose(x, zone.center_mm[0]) and math.isclose(y, zone.center_mm[1])


def test_each_game_names_where_every_public_action_comes_from() -> None:
    table = _doc_inputs()
    for game in demo_games():
        engine = make_game(game, DEMO_GAMES[game].players)
        _, zones = (None, Zones(())) if game == "ahyoheek" else mat_zones(game, engine.players)
        stager = stager_for(game, zones, engine.players)
        script = Script.of(engine, DEMO_GAMES[game].seed)
        seen = {s.action.kind: stager.source(s) for s in script.visible}
        for kind, source in seen.items():
            assert table[(game, kind)] == source, (game, kind)
        assert {k for g, k in table if g == game} <= engine.action_kinds


def _doc_inputs() -> dict[tuple[str, str], str]:
    """docs/demo.md's table: | Game | action | camera / touch / button | ... |."""
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*(yokir|yonac|ahyoheek|piktas|medieval-mastery)\s*\|\s*`(\w+)`\s*\|\s*(\w+)\s*\|",
                     line)
        if m:
            rows[(m[1], m[2])] = m[3]
    assert set(rows.values()) <= {CAMERA, TOUCH, BUTTON} and rows
    return rows


def test_every_stager_is_a_demo_game_and_unknown_games_are_refused() -> None:
    assert set(STAGERS) == set(demo_games()) == set(DEMO_GAMES)
    with pytest.raises(CompanionError, match="unknown game"):
        demo_game("chess")


def test_the_progress_bar() -> None:
    assert bar(0, 40) == "[....................] 0/40 events"
    assert bar(12, 40) == "[######..............] 12/40 events"
    assert bar(40, 40) == "[####################] 40/40 events"
    assert step_line(7, "camera", "Seat 1 plays.") == "   7 camera  Seat 1 plays."


def test_the_console_redraws_the_bar_on_a_terminal_and_prints_tenths_elsewhere() -> None:
    tty = io.StringIO()
    out = Console(tty, tty=True)
    out.progress(1, 4)
    out.line("Seat 0 plays.")
    out.progress(2, 4)
    out.close()
    text = tty.getvalue()
    assert "\r\x1b[K[#####...............] 1/4 events" in text
    assert "\r\x1b[KSeat 0 plays.\n[#####...............] 1/4 events" in text
    assert text.endswith("[##########..........] 2/4 events\n")
    plain = io.StringIO()
    out = Console(plain, tty=False)
    for done in range(0, 41):
        out.progress(done, 40)
    lines = plain.getvalue().splitlines()
    assert len(lines) == 11 and "\r" not in plain.getvalue()  # one line per tenth
