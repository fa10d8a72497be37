import json

import pytest

from companion.errors import BadLog
from companion.eventlog import bot_game, dumps, parse_lines, replay
from companion.games import make_game


def log_lines():
    _, events = bot_game(make_game("ahyoheek", 3), seed=1)
    return [dumps(e) for e in events]


def test_broken_line_is_named():
    lines = log_lines()
    lines[3] = "{not json"
    with pytest.raises(BadLog, match="line 4: not valid JSON"):
        parse_lines(lines)


def test_unknown_event_is_named():
    lines = log_lines()
    lines.insert(2, json.dumps({"type": "throw", "seat": 0}))
    with pytest.raises(BadLog, match="line 3: unknown event 'throw'"):
        replay(parse_lines(lines))


def test_rejected_action_is_named():
    lines = log_lines()
    lines[1] = json.dumps({"type": "pick", "seat": 0, "pick": "rock"})
    with pytest.raises(BadLog, match="line 2: the rules reject"):
        replay(parse_lines(lines))


def test_forged_outcome_or_score_is_caught():
    lines = log_lines()
    i = next(i for i, line in enumerate(lines) if '"round"' in line)
    event = json.loads(lines[i])
    event["scores"] = [9, 9, 9]
    lines[i] = json.dumps(event)
    with pytest.raises(BadLog, match=f"line {i + 1}: the log says"):
        replay(parse_lines(lines))
    lines = log_lines()
    end = json.loads(lines[-1])
    end["winners"] = [5]
    lines[-1] = json.dumps(end)
    with pytest.raises(BadLog, match="the rules give"):
        replay(parse_lines(lines))


def test_missing_start_or_newer_format():
    lines = log_lines()
    with pytest.raises(BadLog, match="first event must be 'start'"):
        replay(parse_lines(lines[1:]))
    start = json.loads(lines[0])
    start["format"] = 99
    with pytest.raises(BadLog, match="format 99"):
        replay(parse_lines([json.dumps(start), *lines[1:]]))


def test_an_outcome_is_checked_by_its_facts_not_its_words():
    """A log written when the words said "seat 2" for what is now "seat 3" still replays;
    a changed winner in the same event does not."""
    _, events = bot_game(make_game("yokir", 3), seed=1)
    lines = [dumps(e) for e in events]
    i = next(i for i, line in enumerate(lines) if '"why"' in line and '"winner"' in line)
    event = json.loads(lines[i])
    event["why"] = "the words of an older version, seats counted from 0"
    lines[i] = json.dumps(event)
    assert replay(parse_lines(lines)).ended
    event["winner"] = (event["winner"] + 1) % 3
    lines[i] = json.dumps(event)
    with pytest.raises(BadLog, match=f"line {i + 1}: the log says"):
        replay(parse_lines(lines))
