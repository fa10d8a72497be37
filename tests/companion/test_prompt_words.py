"""The view's prompts as data (issue 18): `ViewModel.next_words`, `limit_words` and
`facts_words` render to the view's `next`, `limit` and table texts, and their seat
references are the seats the text names, so a screen can put the players' names in
without rewording the text."""

from __future__ import annotations

import random
import re

import pytest

from companion.games import Action, games, make_game
from companion.session import AWAITING_NEXT, Session
from companion.storage import Store
from companion.words import Seat, Seats, Words, plain, render

GAMES = sorted(games())
# "seat 2", "Seats 1 and 3": the seats a text names, as people count them
SEAT_TEXT = re.compile(r"\b[Ss]eats? (\d+(?:(?:, | and | or )\d+)*)\b")
NAMED = re.compile(r"<(\d+)>")


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "companion.db") as store:
        yield store


def seat_refs(words: Words) -> list[int]:
    """Every seat index `words` refers to, nested words included."""
    found: list[int] = []
    for _, ref in words.refs:
        if isinstance(ref, Seat):
            found.append(ref.index)
        elif isinstance(ref, Seats):
            found.extend(ref.indexes)
        elif isinstance(ref, Words):
            found.extend(seat_refs(ref))
    return found


def check(words: Words, text: str, players: int) -> None:
    """`words` say `text`, and with seats named "<i>" no seat is left in numbers and the
    names are those of the seats the text numbers."""
    assert render(words) == text
    named = render(words, lambda i: f"<{i}>")
    assert not SEAT_TEXT.search(named), named
    numbered = sorted(int(n) - 1 for m in SEAT_TEXT.finditer(text) for n in re.findall(r"\d+", m[1]))
    assert sorted(int(i) for i in NAMED.findall(named)) == numbered, (text, named)
    assert all(0 <= i < players for i in seat_refs(words))


@pytest.mark.parametrize("name", GAMES)
def test_a_sessions_prompts_as_data_say_the_prompts_with_the_right_seats(store, name):
    seats_named = 0
    for seed in (1, 2):
        players = make_game(name).players
        session = Session.start(store, name, [f"P{i}" for i in range(players)])
        rng = random.Random(seed)
        for _ in range(2000):
            view = session.view()
            check(view.next_words, view.next, players)
            check(view.limit_words, view.limit, players)
            for key, words in view.facts_words.items():
                check(words, view.table[key], players)
            seats_named += bool(seat_refs(view.next_words))
            if view.over:
                break
            session.step_bot(rng)
        assert view.over
    assert seats_named  # every game names the seat to act somewhere


@pytest.mark.parametrize("name", GAMES)
def test_the_table_views_prompts_as_data_say_the_prompts(name):
    """At the table the hands are unknown (`Game.public_action`): other words, same rule."""
    game = make_game(name)
    full, table = game.new_state(), game.new_state()
    rng = random.Random(3)
    while not full.is_terminal():
        action = full.sample_chance(rng) if full.is_chance() else game.bot_action(full, rng)
        full.apply(action)
        public = game.public_action(action)
        if public is None:
            continue
        table.apply(public)
        view = table.view()
        check(table.explain_words(), view["next"], game.players)
        check(table.limit_as_words(), view.get("limit", ""), game.players)
        for key, words in table.facts_words().items():
            check(words, view["table"][key], game.players)


def test_yokir_says_who_took_the_upcard_up_as_data(store):
    session = Session.start(store, "yokir", ["Ann", "Bob", "Cy"])
    rng = random.Random(0)
    while "taken up" not in (session.view().table.get("upcard_state") or ""):
        assert not session.view().over
        session.step_bot(rng)
    view = session.view()
    taker = view.table["caller"]
    named = render(view.facts_words["upcard_state"], lambda i: view.players[i])
    assert named == f"taken up by {view.players[taker]}"


def test_while_a_call_awaits_the_prompt_as_data_is_the_call(store):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    session.act(Action.make("pick", 0, pick="rock"), "panel")
    view = session.view()
    assert view.next == AWAITING_NEXT and view.next_words == plain(AWAITING_NEXT)


def test_words_that_do_not_say_the_prompt_give_way_to_the_prompt(store, caplog, monkeypatch):
    """An engine whose words disagree with its text is a bug: the screen gets the text."""
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    monkeypatch.setattr(type(session.state()), "explain", lambda self: "Something else.")
    session.act(Action.make("pick", 0, pick="pen"))
    view = session.view()
    assert view.next == "Something else." and view.next_words == plain("Something else.")
    assert "do not say" in caplog.text


def test_the_view_in_json_has_the_words_as_data(store):
    session = Session.start(store, "yokir", ["Ann", "Bob", "Cy"])
    rng = random.Random(0)
    while "taken up" not in (session.view().table.get("upcard_state") or ""):
        session.step_bot(rng)
    out = session.view().to_json()
    assert out["facts_words"]["upcard_state"]["refs"]["seat"] == {"seat": session.view().table["caller"]}
    assert out["next_words"]["template"] and isinstance(out["limit_words"]["refs"], dict)


def test_yonacs_joker_swap_offers_name_each_seat_and_ace_as_data():
    """Bots seldom reach the swap: the offer names other players' Aces by seat."""
    state = make_game("yonac", 4, threshold=2, jokers=True).new_state()
    for cards in (["AC"], ["AH"], ["2C"], ["JK1"]):
        state.apply(Action.make("collect", state.current_player(), count=len(cards)))
        state.apply(Action.make("draw", None, cards=cards))
    text = state.explain()
    assert "you choose: seat 1's Ace of Clubs and seat 2's Ace of Hearts." in text
    check(state.explain_words(), text, 4)
    assert "<3>: swap the Joker" in render(state.explain_words(), lambda i: f"<{i}>")
