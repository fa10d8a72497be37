"""The session: inputs judged, logged, committed, then shown; undo, redo, resume."""

import json
import random
import sqlite3
import threading

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from companion import table
from companion.errors import BadLog, BadOption, IllegalAction
from companion.eventlog import bot_game, dumps, parse_lines, replay
from companion.games import Action, games, make_game
from companion.games.base import METADATA_KEYS, describe_event
from companion.observation import Observation
from companion.session import AWAITING_NEXT, Session
from companion.storage import GameWriter, StorageError, Store, UnknownGameId


def pick(seat, what):
    return Action.make("pick", seat, pick=what)


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "companion.db") as store:
        yield store


def play_to_the_end(session, seed=0):
    rng = random.Random(seed)
    while not session.view().over:
        session.step_bot(rng)


def test_a_new_game_shows_whose_turn_it_is(store):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob", "Cy"])
    view = session.view()
    assert (view.game, view.title, view.players) == ("ahyoheek", "Ahyoheek", ("Ann", "Bob", "Cy"))
    assert view.turn == 0 and view.scores == (0, 0, 0) and view.events == 0 and not view.over
    assert not view.can_undo and not view.can_redo and view.verdict is None
    assert "seat 1" in view.next and view.table["in_play"] == [0, 1, 2]
    assert session.legal_actions() == list(session.state().legal_actions()) and pick(0, "pen") in \
        session.legal_actions()
    assert store.game(session.game_id).status == "playing"


def test_a_game_that_cannot_be_made_stores_nothing(store):
    with pytest.raises(BadOption, match="2 to 5 players, not 6"):
        Session.start(store, "ahyoheek", list("ABCDEF"))
    with pytest.raises(BadOption, match="no option 'speed'"):
        Session.start(store, "ahyoheek", ["Ann", "Bob"], speed=3)
    assert store.games() == [] and store.players() == []


def test_an_accepted_move_is_committed_before_anyone_sees_it(store):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    seen = []

    def on_change(view):
        other = sqlite3.connect(store.path)  # another connection sees committed rows only
        seen.append((view.events, other.execute("SELECT seq, kind, source FROM events").fetchall()))
        other.close()

    session.subscribe(on_change)
    verdict = session.act(pick(0, "pen"), "panel")
    assert verdict.ok and verdict.seat == 0 and not verdict.awaiting
    assert seen == [(1, [(1, "accepted", "panel")])]
    verdict = session.act(pick(1, "page"), "panel")
    outcome = store.events(session.game_id)[-1].outcomes[0]
    assert outcome["type"] == "round" and session.view().scores == (1, 0)
    assert describe_event(session.game, outcome).rstrip(".") in verdict.text  # the call, in words


def test_a_rejected_move_is_logged_with_the_reason_and_awaits_a_call(store):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    before = session.state()
    verdict = session.act(pick(0, "rock"), "panel")
    assert not verdict.ok and verdict.awaiting and verdict.seat == 0
    view = session.view()
    assert view.verdict == verdict and view.next == AWAITING_NEXT and view.events == 0
    assert session.state() == before
    event = store.events(session.game_id)[-1]
    assert (event.kind, event.source, event.data["action"]["pick"]) == ("rejected", "panel", "rock")
    assert event.reason and verdict.text.rstrip(".").lower() == event.reason.rstrip(".").lower()
    session.confirm("panel")
    assert session.view().verdict.text == verdict.text and not session.view().verdict.awaiting
    assert session.view().next != AWAITING_NEXT
    assert store.events(session.game_id)[-1].data == {"target": event.seq}
    session.confirm()  # nothing awaits: nothing is logged
    assert len(store.events(session.game_id)) == 2


def test_a_finished_game_rejects_moves_and_bots(store):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    play_to_the_end(session)
    with pytest.raises(IllegalAction, match="is over"):
        session.step_bot(random.Random(0))
    verdict = session.act(pick(0, "pen"))
    assert not verdict.ok and verdict.awaiting
    assert store.events(session.game_id)[-1].kind == "rejected"


def test_undo_and_redo(store):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob", "Cy"])
    assert session.undo() is False and session.redo() is False
    assert store.events(session.game_id) == []  # nothing to take back: nothing logged
    for seat, what in enumerate(["pen", "page", "page"]):
        session.act(pick(seat, what))
    after_round = session.state()
    assert session.undo() and session.undo()
    assert session.history() == [pick(0, "pen")] and session.view().can_redo
    assert "Undone" in session.view().verdict.text
    assert session.redo() and session.redo() and not session.redo()
    assert session.state() == after_round and session.view().scores == (1, 0, 0)
    assert session.undo() and session.undo() and session.undo()
    assert not session.undo() and session.history() == []  # never past the start
    session.act(pick(0, "rock"))  # a rejection does not end redo ...
    assert session.view().can_redo
    session.act(pick(0, "beetle"))  # ... a new accepted event does
    assert not session.view().can_redo and not session.redo()
    kinds = [e.kind for e in store.events(session.game_id)]
    assert kinds.count("undo") == 5 and kinds.count("redo") == 2


def test_undoing_the_last_move_reopens_the_game_and_withdraws_its_result(store):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    play_to_the_end(session, seed=3)
    final = session.view()
    assert [g.id for g in store.games("finished")] == [session.game_id]
    assert {r.name for r in store.ratings("ahyoheek")} == {"Ann", "Bob"}
    assert session.undo()
    assert not session.view().over and store.games("finished") == [] and store.ratings() == []
    assert session.redo()
    assert session.view().scores == final.scores and session.view().winners == final.winners
    record = store.game(session.game_id)
    assert record.status == "finished" and record.scores == final.scores


def test_resume_gives_back_the_same_game(store):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob", "Cy"])
    rng = random.Random(4)
    for _ in range(7):
        session.step_bot(rng)
    session.undo()
    session.act(pick(2, "rock"))
    again = Session.resume(store, session.game_id)
    assert again.history() == session.history() and again.state() == session.state()
    assert again.view() == session.view() and again.view().verdict.awaiting
    again.undo()  # the awaiting call is settled by the undo, and redo has two to bring back
    assert again.view().can_redo and not again.view().verdict.awaiting
    assert again.redo() and again.redo() and not again.redo()


def test_a_failed_commit_changes_nothing_on_screen_or_in_memory(store, monkeypatch):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    session.act(pick(0, "pen"))
    view, state = session.view(), session.state()
    calls = []
    session.subscribe(calls.append)
    real_append = GameWriter.append

    def append_then_fail(self, *args, **kw):
        real_append(self, *args, **kw)
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(GameWriter, "append", append_then_fail)
    with pytest.raises(StorageError, match="disk I/O error"):
        session.act(pick(1, "page"))
    with pytest.raises(StorageError):
        session.undo()
    assert session.view() == view and session.state() == state and calls == []
    assert len(store.events(session.game_id)) == 1
    monkeypatch.undo()
    assert session.act(pick(1, "page")).ok and store.events(session.game_id)[-1].seq == 2


def test_a_failing_subscriber_does_not_undo_the_commit(store, caplog):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    seen = []

    def broken(view):
        raise RuntimeError("screen unplugged")

    session.subscribe(broken)
    unsubscribe = session.subscribe(seen.append)
    assert session.act(pick(0, "pen")).ok
    assert len(seen) == 1 and "subscriber failed" in caplog.text
    unsubscribe()
    session.act(pick(1, "pen"))
    assert len(seen) == 1 and len(store.events(session.game_id)) == 2


def test_an_engine_that_cannot_describe_or_draw_itself_does_not_stop_the_table(store, monkeypatch,
                                                                                 caplog):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])

    def broken(*args):
        raise IndexError("list index out of range")

    monkeypatch.setattr(type(session.game), "describe", broken)
    monkeypatch.setattr(type(session.state()), "view", broken)
    verdict = session.act(pick(0, "pen"))  # committed whatever the words
    assert verdict.ok and "pick" in verdict.text
    assert session.view().events == 1 and session.view().turn == 1 and session.view().next
    assert "cannot describe" in caplog.text and "cannot draw" in caplog.text
    assert session.act(pick(1, "beetle")).ok and session.view().scores == (0, 1)
    assert [e.seq for e in store.events(session.game_id)] == [1, 2]


def test_resume_refuses_what_it_cannot_honestly_rebuild(store):
    with pytest.raises(UnknownGameId, match="no game with id 42"):
        Session.resume(store, 42)
    game_id = store.create_game("ahyoheek", {"players": 2}, ["Ann", "Bob"])
    with store.write(game_id) as tx:  # a move no rules allow, stored by a broken writer
        tx.append("accepted", {"type": "pick", "seat": 0, "pick": "rock"}, source="test")
    with pytest.raises(BadLog, match=f"game {game_id}, event 1: the rules reject the stored 'pick'"):
        Session.resume(store, game_id)
    other = store.create_game("ahyoheek", {"players": 2, "speed": 9}, ["Ann", "Bob"])
    with pytest.raises(BadLog, match=f"game {other} cannot be resumed: ahyoheek has no option 'speed'"):
        Session.resume(store, other)


def test_camera_status_is_shown_not_logged(store):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    seen = []
    session.subscribe(seen.append)
    session.set_camera("mat lost")
    assert session.view().camera == "mat lost" and len(seen) == 1
    assert store.events(session.game_id) == []
    with pytest.raises(ValueError, match="camera status"):
        session.set_camera("blurry")


def test_bad_inputs_are_refused_before_anything_is_logged(store):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    with pytest.raises(TypeError, match="Action"):
        session.act({"type": "pick", "seat": 0, "pick": "pen"})
    with pytest.raises(ValueError, match="source"):
        session.act(pick(0, "pen"), source="")
    with pytest.raises(TypeError, match="Observation"):
        session.observe("pen")
    assert store.events(session.game_id) == []


# -- observations ------------------------------------------------------------------------

def token_adapter(state, obs):
    if obs.zone_kind != "play":
        return None
    if obs.code not in ("pen", "page", "beetle"):
        raise IllegalAction(f"{obs.code!r} is not a pick token")
    return Action.make("pick", obs.seat, pick=obs.code)


@pytest.fixture
def no_adapters(monkeypatch):
    monkeypatch.setattr(table, "_ADAPTERS", {})


def placed(code, seat, zone_kind="play"):
    return Observation("placed", code, f"seat{seat}", zone_kind, seat=seat, frame=12, confidence=0.97)


def test_an_observation_without_an_adapter_is_logged_as_rejected(store, no_adapters):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    verdict = session.observe(placed("pen", 1))
    assert not verdict.ok and verdict.awaiting and verdict.seat == 1
    assert verdict.text == "No table adapter for ahyoheek."
    event = store.events(session.game_id)[-1]
    assert (event.kind, event.source, event.reason) == ("rejected", "vision", "no table adapter for ahyoheek")
    assert event.observation == placed("pen", 1).to_json()


def test_an_observation_goes_through_the_adapter(store, no_adapters):
    table.register_adapter("ahyoheek", token_adapter)
    session = Session.start(store, "ahyoheek", ["Ann", "Bob"])
    assert session.observe(placed("beetle", 0)).ok
    event = store.events(session.game_id)[-1]
    assert (event.kind, event.source, event.data["pick"]) == ("accepted", "vision", "beetle")
    assert Observation.from_json(event.observation) == placed("beetle", 0)
    assert session.observe(placed("pen", 0, "field")) is None  # no move: nothing logged
    verdict = session.observe(placed("KS", 1))
    assert not verdict.ok and "'KS' is not a pick token" in verdict.text
    verdict = session.observe(placed("beetle", 0))  # the engine has the last word
    assert not verdict.ok and verdict.awaiting
    assert [e.kind for e in store.events(session.game_id)] == ["accepted", "rejected", "rejected"]


# -- several writers ----------------------------------------------------------------------

def test_two_sessions_on_one_game_judge_against_the_real_log(tmp_path):
    path = tmp_path / "shared.db"
    with Store(path) as kiosk_store, Store(path) as cli_store:
        kiosk = Session.start(kiosk_store, "ahyoheek", ["Ann", "Bob"])
        cli = Session.resume(cli_store, kiosk.game_id)
        kiosk.act(pick(0, "pen"))
        verdict = cli.act(pick(0, "pen"), "cli")  # judged after catching up with the kiosk
        assert not verdict.ok and verdict.awaiting
        assert cli.act(pick(1, "page"), "cli").ok and cli.view().scores == (1, 0)
        kiosk.undo()  # undoes the CLI's move: the last one in the real log
        assert kiosk.history() == [pick(0, "pen")]
        assert cli.sync() and cli.view() == kiosk.view() and not cli.sync()
        assert [e.seq for e in kiosk_store.events(kiosk.game_id)] == [1, 2, 3, 4]


def test_threads_sharing_a_session_keep_one_consistent_log(store):
    session = Session.start(store, "ahyoheek", ["Ann", "Bob", "Cy", "Dee", "Eve"])
    errors = []

    def worker(seed):
        rng = random.Random(seed)
        for _ in range(25):
            try:
                roll = rng.random()
                if roll < 0.7:
                    session.step_bot(rng, source=f"thread{seed}")
                elif roll < 0.85:
                    session.undo()
                else:
                    session.redo()
            except IllegalAction:
                return  # the game ended under this thread
            except Exception as exc:  # pragma: no cover - the failure report
                errors.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    events = store.events(session.game_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    again = Session.resume(store, session.game_id)
    assert again.history() == session.history() and again.view() == session.view()


# -- every engine ------------------------------------------------------------------------

LIMIT = 2000  # actions: a long game (Medieval Mastery plays to 3125) is checked on its first LIMIT


def reference_game(game, seed, limit):
    """The bot game exactly as `play_out` plays it, stopped after `limit` actions."""
    state, rng, log = game.new_state(), random.Random(seed), []
    while not state.is_terminal() and len(state.history) < limit:
        action = state.sample_chance(rng) if state.is_chance() else game.bot_action(state, rng)
        log.append(action.to_json())
        log.extend(state.apply(action))
    return state, log


def plain(event):
    return json.loads(dumps({k: v for k, v in event.items() if k not in METADATA_KEYS}))


@pytest.mark.parametrize("name", sorted(games()))
def test_a_bot_game_through_the_session_is_the_bot_game_and_replays_from_its_export(name):
    game = make_game(name)
    state, log = reference_game(game, 5, LIMIT)
    with Store(":memory:") as store:
        session = Session.start(store, name, [f"Player {i}" for i in range(game.players)])
        rng = random.Random(5)
        while not session.view().over and session.view().events < LIMIT:
            assert session.step_bot(rng).ok
        exported = store.export(session.game_id)
    body = exported[1:-1] if state.is_terminal() else exported[1:]
    assert [plain(e) for e in body] == [plain(e) for e in log]
    result = replay(parse_lines(dumps(e) for e in exported))
    assert result.ended == state.is_terminal() and result.state == state
    assert result.state.scores() == state.scores() and result.state.winners() == state.winners()


def test_whole_bot_games_are_the_ones_eventlog_logs():
    game = make_game("ahyoheek", 4)
    state, log = bot_game(game, seed=8)
    with Store(":memory:") as store:
        session = Session.start(store, "ahyoheek", ["Ann", "Bob", "Cy", "Dee"])
        play_to_the_end(session, seed=8)
        exported = store.export(session.game_id)
    assert [plain(e) for e in exported[1:]] == [plain(e) for e in log[1:]]
    assert exported[-1]["scores"] == state.scores() and session.view().winners == tuple(state.winners())


# -- the undo/redo property -----------------------------------------------------------------

class UndoRedo(RuleBasedStateMachine):
    """Any mix of moves, rejections, undos, redos, calls and restarts leaves the session's log
    equal to the moves not undone, in memory and after a resume."""

    def __init__(self):
        super().__init__()
        self.store = Store(":memory:")
        self.session = Session.start(self.store, "ahyoheek", ["Ann", "Bob"])
        self.done, self.undone = [], []

    def teardown(self):
        self.store.close()

    @precondition(lambda self: not self.session.view().over)
    @rule(index=st.integers(0, 10))
    def move(self, index):
        state = self.session.state()
        legal = list(state.legal_actions())
        action = legal[index % len(legal)]
        assert self.session.act(action).ok
        self.done.append(action)
        self.undone.clear()

    @rule(seat=st.integers(-1, 3))
    def bad_move(self, seat):
        assert not self.session.act(pick(seat, "rock")).ok

    @rule()
    def undo(self):
        assert self.session.undo() is bool(self.done)
        if self.done:
            self.undone.append(self.done.pop())

    @rule()
    def redo(self):
        assert self.session.redo() is bool(self.undone)
        if self.undone:
            self.done.append(self.undone.pop())

    @rule()
    def confirm(self):
        self.session.confirm()
        assert not (self.session.view().verdict and self.session.view().verdict.awaiting)

    @rule()
    def restart(self):
        self.session = Session.resume(self.store, self.session.game_id)

    @invariant()
    def the_log_is_the_moves_not_undone(self):
        assert self.session.history() == self.done
        view = self.session.view()
        assert (view.events, view.can_undo, view.can_redo) == (len(self.done), bool(self.done),
                                                               bool(self.undone))
        fresh = self.session.game.new_state()
        for action in self.done:
            fresh.apply(action)
        assert self.session.state() == fresh and view.scores == tuple(fresh.scores())


TestUndoRedo = UndoRedo.TestCase
TestUndoRedo.settings = settings(max_examples=40, stateful_step_count=30, deadline=None)


@pytest.mark.parametrize("name", sorted(games()))
def test_the_verdicts_words_as_data_render_to_its_text_and_take_the_players_names(store, name):
    from companion.words import Seat, render, sentences

    players = [f"P{i}" for i in range(games()[name].default_players)]
    session = Session.start(store, name, players)
    rng = random.Random(3)
    seen_seat = False
    for _ in range(40):
        state = session.state()
        if state.is_terminal():
            break
        action = state.sample_chance(rng) if state.is_chance() else session.game.bot_action(state, rng)
        verdict = session.act(action, source="bot")
        assert verdict.ok and verdict.words
        assert sentences(verdict.words) == verdict.text
        named = sentences(verdict.words, players.__getitem__)
        for w in verdict.words:
            seats = [ref.index for _, ref in w.refs if isinstance(ref, Seat)]
            for s in seats:
                seen_seat = True
                assert players[s] in named
            assert json.dumps(w.to_json())
    assert seen_seat
    session.undo()
    undone = session.view().verdict
    assert undone is not None and render(undone.words[0]).startswith("Undone: ")
