"""`companion score piktas` (the best total of a hand with the field, and its units) and
`companion hint piktas` (open hand: every move on a player's turn, best first)."""

from __future__ import annotations

import argparse
import json

from companion.cards import get_deck
from companion.games.piktas import hints
from companion.games.piktas.rules import FIELD_POSITIONS, BadPool, Score, check_pool, score


def _pool(args: argparse.Namespace) -> tuple[list[str], list[str], list[str]]:
    """The hand, the uncovered field and the covered field cards, as codes; BadPool or
    UnknownCard (one line) for anything that could not be on a Piktas table."""
    deck = get_deck("piktas")
    hand = [c.code for c in deck.parse_many(args.hand)]
    field = [c.code for c in deck.parse_many(args.field)]
    covered = [c.code for c in deck.parse_many(args.covered or [])]
    for flag, cards in (("--field", field), ("--covered", covered)):
        voids = [c for c in cards if deck[c].kind == "void"]
        if voids:
            raise BadPool(f"{voids[0]} in {flag}: a void in the field covers a card; give the card "
                          f"under it with --covered")
    if len(field) + len(covered) > FIELD_POSITIONS:
        raise BadPool(f"the field has {FIELD_POSITIONS} positions, got {len(field)} uncovered and "
                      f"{len(covered)} covered cards")
    check_pool(hand, field + covered)
    return hand, field, covered


def _units_table(result: Score, indent: str = "  ") -> list[str]:
    width = max((len(u.name) for u in result.units), default=0)
    return [f"{indent}{u.points:>3}  {u.name:<{width}}  {' '.join(u.cards)}" for u in result.units]


def run_score(args: argparse.Namespace) -> int:
    hand, field, covered = _pool(args)
    result = score(hand, field + covered)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    print(f"Total {result.total}")
    lines = _units_table(result)
    print("\n".join(lines) if lines else "  no scoring unit")
    return 0


def run_hint(args: argparse.Namespace) -> int:
    hand, field, covered = _pool(args)
    moves = hints(hand, field, covered)
    if args.json:
        print(json.dumps([m.to_json() for m in moves]))
        return 0
    print("Moves, best first: your score after the move, then what the field alone is worth "
          "to the others (lower is better)")
    for move in moves:
        units = ", ".join(f"{u.name} {u.points}" for u in move.score.units) or "no scoring unit"
        print(f"  {move.score.total:>3}  field {move.field_total:>3}  {move.words():<26} ({units})")
    return 0


def _pool_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--hand", nargs="+", required=True, metavar="CARD",
                   help="the player's hand (up to 6 cards: codes like O7, raven, void1, or names)")
    p.add_argument("--field", nargs="+", required=True, metavar="CARD",
                   help="the uncovered field cards")
    p.add_argument("--covered", nargs="+", default=[], metavar="CARD",
                   help="field cards under a void: they score but cannot be taken")


def register(cli) -> None:
    p = cli.game_command("score", "score a hand, a pool or a round", "piktas",
                         "the best total of a Piktas hand pooled with the field, and its units",
                         run_score)
    _pool_arguments(p)
    p.add_argument("--json", action="store_true",
                   help='print {"total": N, "units": [{"kind": K, "cards": [...], "points": P}]}')
    h = cli.game_command("hint", "what a player could do, best first", "piktas",
                         "open hand: every move on a Piktas turn (pass, swap, void) with the score "
                         "it leaves, best first", run_hint)
    _pool_arguments(h)
    h.add_argument("--json", action="store_true",
                   help='print [{"move": {"type": ...}, "total": N, "units": [...], "field_total": F}, ...]')
