"""`companion yonac set CARD...`: judge one collected Yonac Set, with no other context.

No other context means: the Set was just picked up, so a Joker in it is Potent and an Ace of
Diamonds is Potent; no other player holds a Potent Ace, so a Joker cannot be swapped; the
player's own Potent Ace of Hearts is set aside only when `--potent-hearts` says so.
"""

from __future__ import annotations

import argparse
import json

from companion.cards import get_deck
from companion.cli import UsageError
from companion.games.yonac import advice, rule_on_set

RESULT_WORDS = {
    "keep": "the Set is kept",
    "lose": "the player loses",
    "saved": "the Ace of Hearts saves the player",
    "removed": "the Joker removes the Aces",
    "more": "the Ace of Diamonds asks for more cards",
}


def judge_set(args: argparse.Namespace) -> int:
    cards = [c.code for c in get_deck("standard").parse_many(args.cards)]
    if args.potent_hearts and "AH" in cards:
        raise UsageError("--potent-hearts says the Ace of Hearts is set aside, but AH is in the Set: "
                         "there is only one Ace of Hearts")
    ruling = rule_on_set(cards, potent_hearts=args.potent_hearts)
    words = advice(ruling)
    if args.json:
        print(json.dumps({"set": cards, "result": ruling.result, "rule": ruling.rule,
                          "stash": list(ruling.stash), "aside": list(ruling.aside),
                          "pile": list(ruling.pile), "next": words}, ensure_ascii=False))
        return 0
    deck = get_deck("standard")
    print("Set: " + ", ".join(f"{deck[c].name} ({c})" for c in cards))
    print(f"Ruling ({ruling.rule}): {RESULT_WORDS[ruling.result]}.")
    print(words)
    return 0


def register(cli) -> None:
    p = cli.group("yonac", "Yonac tools").add_parser(
        "set", help="judge one collected Set of Yonac",
        description="Judge one Set collected in Yonac, for a player with no other context (a "
                    "Joker in the Set cannot be swapped: nobody else holds a Potent Ace), and say "
                    "what the player must do.")
    p.set_defaults(func=judge_set)
    p.add_argument("cards", nargs="+", metavar="CARD",
                   help="the cards of the Set: codes (AS, 10H, JK1) or names ('Ace of Spades', Joker)")
    p.add_argument("--potent-hearts", action="store_true",
                   help="the player has a Potent Ace of Hearts set aside from an earlier turn")
    p.add_argument("--json", action="store_true",
                   help='print {"set", "result", "rule", "stash", "aside", "pile", "next"}')
