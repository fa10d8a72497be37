"""The event log as JSON lines: the format `companion play --json` prints, the session
stores and `companion replay` reads (docs/events.md).

A log is a "start" line (game, config, format), then every action and every outcome
in the order they happened, then an "end" line (scores, winners). Replaying applies
the actions and checks that every logged outcome is what the rules compute.
"""

from __future__ import annotations

import json
import os
import random
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.errors import BadLog, CompanionError, IllegalAction
from companion.games import Action, Game, State, get_game, play_out

FORMAT = 1
#: The deepest nesting of arrays and objects a log line or a stored row may have. Real
#: events nest three or four deep; a line nested thousands deep is damage (or an attack)
#: and would otherwise end in a RecursionError.
MAX_DEPTH = 64


def load_json(text: str | bytes, what: str) -> Any:
    """One way to read a JSON log line or stored row: `text` decoded, at most MAX_DEPTH
    deep. BadLog says which `what` (a line, a game's event) is broken and how."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise BadLog(f"{what}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise BadLog(f"{what}: JSON nested more than {MAX_DEPTH} deep") from None
    except (TypeError, UnicodeDecodeError, ValueError) as exc:
        raise BadLog(f"{what}: not valid JSON ({exc})") from None
    if _depth(value) > MAX_DEPTH:
        raise BadLog(f"{what}: JSON nested more than {MAX_DEPTH} deep")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _depth(value: Any) -> int:
    """How deep arrays and objects nest in `value` (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                return depth
            stack.extend((v, depth + 1) for v in item)
    return deepest


def start_event(game: Game, seed: int | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "start", "format": FORMAT, "game": game.name,
                             "config": game.config()}
    if seed is not None:
        event["seed"] = seed
    return event


def end_event(state: State) -> dict[str, Any]:
    return {"type": "end", "scores": state.scores(), "winners": state.winners()}


def bot_game(game: Game, seed: int, *, bot: bool = True,
             on_event: Callable[[dict[str, Any]], None] | None = None) -> tuple[State, list[dict]]:
    """Play a whole seeded game between bots; return the final state and its log."""
    events: list[dict[str, Any]] = [start_event(game, seed)]

    def emit(event: dict[str, Any]) -> None:
        events.append(event)
        if on_event:
            on_event(event)

    if on_event:
        on_event(events[0])
    state = play_out(game.new_state(), random.Random(seed), bot=bot, on_event=emit)
    emit(end_event(state))
    return state, events


def dumps(event: dict[str, Any]) -> str:
    return json.dumps(event, separators=(", ", ": "), ensure_ascii=False)


def parse_lines(lines: Iterable[str]) -> list[tuple[int, dict[str, Any]]]:
    """The non-blank lines as (line number, object); BadLog names a broken line."""
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        obj = load_json(line, f"line {n}")
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise BadLog(f"line {n}: an event must be a JSON object with a 'type'")
        out.append((n, obj))
    return out


#: The largest log file read: a whole evening's game is well under a megabyte.
MAX_LOG_BYTES = 64 * 1024 * 1024


def read_file(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """The lines of a log file; BadLog for a missing, unreadable, oversized or non-regular
    file (a device such as /dev/zero would be read for ever)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise BadLog(f"cannot read log file {str(path)!r}: not a regular file")
        if info.st_size > MAX_LOG_BYTES:
            raise BadLog(f"cannot read log file {str(path)!r}: {info.st_size:,} bytes is more than "
                         f"the {MAX_LOG_BYTES:,} a log may have")
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadLog(f"no such log file: {str(path)!r}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadLog(f"cannot read log file {str(path)!r}: {exc}") from None
    return parse_lines(text.splitlines())


@dataclass
class Replay:
    """The result of replaying a log: the final state and every outcome recomputed."""

    state: State
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    ended: bool = False


#: Words for people inside outcome events. Replay checks an outcome's facts, not its words:
#: a log written before the words changed (seats counted from 1 since issue 18) replays.
PROSE = ("why", "text")


def _strip(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("seq", "at", "source", "note")}


def _facts(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in _strip(event).items() if k not in PROSE}


def replay(lines: list[tuple[int, dict[str, Any]]]) -> Replay:
    """Apply the log's actions and check its outcomes and end line against the rules.
    Any broken, unknown or rejected event raises BadLog naming its line."""
    if not lines:
        raise BadLog("the log is empty: it needs a 'start' line")
    n, first = lines[0]
    if first["type"] != "start":
        raise BadLog(f"line {n}: the first event must be 'start', got {first['type']!r}")
    if first.get("format", FORMAT) != FORMAT:
        raise BadLog(f"line {n}: log format {first.get('format')!r} is not one this version "
                     f"reads (format {FORMAT})")
    try:
        config = dict(first.get("config") or {})
        game = get_game(str(first.get("game")))(**config)
    except (CompanionError, TypeError) as exc:
        raise BadLog(f"line {n}: {exc}") from None
    result = Replay(game.new_state())
    pending: list[dict[str, Any]] = []
    for n, event in lines[1:]:
        kind = event["type"]
        if result.ended:
            raise BadLog(f"line {n}: event {kind!r} after the 'end' line")
        if kind in game.action_kinds:
            if pending:
                raise BadLog(f"line {n}: the rules produce {pending[0]['type']!r} "
                             f"({dumps(pending[0])}) before this action, but the log lacks it")
            try:
                pending = result.state.apply(Action.from_json(event))
            except IllegalAction as exc:
                raise BadLog(f"line {n}: the rules reject this {kind!r}: {exc}") from None
            except CompanionError as exc:
                raise BadLog(f"line {n}: {exc}") from None
            result.outcomes.extend(pending)
        elif kind in game.outcome_kinds:
            if not pending:
                raise BadLog(f"line {n}: the rules produce no {kind!r} here")
            expected = json.loads(dumps(pending.pop(0)))
            if _facts(event) != _facts(expected):
                raise BadLog(f"line {n}: the log says {dumps(_strip(event))} but the rules say "
                             f"{dumps(expected)}")
        elif kind == "end":
            state = result.state
            if not state.is_terminal():
                raise BadLog(f"line {n}: 'end' before the game is over")
            if event.get("scores") != state.scores() or event.get("winners") != state.winners():
                raise BadLog(f"line {n}: the log ends with scores {event.get('scores')} and "
                             f"winners {event.get('winners')}, the rules give {state.scores()} "
                             f"and {state.winners()}")
            result.ended = True
        else:
            raise BadLog(f"line {n}: unknown event {kind!r} for {game.name}")
    if result.state.is_terminal() and not result.ended:
        raise BadLog(f"line {lines[-1][0]}: the game is over here, but the log has no 'end' line "
                     f"(scores {result.state.scores()}, winners {result.state.winners()})")
    return result
