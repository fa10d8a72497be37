"""What the referee tells the camera to expect: the cards still unseen, and where the
others are, in words."""

from __future__ import annotations

import random

from companion.possible import possible, seen_cards
from companion.session import Session
from companion.storage import Store


def test_played_and_turned_up_cards_are_seen_with_their_place_in_words():
    actions = [{"type": "deal", "hands": [["KS", "QS"], ["AH", "9C"]], "upcard": "JD"},
               {"type": "play", "seat": 1, "card": "KS"},
               {"type": "trick", "cards": [{"seat": 1, "card": "KS"}, {"seat": 0, "card": "QH"}]}]
    seen = seen_cards(actions, ["KS", "QS", "AH", "9C", "JD", "QH", "10D"])
    # The last sighting wins: the trick that gathered KS says no more than "in play".
    assert seen == {"JD": "already turned up", "KS": "already in play", "QH": "already in play"}
    likely, where = possible(actions[:2], ["KS", "QS", "AH", "9C", "JD"])
    assert likely == {"QS", "AH", "9C"}  # dealt into hidden hands: still to be seen
    assert where["KS"] == "already played by seat 2" and where["JD"] == "already turned up"


def test_a_session_says_which_cards_are_still_unseen(tmp_path):
    session = Session.start(Store(tmp_path / "c.db"), "yokir", ["Ada", "Bo", "Cy"])
    likely, seen = session.possible()
    assert len(likely) == 24 and seen == {}
    rng = random.Random(1)
    for _ in range(8):
        session.step_bot(rng)
    likely, seen = session.possible()
    played = [e.data["card"] for e in session.events()
              if e.kind == "accepted" and e.data.get("type") == "play"]
    assert played and all(c in seen and c not in likely for c in played)
    assert len(likely) + len(seen) == 24
    session.undo()
    assert len(session.possible()[1]) == len(seen) - 1  # an undone play is unseen again


def test_ahyoheek_has_no_cards_to_expect(tmp_path):
    session = Session.start(Store(tmp_path / "c.db"), "ahyoheek", ["Ada", "Bo"])
    assert session.possible() == (frozenset(), {})


def test_a_new_deal_makes_every_card_possible_again_and_returning_games_keep_all_likely():
    actions = [{"type": "play", "seat": 0, "card": "KS"}, {"type": "deal", "hands": [["KS"]]}]
    likely, seen = possible(actions, ["KS", "QS"])
    assert likely == {"KS", "QS"} and seen == {}
    for game in ("yonac", "piktas", "medieval-mastery"):  # their cards come back within a deal
        likely, seen = possible(actions[:1], ["KS", "QS"], game)
        assert likely == {"KS", "QS"} and seen == {}
    assert possible(actions[:1], ["KS", "QS"], "yokir")[0] == {"QS"}
