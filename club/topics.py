"""Topic names and the wire format (docs/club.md, "Topics").

    club/TABLE/events   the outbox, in order: event, result, reopen, confirm (QoS 1)
    club/TABLE/state    the table's live state (retained)
    club/TABLE/status   "online" / "offline" (retained; "offline" is the last will)
    club/hub/marks/TABLE  the hub's mark: every seq up to it is stored (retained)
    club/hub/status     the hub's "online" / "offline" (retained, last will)

A table's broker user is its name, so the ACL `pattern write club/%u/#` lets a table
publish on its own topics only. Every message is one JSON object; `parse_event` checks
one from the outbox topic completely before the hub stores anything of it.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from club.errors import BadAddress, BadMessage

ROOT = "club"
VERSION = 1
MAX_PAYLOAD = 256 * 1024
KINDS = ("event", "result", "reopen", "confirm")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


def check_table_name(name: str) -> str:
    """A table's name as the broker and the topics use it: 1-32 of a-z, 0-9, '-' and '_'."""
    if not isinstance(name, str) or not _NAME.match(name) or name == HUB_USER:
        raise BadAddress(f"a table name is 1 to 32 lower-case letters, digits, '-' or '_', "
                         f"not {HUB_USER!r} (it is the table's broker user and topic), got {name!r}")
    return name


def events_topic(table: str) -> str:
    return f"{ROOT}/{table}/events"


def state_topic(table: str) -> str:
    return f"{ROOT}/{table}/state"


def status_topic(table: str) -> str:
    return f"{ROOT}/{table}/status"


def mark_topic(table: str) -> str:
    return f"{ROOT}/hub/marks/{table}"


HUB_STATUS = f"{ROOT}/hub/status"
HUB_USER = "hub"


def parse_address(text: str, default_host: str = "127.0.0.1") -> tuple[str, int]:
    """HOST:PORT (or :PORT, or PORT) as a host and a port number."""
    if not isinstance(text, str) or not text.strip():
        raise BadAddress(f"a broker address is HOST:PORT, got {text!r}")
    host, _, port = text.strip().rpartition(":")
    host = host or default_host
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise BadAddress(f"a broker address is HOST:PORT with a port from 1 to 65535, got {text!r}")
    return host, int(port)


def topic_table(topic: str) -> tuple[str, str] | None:
    """(table, leaf) of a table's topic club/TABLE/LEAF, else None."""
    parts = topic.split("/")
    if len(parts) != 3 or parts[0] != ROOT or parts[1] == "hub":
        return None
    return parts[1], parts[2]


@dataclass(frozen=True)
class Message:
    """One outbox message as the hub receives it, checked."""

    table: str
    seq: int
    kind: str
    created: float  # table's wall clock (epoch seconds) when the change was committed
    game_id: int
    body: dict[str, Any]
    raw: str


def encode(table: str, seq: int, created: float, body: dict[str, Any]) -> bytes:
    """The bytes a table publishes for its outbox row `seq`."""
    return json.dumps({"v": VERSION, "table": table, "seq": seq, "created": created, **body},
                      separators=(",", ":"), ensure_ascii=False).encode()


def _int(obj: dict[str, Any], key: str, low: int = 0) -> int:
    value = obj.get(key)
    if type(value) is not int or value < low:
        raise BadMessage(f"{key!r} must be a whole number of at least {low}, got {value!r}")
    return value


def _scores(value: Any, what: str) -> list[float]:
    if not isinstance(value, list) or not value or not all(
            type(v) in (int, float) and math.isfinite(v) for v in value):
        raise BadMessage(f"{what} must be a list of numbers, got {value!r}")
    return value


def _players(body: dict[str, Any]) -> list[str]:
    players = body.get("players")
    if not isinstance(players, list) or not players or not all(
            isinstance(p, str) and 0 < len(p) <= 40 for p in players):
        raise BadMessage(f"'players' must be a list of names, got {players!r}")
    return players


def parse_event(topic: str, payload: bytes) -> Message:
    """Check one message from club/TABLE/events; BadMessage says what is wrong with it."""
    where = topic_table(topic)
    if where is None or where[1] != "events":
        raise BadMessage(f"topic {topic!r} is not a table's events topic")
    table = where[0]
    if not _NAME.match(table):
        raise BadMessage(f"topic {topic!r} names no valid table")
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage(f"a message of {len(payload)} bytes is over the {MAX_PAYLOAD} byte limit")
    try:
        text = payload.decode("utf-8")
        obj = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadMessage(f"not JSON text: {exc}") from None
    if not isinstance(obj, dict):
        raise BadMessage(f"a message is a JSON object, got {type(obj).__name__}")
    if obj.get("v") != VERSION:
        raise BadMessage(f"message version must be {VERSION}, got {obj.get('v')!r}")
    if obj.get("table") != table:
        raise BadMessage(f"message names table {obj.get('table')!r} but came on {topic!r}")
    seq = _int(obj, "seq", 1)
    game_id = _int(obj, "game_id", 1)
    created = obj.get("created")
    if type(created) not in (int, float) or not math.isfinite(created):
        raise BadMessage(f"'created' must be a time in seconds, got {created!r}")
    kind = obj.get("kind")
    if kind not in KINDS:
        raise BadMessage(f"'kind' must be one of {', '.join(KINDS)}, got {kind!r}")
    if not isinstance(obj.get("game"), str) or not obj["game"]:
        raise BadMessage(f"'game' must name a game, got {obj.get('game')!r}")
    players = _players(obj)
    if kind == "event":
        event = obj.get("event")
        if not isinstance(event, dict) or type(event.get("seq")) is not int or not isinstance(
                event.get("kind"), str):
            raise BadMessage(f"'event' must be a stored event with seq and kind, got {event!r}")
    elif kind == "result":
        scores = _scores(obj.get("scores"), "'scores'")
        if len(scores) != len(players):
            raise BadMessage(f"{len(scores)} scores for {len(players)} players")
        winners = obj.get("winners")
        if not isinstance(winners, list) or not all(
                type(w) is int and 0 <= w < len(players) for w in winners):
            raise BadMessage(f"'winners' must be seats, got {winners!r}")
    elif kind == "confirm":
        seat = _int(obj, "seat", 0)
        if seat >= len(players):
            raise BadMessage(f"seat {seat} is not at a table of {len(players)}")
    return Message(table, seq, kind, float(created), game_id, obj, text)
