"""`companion play GAME`: a whole seeded game between bots, printed as it goes."""

from __future__ import annotations

import argparse
import sys

from companion.commands._args import SEED_HELP, seed
from companion.eventlog import bot_game, dumps
from companion.games import games
from companion.games.base import Game, describe_event


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _runner(cls: type[Game]):
    def run(args: argparse.Namespace) -> int:
        options = {o.name: getattr(args, o.name) for o in cls.options_spec
                   if getattr(args, o.name) is not None}
        game = cls(args.players, **options)

        def show(event: dict) -> None:
            print(dumps(event) if args.json else describe_event(game, event))
            sys.stdout.flush()

        bot_game(game, args.seed, on_event=show)
        return 0

    return run


def register(cli) -> None:
    for name, cls in games().items():
        p = cli.game_command("play", "play a whole game between bots and print it", name,
                             f"play {cls.title} between bots and print the event log", _runner(cls))
        span = f"{cls.min_players}-{cls.max_players}"
        p.add_argument("--players", type=int, default=cls.default_players, metavar="N",
                       help=f"number of players ({span}, default {cls.default_players})")
        p.add_argument("--seed", type=seed, default=0, metavar="S",
                       help=f"{SEED_HELP}, for the deal and the bots (default 0)")
        p.add_argument("--json", action="store_true",
                       help="print the event log as JSON lines (docs/events.md)")
        for o in cls.options_spec:
            if o.type is bool:
                p.add_argument(_flag(o.name), dest=o.name, action=argparse.BooleanOptionalAction,
                               default=None, help=f"{o.help} (default {o.default})")
            else:
                p.add_argument(_flag(o.name), dest=o.name, type=o.type, default=None,
                               choices=o.choices or None, metavar=o.name.upper(),
                               help=f"{o.help} (default {o.default})")
