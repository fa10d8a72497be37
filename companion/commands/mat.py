"""`companion mat pdf GAME -o FILE.pdf`: a game's play mat, with its ArUco markers and
zones, at true size, tiled over sheets when the paper is smaller than the mat."""

from __future__ import annotations

import argparse

from companion.catalog import CATALOG, mat_game_names
from companion.commands.deck import px_per_mm
from companion.outputs import checked_output


def _mat_games() -> str:
    """"medieval-mastery (3-14 players), ...": the games with a mat, from the catalog."""
    spans = []
    for name in mat_game_names():
        low, high = CATALOG[name].mat_players or (0, 0)
        spans.append(f"{name} ({low} players)" if low == high else f"{name} ({low}-{high} players)")
    return ", ".join(spans)


def pdf(args: argparse.Namespace) -> int:
    from vision.mats import get_mat

    get_mat(args.game, args.players)  # an unknown game or a wrong count is named first
    output = checked_output(args.output, args.force)  # before the drawing
    from vision.printing import mat_pdf

    written = mat_pdf(args.game, output, args.paper, args.players, args.px_per_mm)
    print(f"wrote {written.path}: {written.what}, {written.pages} pages")
    return 0


def register(cli) -> None:
    mat = cli.group("mat", "print play mats")
    p = mat.add_parser("pdf", help="a game's play mat as a PDF at true size",
                       description="Write a game's play mat (four ArUco markers, the game's zones) at "
                                   "true size; a mat larger than the paper is tiled over several "
                                   "sheets with targets to line them up.")
    p.add_argument("game", metavar="GAME", help=f"a game with a mat: {_mat_games()}")
    p.add_argument("-o", "--output", required=True, metavar="FILE.pdf",
                   help="the PDF to write (an existing file only with --force)")
    p.add_argument("--force", action="store_true", help="replace FILE.pdf if it exists")
    p.add_argument("--paper", choices=("a3", "a4", "letter"), default="a4", help="paper size (default a4)")
    p.add_argument("--players", type=int, default=None, metavar="N",
                   help="number of players (default: the game's usual number)")
    p.add_argument("--px-per-mm", type=px_per_mm, default=6.0, metavar="N",
                   help="resolution of the mat picture, 1 to 40 pixels per mm (default 6)")
    p.set_defaults(func=pdf)
