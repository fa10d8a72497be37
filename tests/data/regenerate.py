"""Rewrite the golden data of every game: `python tests/data/regenerate.py`.

Two kinds of data, as OpenSpiel keeps playthroughs and python-chess keeps perft counts:

- tests/data/GAME/NAME.jsonl: whole seeded bot games, each exactly the event log that
  `companion play GAME --seed N --json` (with the players and options below) prints;
- tests/data/perft.json: for fixed deals, the number of legal action sequences to each
  depth up to a small one.

Run it only on purpose, after a deliberate change to the rules, a bot, the deal or the
log format; then read the diff (`git diff tests/data`) before committing it.
tests/companion/test_golden.py checks the stored data against the engines.

Every game names its players and every option, so a change of an engine's defaults (how
many rounds Medieval Mastery plays, say) does not change the data (the test checks that
the options named are all the game's).
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.eventlog import bot_game, dumps
from companion.games import Action, State, make_game

HERE = Path(__file__).resolve().parent
PERFT_FILE = HERE / "perft.json"


@dataclass(frozen=True)
class Golden:
    """One stored game: where it lives and how to play it again."""

    game: str
    file: str  # under tests/data/GAME/
    seed: int
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    why: str = ""

    @property
    def path(self) -> Path:
        return HERE / self.game / self.file

    def transcript(self) -> str:
        """The whole game's event log as JSON lines, as `companion play --json` prints it."""
        _, events = bot_game(make_game(self.game, self.players, **self.options), self.seed)
        return "".join(dumps(e) + "\n" for e in events)


GOLDEN: tuple[Golden, ...] = (
    Golden("yokir", "seed-1.jsonl", 1, 3, {"target": 7}),
    Golden("yokir", "seed-3.jsonl", 3, 3, {"target": 7}, "a call in bidding round 2"),
    Golden("yokir", "seed-18.jsonl", 18, 3, {"target": 7}, "a hand nobody calls"),
    Golden("yonac", "seed-1.jsonl", 1, 4, {"threshold": 2, "jokers": False}),
    Golden("yonac", "jokers-seed-2.jsonl", 2, 3, {"threshold": 2, "jokers": True}, "with the Jokers"),
    Golden("yonac", "ten-seed-5.jsonl", 5, 10, {"threshold": 4, "jokers": True},
           "the most players, Sudden Death from 4"),
    Golden("ahyoheek", "seed-1.jsonl", 1, 3, {"cycle": "example"}),
    Golden("ahyoheek", "summary-seed-2.jsonl", 2, 5, {"cycle": "summary"}, "the other cycle, 5 players"),
    Golden("piktas", "seed-1.jsonl", 1, 4, {"rounds": 1, "betting": False, "buy_in": 1, "max_raise": 5}),
    Golden("piktas", "betting-seed-2.jsonl", 2, 3,
           {"rounds": 2, "betting": True, "buy_in": 1, "max_raise": 5}, "two rounds with betting"),
    Golden("medieval-mastery", "seed-1.jsonl", 1, 4, {"rounds": 1, "target": 3125}),
    Golden("medieval-mastery", "three-seed-2.jsonl", 2, 3, {"rounds": 1, "target": 3125}, "3 players"),
)


# --- perft ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Perft:
    """Counts of legal action sequences from one fixed deal, to `len(counts)` actions."""

    game: str
    seed: int
    players: int
    options: dict[str, Any]
    depth: int

    def key(self) -> str:
        return f"{self.game} seed {self.seed}, {self.players} players"


# Depths chosen so that all five together take about 1.5 s on the 2-core machine (one
# more level costs 3 to 10 times as much).
PERFT: tuple[Perft, ...] = (
    Perft("yokir", 1, 3, {"target": 7}, 7),
    Perft("yonac", 1, 4, {"threshold": 2, "jokers": True}, 3),
    Perft("ahyoheek", 1, 3, {"cycle": "example"}, 5),
    Perft("piktas", 1, 3, {"rounds": 1, "betting": True, "buy_in": 1, "max_raise": 5}, 3),
    Perft("medieval-mastery", 1, 3, {"rounds": 1, "target": 3125}, 8),
)


def _key(action: Action) -> str:
    """An action as the seeds were made from it: seats counted from 0, as in the log (the
    words for people count from 1 since issue 19; the data must not change with them)."""
    who = "chance" if action.seat is None else f"seat {action.seat}"
    args = " ".join(f"{k}={v}" for k, v in action.to_json().items() if k not in ("type", "seat"))
    return f"{who} {action.kind} {args}".strip()


def _chance(state: State, seed: int) -> None:
    """Apply the chance action at `state`, drawn from a generator seeded by the seed and the
    moves so far: the same path always meets the same deal or draw."""
    path = "/".join(_key(a) for a in state.history)
    state.apply(state.sample_chance(random.Random(f"{seed}|{path}")))


def dealt(spec: Perft) -> State:
    """The game of `spec` after its opening deal (every chance action before the first move)."""
    state = make_game(spec.game, spec.players, **spec.options).new_state()
    while state.is_chance():
        _chance(state, spec.seed)
    return state


def perft(state: State, depth: int, seed: int) -> list[int]:
    """counts[d - 1] = the number of action sequences of length d from `state` (d = 1 ..
    depth). A chance action met on the way counts as one step with one outcome (see
    `_chance`); a sequence that ends the game early is counted at its own length only."""
    counts = [0] * depth

    def walk(node: State, left: int, at: int) -> None:
        if left == 0 or node.is_terminal():
            return
        if node.is_chance():
            child = node.clone()
            _chance(child, seed)
            counts[at] += 1
            walk(child, left - 1, at + 1)
            return
        for action in node.legal_actions():
            counts[at] += 1
            if left > 1:
                child = node.clone()
                child.apply(action)
                walk(child, left - 1, at + 1)

    walk(state, depth, 0)
    return counts


def perft_counts() -> dict[str, Any]:
    """The data perft.json holds."""
    return {spec.key(): {"game": spec.game, "seed": spec.seed, "players": spec.players,
                         "options": spec.options, "counts": perft(dealt(spec), spec.depth, spec.seed)}
            for spec in PERFT}


def main(argv: list[str] | None = None) -> int:
    for golden in GOLDEN:
        golden.path.parent.mkdir(exist_ok=True)
        golden.path.write_text(golden.transcript(), encoding="utf-8")
        print(f"wrote {golden.path.relative_to(HERE.parent.parent)}")
    entries = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in perft_counts().items()]
    PERFT_FILE.write_text("{\n" + ",\n".join(entries) + "\n}\n", encoding="utf-8")
    print(f"wrote {PERFT_FILE.relative_to(HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
