"""`companion cards DECK`: list a deck's cards with their codes."""

from __future__ import annotations

import argparse
import json

from companion.cards import deck_names, get_deck


def run(args: argparse.Namespace) -> int:
    deck = get_deck(args.deck)
    if args.json:
        print(json.dumps([{"code": c.code, "name": c.name, "kind": c.kind, "suits": list(c.suits),
                           "rank": c.rank, "value": c.value, "colour": c.colour} for c in deck]))
        return 0
    width = max(len(c.code) for c in deck)
    for card in deck:
        print(f"{card.code:<{width}}  {card.name}")
    print(f"{len(deck)} cards in the {deck.title} deck")
    return 0


def register(cli) -> None:
    p = cli.command("cards", "list the cards of a deck with their codes", run)
    p.add_argument("deck", metavar="DECK",
                   help=f"a deck ({', '.join(deck_names())}) or a game's name")
    p.add_argument("--json", action="store_true", help="machine-readable output")
