"""`companion trick yokir` and `companion legal yokir`: one trick's winner, one hand's legal
plays, from cards given by code or full name (CARDS.md) and a trump suit by letter or name."""

from __future__ import annotations

import argparse
import json

from companion.cards import get_deck
from companion.cli import UsageError
from companion.games.yokir import (
    HAND_SIZE,
    PLAYERS,
    explain_plays,
    legal_plays,
    oracle,
    parse_suit,
    sage,
    suit_name,
    title,
    trick_winner,
)

_ORDINALS = ("first", "second", "third")


def _cards(texts: list[str]) -> list[str]:
    return [c.code for c in get_deck("yokir").parse_many(texts)]


def _trump_line(trump: str) -> str:
    return (f"Trump: {suit_name(trump)} (the Oracle is {title(oracle(trump))}, the Sage "
            f"{title(sage(trump))})")


def trick(args: argparse.Namespace) -> int:
    trump = parse_suit(args.trump)
    cards = _cards(args.cards)
    if len(cards) != PLAYERS:
        raise UsageError(f"a Yokir trick has {PLAYERS} cards, one per player; got {len(cards)}: "
                         f"{' '.join(cards)}")
    winner, why = trick_winner(cards, trump)
    if args.json:
        print(json.dumps({"winner": winner, "why": why}))
        return 0
    print(_trump_line(trump))
    for i, card in enumerate(cards):
        print(f"{i + 1}. {card:<3} {title(card, trump)}" + (" (led)" if i == 0 else ""))
    print(f"The {_ORDINALS[winner]} card wins: {why}.")
    return 0


def legal(args: argparse.Namespace) -> int:
    trump = parse_suit(args.trump)
    hand = _cards(args.hand)
    if not 1 <= len(hand) <= HAND_SIZE:
        raise UsageError(f"a Yokir hand in play has 1 to {HAND_SIZE} cards, got {len(hand)}: "
                         f"{' '.join(hand)}")
    led = get_deck("yokir").parse(args.led).code if args.led else None
    if led in hand:
        raise UsageError(f"the led card {led} cannot also be in the hand (each card is in the "
                         "deck once)")
    cards = legal_plays(hand, led, trump)
    why = explain_plays(hand, led, trump)
    if args.json:
        print(json.dumps({"legal": cards, "why": why}))
        return 0
    print(_trump_line(trump))
    if led:
        print(f"Led: {title(led, trump)}")
    for card in cards:
        print(f"{card:<3} {title(card, trump)}")
    print(why)
    return 0


def register(cli) -> None:
    p = cli.game_command("trick", "decide who wins a trick", "yokir",
                         "say which card of one Yokir trick wins, and why", trick)
    p.add_argument("cards", nargs="+", metavar="CARD",
                   help="the three cards in the order played, the first leads (code or full name)")
    p.add_argument("--trump", required=True, metavar="SUIT",
                   help="the trump suit: A, L, M, T or a name (Architecture, Leadership, "
                        "Art & Music, Thought)")
    p.add_argument("--json", action="store_true", help='print {"winner": INDEX, "why": TEXT}, '
                                                       "INDEX counted from 0")
    p = cli.game_command("legal", "list the legal plays from a hand", "yokir",
                         "list the cards a Yokir player may play from a hand, and why", legal)
    p.add_argument("--trump", required=True, metavar="SUIT",
                   help="the trump suit: A, L, M, T or a name")
    p.add_argument("--hand", required=True, nargs="+", metavar="CARD",
                   help="the cards in hand, 1 to 5 (code or full name)")
    p.add_argument("--led", metavar="CARD", help="the card that led the trick (omit when leading)")
    p.add_argument("--json", action="store_true", help='print {"legal": [CODES], "why": TEXT}')
