"""The `companion` command. Subcommands live in `companion.commands.*`, one module per
family; each module's `register(cli)` adds its parsers. Bad input is one line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from collections.abc import Callable, Sequence

from companion import __version__
from companion.catalog import GAMES
from companion.errors import CompanionError

Handler = Callable[[argparse.Namespace], int | None]


class UsageError(CompanionError, ValueError):
    """Bad command-line words."""


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line instead of exiting with usage text."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


class CLI:
    """The parser tree. Command modules add top-level commands and per-game commands."""

    def __init__(self) -> None:
        self.parser = Parser(prog="companion",
                             description="Table Companion: a card-table referee that sees the "
                                         "cards, knows the rules and keeps the score.")
        self.parser.add_argument("--version", action="version", version=f"companion {__version__}")
        self.sub = self.parser.add_subparsers(dest="command", metavar="COMMAND",
                                              parser_class=Parser)
        self._verbs: dict[str, argparse._SubParsersAction] = {}

    def command(self, name: str, help: str, handler: Handler, **kw) -> Parser:
        """A top-level command `companion NAME`."""
        p = self.sub.add_parser(name, help=help, description=help, **kw)
        p.set_defaults(func=handler)
        return p

    def group(self, name: str, help: str) -> argparse._SubParsersAction:
        """A command with sub-commands (`companion deck render`, `companion play yokir`)."""
        if name not in self._verbs:
            p = self.sub.add_parser(name, help=help, description=help)
            p.set_defaults(func=lambda args, p=p: _missing(p))
            self._verbs[name] = p.add_subparsers(dest=f"{name}_what", metavar="WHAT",
                                                 parser_class=Parser)
        return self._verbs[name]

    def game_command(self, verb: str, verb_help: str, game: str, help: str,
                     handler: Handler) -> Parser:
        """`companion VERB GAME ...`: e.g. `trick yokir` or `score piktas`."""
        p = self.group(verb, verb_help).add_parser(game, help=help, description=help)
        p.set_defaults(func=handler)
        return p


def _missing(parser: argparse.ArgumentParser) -> int:
    raise UsageError(f"{parser.prog}: say which one ({parser.format_usage().strip()})")


# The order `companion --help` lists commands in: the main jobs first, then the games'
# own commands (the catalog names their modules), then decks, vision and hardware.
# Modules not named here come last.
ORDER = ("demo", "kiosk", "play", "session",
         *(g.commands.rpartition(".")[2] for g in GAMES if g.commands),
         "cards", "deck", "deck_learn", "mat", "recognize", "panel")


def build() -> CLI:
    import companion.commands as pkg

    cli = CLI()
    names = [m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_")]
    names.sort(key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))
    for name in names:
        importlib.import_module(f"{pkg.__name__}.{name}").register(cli)
    return cli


def _register_learned_decks() -> None:
    """Decks taught with `companion deck learn` are usable by name in every command. Only
    import vision (and OpenCV, a slow import) when such a deck exists."""
    from companion.paths import learned_decks_dir

    folder = learned_decks_dir()
    if folder.is_dir() and any(folder.glob("*/manifest.json")):
        from vision.learn import register_learned

        register_learned()


def one_line(text: str) -> str:
    """An error message as one printable line: a newline, carriage return or other control
    character from the user's own words is shown escaped (\\n, \\r, \\x1b)."""
    return re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", lambda m: repr(m[0])[1:-1], text.strip())


def main(argv: Sequence[str] | None = None) -> int:
    cli = build()
    try:
        _register_learned_decks()
        args = cli.parser.parse_args(argv)
        if not getattr(args, "func", None):
            cli.parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except CompanionError as exc:
        print(f"companion: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("companion: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
