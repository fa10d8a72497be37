"""`companion trick medieval-mastery CARD...` and `companion meld medieval-mastery CARD...`:
who wins a Medieval Mastery trick, and is a family or commune legal (or the best tableau)."""

from __future__ import annotations

import argparse
import json

from companion.cards import get_deck
from companion.cli import UsageError
from companion.games.medieval_mastery import MedievalMastery, trick_winner
from companion.games.medieval_mastery.rules import best_arrangement, check_arrangement, check_group, name


def _codes(texts: list[str]) -> list[str]:
    return [c.code for c in get_deck("ideal").parse_many(texts)]


def trick(args: argparse.Namespace) -> int:
    cards = _codes(args.cards)
    most = MedievalMastery.max_players
    if not 2 <= len(cards) <= most:
        raise UsageError(f"a Medieval Mastery trick has 2 to {most} cards (one per player), "
                         f"got {len(cards)}")
    index, why = trick_winner(cards)
    if args.json:
        print(json.dumps({"winner": index, "why": why}))
        return 0
    print(f"winner: {index} ({cards[index]}, {name(cards[index])})")
    print(f"why: {why}")
    return 0


def meld(args: argparse.Namespace) -> int:
    cards = _codes(args.cards)
    if args.best:
        return _best(cards, args.json)
    group = check_group(cards)
    if args.json:
        print(json.dumps({"kind": group.kind, "title": group.title, "legal": group.legal,
                          "problems": list(group.problems), "points": group.points}))
        return 0
    print(f"{' '.join(cards)}: {group.title}")
    if group.legal:
        print(f"legal, {group.points} points")
    else:
        print("not legal:")
        for problem in group.problems:
            print(f"  - {problem}")
    return 0


def _best(cards: list[str], as_json: bool) -> int:
    groups = best_arrangement(hand=cards)
    report = check_arrangement(groups, hand=cards)
    left = [c for c in cards if c not in report.from_hand]
    if as_json:
        print(json.dumps({"groups": [g.to_json() for g in report.groups], "points": report.points,
                          "left": left}))
        return 0
    if not groups:
        print("no family or commune can be made of these cards")
    for g in report.groups:
        print(f"{' '.join(g.cards)}: {g.title}, {g.points} points")
    print(f"total: {report.points} points" + (f"; left over: {' '.join(left)}" if left else ""))
    return 0


def register(cli) -> None:
    p = cli.game_command("trick", "decide who wins a trick", "medieval-mastery",
                         "say which card of one Medieval Mastery trick wins, and why", trick)
    p.add_argument("cards", nargs="+", metavar="CARD",
                   help="the cards in the order played, the first leads (code or full name)")
    p.add_argument("--json", action="store_true", help='print {"winner": INDEX, "why": TEXT}, '
                                                       "INDEX counted from 0")
    p = cli.game_command("meld", "check a meld (family or commune)", "medieval-mastery",
                         "check one Medieval Mastery family or commune: its kind, whether it is "
                         "legal, why not, and its points", meld)
    p.add_argument("cards", nargs="+", metavar="CARD", help="the cards of the group (code or full name)")
    p.add_argument("--best", action="store_true",
                   help="instead, propose the best tableau that can be laid from these cards")
    p.add_argument("--json", action="store_true",
                   help='print {"kind", "title", "legal", "problems", "points"} (with --best: '
                        '{"groups", "points", "left"})')
