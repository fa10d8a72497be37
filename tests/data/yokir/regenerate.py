"""Rewrite the golden Yokir transcripts: `python tests/data/yokir/regenerate.py`.

Run it only on purpose, after a deliberate change to the rules, the bot, the deal or the
log format; then read the diff (`git diff tests/data/yokir`) before committing it.
"""

from __future__ import annotations

from pathlib import Path

from companion.eventlog import bot_game, dumps
from companion.games import make_game

HERE = Path(__file__).parent
SEEDS = (1, 3, 18)  # 3: a round-2 call; 18: a void hand too


def path_for(seed: int) -> Path:
    return HERE / f"seed-{seed}.jsonl"


def transcript(seed: int) -> str:
    """The event log of a whole seeded bot game, as `companion play yokir --seed N --json`."""
    _, events = bot_game(make_game("yokir"), seed)
    return "".join(dumps(e) + "\n" for e in events)


def main() -> None:
    for seed in SEEDS:
        path_for(seed).write_text(transcript(seed), encoding="utf-8")
        print(f"wrote {path_for(seed)}")


if __name__ == "__main__":
    main()
