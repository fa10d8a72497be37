"""Stored games from the command line: `companion replay FILE`, `companion history`,
`companion export GAME_ID`, `companion players` and `companion record GAME NAME...`
(docs/session.md). Reading commands never create or change a database; `replay` reads
only its file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from companion.commands._args import SEED_HELP, seed
from companion.eventlog import dumps, read_file, replay
from companion.games import games, get_game
from companion.games.base import Game, describe_event
from companion.outputs import checked_output, write_output
from companion.storage import ENV_VAR, GameRecord, NoDatabase, Store, UnknownGameId, default_path
from companion.words import and_list

DB_HELP = f"the database file (default: ${ENV_VAR}, else companion.db in the user data directory)"


def _open(args: argparse.Namespace, *, create: bool = False) -> Store:
    """The database; a reading command (create=False) refuses a missing file by name, so a
    mistyped --db or COMPANION_DB is not shown as an empty history."""
    try:
        return Store(args.db, create=create)
    except NoDatabase:
        path = args.db or default_path()
        raise NoDatabase(f"no database at {str(path)!r}: check --db or ${ENV_VAR} (a database "
                         f"is made by the first game stored)") from None


def _game_id(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or str(value) != text.strip():
        raise UnknownGameId(f"no game with id {text!r}: a game id is a whole number from 1 "
                            f"(see companion history)")
    return value


def _scores(names: list[str], scores: list[Any]) -> str:
    return ", ".join(f"{n}: {s}" for n, s in zip(names, scores, strict=True))


def _seat_names(start: dict[str, Any], players: int) -> list[str]:
    names = start.get("players")
    if isinstance(names, list) and len(names) == players and all(isinstance(n, str) for n in names):
        return names
    return [f"seat {i}" for i in range(1, players + 1)]  # as people count seats


# -- replay ----------------------------------------------------------------------------

def run_replay(args: argparse.Namespace) -> int:
    lines = read_file(args.file)
    result = replay(lines)
    state = result.state
    game: Game = state.game
    names = _seat_names(lines[0][1], game.players)
    scores, winners = list(state.scores()), list(state.winners())
    if args.json:
        print(json.dumps({"game": game.name, "finished": result.ended, "scores": scores,
                          "winners": winners, "verdicts": result.outcomes}))
        return 0
    line_of = [n for n, e in lines if e["type"] in game.outcome_kinds]
    print(f"{game.title}, {game.players} players: {', '.join(names)}")
    for i, event in enumerate(result.outcomes):
        where = f"line {line_of[i]}" if i < len(line_of) else "(not in the log)"
        print(f"{where}: {describe_event(game, event)}")
    if result.ended:
        who = and_list((names[w] for w in winners), empty="nobody")
        print(f"Final scores: {_scores(names, scores)}. Winner: {who}.")
    else:
        print(f"The log stops before the game is over. Scores so far: {_scores(names, scores)}.")
    return 0


# -- history, players --------------------------------------------------------------------

def _history_json(record: GameRecord) -> dict[str, Any]:
    return {"id": record.id, "game": record.game, "config": record.config,
            "status": record.status, "reason": record.reason, "damage": record.damage,
            "started": record.started, "finished": record.finished,
            "players": list(record.players), "scores": list(record.scores),
            "winners": list(record.winners),
            "winner_names": [record.players[w] for w in record.winners
                             if 0 <= w < len(record.players)]}


def run_history(args: argparse.Namespace) -> int:
    with _open(args) as store:
        records = store.games(None if args.all else "finished")
    if args.json:
        print(json.dumps([_history_json(r) for r in records]))
        return 0
    if not records:
        print("No finished games yet." if not args.all else "No games yet.")
        return 0
    registry = games()
    for r in records:
        title = registry[r.game].title if r.game in registry else r.game
        when = (r.finished or r.started)[:16].replace("T", " ")
        if r.damage:
            tail = f"{', '.join(r.players)}; damaged ({r.damage})"
        elif r.status == "finished" and len(r.scores) == len(r.players):
            who = and_list((r.players[w] for w in r.winners if w < len(r.players)), empty="nobody")
            tail = f"{_scores(list(r.players), list(r.scores))}; winner: {who}"
        elif r.status == "abandoned":
            tail = f"{', '.join(r.players)}; abandoned ({r.reason or 'no reason given'})"
        else:
            tail = f"{', '.join(r.players)}; still playing"
        print(f"#{r.id:<4} {when}  {title:<16} {tail}")
    return 0


def run_players(args: argparse.Namespace) -> int:
    game = get_game(args.game).name if args.game is not None else None  # '' is no game
    with _open(args) as store:
        players = store.players()
        ratings = store.ratings(game)
    if args.json:
        print(json.dumps({"players": [p.name for p in players],
                          "ratings": [{"player": r.name, "game": r.game,
                                       "rating": round(r.rating, 1), "games": r.games}
                                      for r in ratings]}))
        return 0
    if not players:
        print("No players yet.")
        return 0
    rated: dict[str, list[str]] = {}
    for r in ratings:
        games_word = "game" if r.games == 1 else "games"
        rated.setdefault(r.name, []).append(f"{r.game} {r.rating:.0f} ({r.games} {games_word})")
    width = max(len(p.name) for p in players)
    for p in players:
        if game and p.name not in rated:
            continue
        print(f"{p.name:<{width}}  {'; '.join(rated.get(p.name, ['unrated']))}")
    return 0


# -- export ------------------------------------------------------------------------------

def run_export(args: argparse.Namespace) -> int:
    game_id = _game_id(args.game_id)
    output = checked_output(args.output, args.force) if args.output is not None else None
    with _open(args) as store:
        text = "".join(dumps(e) + "\n" for e in store.export(game_id))
    if output is not None:
        write_output(output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    return 0


# -- games abandon ---------------------------------------------------------------------

def run_abandon(args: argparse.Namespace) -> int:
    game_id = _game_id(args.game_id)
    with _open(args) as store:
        event = store.abandon(game_id, args.reason, source="cli")
    print(f"Game {game_id} abandoned ({event.reason}); event {event.seq} says so.")
    return 0


# -- record ------------------------------------------------------------------------------

def run_record(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    with _open(args, create=True) as store:
        from runtime.table import start_game

        session = start_game(store, args.game, args.names)
        while not session.view().over:
            session.step_bot(rng)
        view = session.view()
    who = and_list((view.players[w] for w in view.winners), empty="nobody")
    print(f"Stored game {session.game_id}: {view.title}, {view.events} events. "
          f"Scores: {_scores(list(view.players), list(view.scores))}. Winner: {who}.")
    return 0


def register(cli) -> None:
    p = cli.command("replay", "re-score a logged game from its JSON-lines file and print the "
                    "verdicts and the final scores", run_replay)
    p.add_argument("file", metavar="FILE.jsonl", help="an event log (companion export, play --json)")
    p.add_argument("--json", action="store_true",
                   help='print {"game", "finished", "scores", "winners", "verdicts"}')

    p = cli.command("history", "list finished games with players, scores and winner", run_history)
    p.add_argument("--all", action="store_true",
                   help="also list games still being played and abandoned ones")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--db", metavar="PATH", help=DB_HELP)

    p = cli.command("export", "write a stored game's log as JSON lines (docs/events.md)", run_export)
    p.add_argument("game_id", metavar="GAME_ID", help="the game's id (see companion history)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.add_argument("--db", metavar="PATH", help=DB_HELP)

    games_group = cli.group("games", "manage stored games")
    p = games_group.add_parser("abandon", help="end a game still being played, with a reason",
                               description="End a stored game that is still being played (a crash, "
                                           "players who left) without a result: an 'abandon' event "
                                           "with the reason. History then shows it as abandoned; it "
                                           "takes no more moves and counts for no rating.")
    p.add_argument("game_id", metavar="GAME_ID", help="the game's id (see companion history --all)")
    p.add_argument("--reason", required=True, metavar="TEXT",
                   help="why, in a few words (up to 200 characters)")
    p.add_argument("--db", metavar="PATH", help=DB_HELP)
    p.set_defaults(func=run_abandon)

    p = cli.command("players", "list players and their ratings per game", run_players)
    p.add_argument("--game", metavar="GAME", help="only ratings in this game")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--db", metavar="PATH", help=DB_HELP)

    p = cli.command("record", "play a whole game between bots through the session and store it "
                    "(default options)", run_record)
    p.add_argument("game", metavar="GAME", choices=sorted(games()),
                   help=f"the game: {', '.join(sorted(games()))}")
    p.add_argument("names", nargs="+", metavar="NAME", help="the players' names, by seat")
    p.add_argument("--seed", type=seed, default=0, metavar="S",
                   help=f"{SEED_HELP}, for the deal and the bots (default 0)")
    p.add_argument("--db", metavar="PATH", help=DB_HELP)
