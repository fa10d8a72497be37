"""`companion score ahyoheek PICK...`: score one round of Ahyoheek."""

from __future__ import annotations

import argparse
import json

from companion.cards import get_deck
from companion.catalog import game_info
from companion.errors import BadOption
from companion.games.ahyoheek import round_scores, round_winners


def score(args: argparse.Namespace) -> int:
    picks = [get_deck("ahyoheek").parse_many(args.picks, allow_repeats=True)[i].code
             for i in range(len(args.picks))]
    info = game_info("ahyoheek")
    if not info.min_players <= len(picks) <= info.max_players:
        raise BadOption(f"{info.title} is played by {info.players_span} players, got {len(picks)} picks")
    scores = round_scores(picks, args.cycle)
    winners = round_winners(picks, scores)
    if args.json:
        print(json.dumps({"scores": scores, "winners": winners}))
        return 0
    for seat, (pick, pts) in enumerate(zip(picks, scores, strict=True), start=1):  # as people count
        print(f"seat {seat}: {pick:<6} {pts:+d}")
    if winners:
        print("; ".join(f"seat {w + 1} wins a {picks[w]}" for w in winners))
    else:
        print("Nobody wins the round: every player scores 0.")
    return 0


def register(cli) -> None:
    p = cli.game_command("score", "score a hand, a pool or a round", "ahyoheek",
                         "score one round of Ahyoheek from the picks in seat order", score)
    p.add_argument("picks", nargs="+", metavar="PICK", help="pen, page or beetle, one per seat")
    p.add_argument("--cycle", choices=("example", "summary"), default="example",
                   help="which item beats which (default: the worked example's, beetle > pen > "
                        "page > beetle)")
    p.add_argument("--json", action="store_true", help='print {"scores": [...], "winners": [...]}')
