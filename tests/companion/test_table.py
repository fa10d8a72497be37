"""The table-adapter registry, with a fake adapter: Ahyoheek pick tokens laid in a seat's play area."""

import pytest

from companion import table
from companion.errors import IllegalAction, UnknownGame
from companion.games import Action, make_game
from companion.observation import Observation


def token_adapter(state, obs):
    """A pick token placed in a seat's play area is that seat's pick; anything else is no move."""
    if obs.kind != "placed" or obs.zone_kind != "play":
        return None
    if obs.code not in ("pen", "page", "beetle"):
        raise IllegalAction(f"{obs.code!r} is not a pick token")
    return Action.make("pick", obs.seat, pick=obs.code)


@pytest.fixture
def adapters(monkeypatch):
    """The registry, emptied for the test and restored after it."""
    monkeypatch.setattr(table, "_ADAPTERS", {})
    return table


def placed(code, seat=0, zone_kind="play"):
    return Observation("placed", code, f"seat{seat}", zone_kind, seat=seat)


def test_an_observation_becomes_the_adapters_action(adapters):
    adapters.register_adapter("Ahyoheek", token_adapter)  # names as get_game reads them
    state = make_game("ahyoheek", 3).new_state()
    assert adapters.observation_to_action(state, placed("beetle", 2)) == Action.make("pick", 2,
                                                                                     pick="beetle")
    assert adapters.observation_to_action(state, placed("pen", 0, "field")) is None
    with pytest.raises(IllegalAction, match="'KS' is not a pick token"):
        adapters.observation_to_action(state, placed("KS"))
    assert adapters.adapter_for("ahyoheek") is token_adapter
    assert adapters.adapters() == {"ahyoheek": token_adapter}


def test_no_adapter_is_named_for_the_game(adapters):
    state = make_game("ahyoheek", 2).new_state()
    with pytest.raises(table.NoAdapter, match=r"^no table adapter for ahyoheek$"):
        adapters.observation_to_action(state, placed("pen"))
    assert adapters.adapter_for("ahyoheek") is None


def test_registering_twice_needs_replace(adapters):
    adapters.register_adapter("ahyoheek", token_adapter)
    adapters.register_adapter("ahyoheek", token_adapter)  # the same one again is harmless

    def other(state, obs):
        return None

    with pytest.raises(ValueError, match="already has a table adapter"):
        adapters.register_adapter("ahyoheek", other)
    adapters.register_adapter("ahyoheek", other, replace=True)
    assert adapters.adapter_for("ahyoheek") is other
    adapters.unregister_adapter("ahyoheek")
    assert adapters.adapter_for("ahyoheek") is None


def test_an_adapter_for_an_unknown_game_or_not_callable_is_refused(adapters):
    with pytest.raises(UnknownGame, match="ahyohek"):
        adapters.register_adapter("ahyohek", token_adapter)
    with pytest.raises(TypeError, match="callable"):
        adapters.register_adapter("ahyoheek", "token_adapter")
    assert adapters.adapters() == {}


def test_an_adapter_that_returns_something_else_is_a_bug_named_as_such(adapters):
    adapters.register_adapter("ahyoheek", lambda state, obs: {"type": "pick"})
    with pytest.raises(TypeError, match="not an Action or None"):
        adapters.observation_to_action(make_game("ahyoheek", 2).new_state(), placed("pen"))
