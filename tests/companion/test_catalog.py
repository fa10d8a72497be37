"""The catalog is the one source of every game fact: each consumer agrees with it.

Engines, mats, adapters, the CLI, the deck aliases, the demo and the kiosk each read the
catalog; these tests fail when any of them says something else (the drift issue 18 found:
Yonac 10 players in the engine but 8 on the mat, Medieval Mastery 14 and 6).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil

import pytest

import companion.games as games_pkg
from companion.catalog import CATALOG, GAMES, game_info, game_names, mat_game_names
from companion.errors import BadOption, UnknownGame
from companion.games import Game, games, get_game, make_game
from companion.games.base import CATALOG_FIELDS

NAMES = game_names()


def test_the_catalog_lists_every_engine_and_only_those():
    assert tuple(games()) == NAMES
    found = set()
    for info in pkgutil.iter_modules(games_pkg.__path__):
        module = importlib.import_module(f"companion.games.{info.name}")
        for obj in vars(module).values():
            if (isinstance(obj, type) and issubclass(obj, Game)
                    and (obj.__module__ + ".").startswith(module.__name__ + ".")
                    and "name" in vars(obj)):
                found.add((obj.name, module.__name__))
    assert found == {(g.name, g.engine) for g in GAMES}


@pytest.mark.parametrize("name", NAMES)
def test_each_engine_takes_its_facts_from_the_catalog(name):
    cls, info = get_game(name), game_info(name)
    assert cls.info is info
    for attr in CATALOG_FIELDS:
        assert getattr(cls, attr) == getattr(info, attr), attr
    assert make_game(name).players == info.default_players
    make_game(name, info.min_players)
    make_game(name, info.max_players)
    for wrong in (info.min_players - 1, info.max_players + 1):
        with pytest.raises(BadOption, match=f"{info.title} is played by {info.players_span} players"):
            make_game(name, wrong)


def test_an_engine_that_repeats_a_fact_differently_fails_at_import():
    with pytest.raises(TypeError, match="catalog says 10"):
        type("Drifted", (Game,), {"name": "yonac", "max_players": 8, "new_state": lambda self: None})


def test_names_are_found_in_any_spelling_and_unknown_ones_named():
    assert game_info("Medieval Mastery") is CATALOG["medieval-mastery"]
    assert game_info("medieval_mastery") is CATALOG["medieval-mastery"]
    with pytest.raises(UnknownGame, match="did you mean yokir"):
        game_info("yokr")


@pytest.mark.parametrize("name", mat_game_names())
def test_every_mat_seats_the_catalogs_players_with_the_catalogs_zones(name):
    from vision.mats import MAT_GAMES, get_mat

    info = game_info(name)
    low, high = info.mat_players
    spec = MAT_GAMES[name]
    assert (spec.title, spec.min_players, spec.max_players, spec.default_players) == (
        info.title, low, high, info.default_players)
    # no mat stops short of the game unless the catalog says so in mat.max_players
    assert high == info.max_players or info.mat.max_players == high
    for players in range(low, high + 1):
        mat = get_mat(name, players)
        assert mat.marker_ids == tuple(range(info.mat.first_marker, info.mat.first_marker + 4))
        assert mat.size_mm in info.mat.sizes_mm
        seat_zones = {(z.name, z.kind) for z in mat.zones if z.seat is not None}
        assert seat_zones == {(f"{z.name}-{s}", z.kind) for z in info.mat.seat for s in range(players)}
        shared = {(z.name, z.kind) for z in mat.zones if z.seat is None}
        assert shared == {(z.name, z.kind) for z in info.mat.shared}
    with pytest.raises(BadOption):
        get_mat(name, high + 1)


def test_the_games_with_mats_are_the_catalogs():
    from vision.mats import mat_games

    assert set(mat_games()) == set(mat_game_names())
    assert "ahyoheek" not in mat_games()


def test_the_table_adapters_are_the_catalogs():
    from companion import table
    from companion.adapters import MODULES, register_all

    assert {g.name: g.adapter for g in GAMES if g.adapter} == MODULES
    assert sorted(register_all()) == sorted(MODULES)
    for name, module in MODULES.items():
        assert name == importlib.import_module(module).GAME
        assert table.adapter_for(name) is not None


def _command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> set[str]:
    paths = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, sub in action.choices.items():
                paths.add(" ".join((*prefix, word)))
                paths |= _command_paths(sub, (*prefix, word))
    return paths


def test_the_command_lines_that_name_a_game_are_the_catalogs():
    from companion.cli import build

    paths = _command_paths(build().parser)
    paths = {p for p in paths if not any(q.startswith(p + " ") for q in paths)}  # whole commands
    about_games = {p for p in paths if set(p.split()) & set(NAMES)}
    expected = {f"play {n}" for n in NAMES} | {c for g in GAMES for c in g.cli}
    assert about_games == expected
    for g in GAMES:  # the module that registers them is the one the catalog names
        if g.cli:
            assert g.commands is not None
            importlib.import_module(g.commands)


def test_the_cli_help_lists_every_mat_game_with_its_players():
    from companion.commands.mat import _mat_games

    text = _mat_games()
    for name in mat_game_names():
        low, high = CATALOG[name].mat_players
        assert (f"{name} ({low}-{high} players)" if low < high else f"{name} ({low} players)") in text


@pytest.mark.parametrize("name", [n for n in NAMES if CATALOG[n].deck])
def test_a_games_name_stands_for_the_catalogs_deck(name):
    from companion.cards import get_deck

    assert get_deck(name).name == CATALOG[name].deck


def test_the_demo_plays_catalog_games_within_their_player_range():
    from runtime.demo.run import DEMO_GAMES, seat_names
    from runtime.demo.stages import STAGERS

    assert set(STAGERS) <= set(NAMES) and set(DEMO_GAMES) <= set(NAMES)
    for name, demo in DEMO_GAMES.items():
        info = CATALOG[name]
        assert info.min_players <= (demo.players or info.default_players) <= info.max_players
    most = max(g.max_players for g in GAMES)
    assert len(set(seat_names(most))) == most


def test_the_kiosk_shows_the_catalogs_titles_and_player_ranges():
    pytest.importorskip("kivy")
    from kiosk.app import CompanionApp
    from kiosk.history import title_of
    from kiosk.text import players_span

    rows = CompanionApp.game_titles(None)  # reads nothing of the app
    assert rows == [(g, CATALOG[g].title, players_span(CATALOG[g].min_players, CATALOG[g].max_players))
                    for g in NAMES]
    assert all(title_of(g) == CATALOG[g].title for g in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_rules_page_gives_the_catalogs_player_range(name):
    from pathlib import Path

    info = CATALOG[name]
    page = Path(__file__).resolve().parents[2] / "docs" / "games" / f"{name}.md"
    text = page.read_text(encoding="utf-8")
    if info.min_players < info.max_players:
        assert f"{info.min_players} to {info.max_players}" in text
