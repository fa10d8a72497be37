"""How often the Piktas scorer before the issue 18 fix gave a wrong answer.

Runs the old scorer (taken from git at `--rev`, the last commit before the fix), the
current one and the brute-force reference of tests/companion/test_piktas_reference.py on
seeded pools of three kinds, and counts the pools where a scorer's total (or its tie-break
keys) differs from the reference:
  * dense: the reference test's random pools (pips of Stone, Water, Sun 2 to 8, their trumps);
  * random: up to 7 pips and 4 trumps of the whole deck, a void now and then;
  * chained: pools built to hold Mixed Sequences (the reference test's `chained_pool`).
Real deals (6 random cards in the hand, 6 in the field) are too big for the reference; on
those the old scorer is compared with the fixed one (itself held to the reference by the
tests), `--deals` of them.

    .venv/bin/python -m benchmarks.piktas_old_answers [--pools 1000] [--deals 20000] [--rev HASH]

Not a `bench_` module (it needs git and the tests): run it by hand; it saves
benchmarks/results/piktas_old_answers.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

from benchmarks.common import save
from companion.games.piktas.rules import DECK, score

ROOT = Path(__file__).resolve().parent.parent
BEFORE_FIX = "eabcce0"  # the last commit with the old Mixed Sequence search


def _module(name: str, path: Path, source: str | None = None) -> ModuleType:
    if source is not None:
        path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _pools(kind: str, n: int, rng: random.Random, ref: ModuleType) -> list[tuple[list[str], list[str]]]:
    pips = [c.code for c in DECK if c.kind == "pip"]
    trumps = [c.code for c in DECK if c.kind == "trump"]
    out = []
    for _ in range(n):
        if kind == "chained":
            out.append(ref.chained_pool(rng.choice))
            continue
        if kind == "dense":
            cards = rng.sample(ref.DENSE[:21], rng.randint(2, 7)) + \
                rng.sample(ref.DENSE[21:], rng.randint(0, 4))
        else:
            cards = rng.sample(pips, rng.randint(2, 7)) + rng.sample(trumps, rng.randint(0, 4)) + \
                (["void1"] if rng.random() < 0.2 else [])
        rng.shuffle(cards)
        cut = rng.randint(max(0, len(cards) - 6), min(6, len(cards)))
        out.append((cards[:cut], cards[cut:]))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pools", type=int, default=1000, help="pools of each kind (default 1000)")
    parser.add_argument("--deals", type=int, default=20000, help="random 6 + 6 deals (default 20000)")
    parser.add_argument("--rev", default=BEFORE_FIX, help="git revision of the old scorer")
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args(argv)
    source = subprocess.run(["git", "show", f"{args.rev}:companion/games/piktas_scoring.py"],
                            cwd=ROOT, check=True, capture_output=True, text=True).stdout
    old = _module("piktas_scoring_old", Path("/tmp") / f"piktas_scoring_{args.rev}.py", source)
    ref = _module("piktas_reference", ROOT / "tests/companion/test_piktas_reference.py")
    rng = random.Random(args.seed)
    results = {"rev": args.rev, "seed": args.seed, "kinds": {}}
    for kind in ("dense", "random", "chained"):
        start = time.perf_counter()
        wrong_total = wrong_keys = new_wrong = 0
        examples = []
        pools = _pools(kind, args.pools, rng, ref)
        for hand, field in pools:
            truth = ref.reference(hand, field)
            was = old.score(hand, field)
            now = score(hand, field)
            if (now.total, now.best_unit, now.best_card) != truth:
                new_wrong += 1
            if (was.total, was.best_unit, was.best_card) != truth:
                wrong_keys += 1
            if was.total != truth[0]:
                wrong_total += 1
                if len(examples) < 3:
                    examples.append({"hand": hand, "field": field, "old": was.total,
                                     "best": truth[0]})
        results["kinds"][kind] = {"pools": len(pools), "old_wrong_total": wrong_total,
                                  "old_wrong_total_pct": round(100 * wrong_total / len(pools), 2),
                                  "old_wrong_keys": wrong_keys, "new_wrong": new_wrong,
                                  "examples": examples}
        print(f"{kind:<8} {len(pools)} pools: old total wrong {wrong_total} "
              f"({100 * wrong_total / len(pools):.1f}%), old total or tie-break keys wrong "
              f"{wrong_keys}; new wrong {new_wrong}  ({time.perf_counter() - start:.0f} s)",
              flush=True)
    scoring = [c.code for c in DECK]
    differ = 0
    examples = []
    for _ in range(args.deals):
        cards = rng.sample(scoring, 12)
        hand, field = cards[:6], cards[6:]
        was, now = old.score(hand, field).total, score(hand, field).total
        if was != now:
            differ += 1
            if len(examples) < 3:
                examples.append({"hand": hand, "field": field, "old": was, "best": now})
    results["deals"] = {"deals": args.deals, "old_total_differs": differ,
                        "old_total_differs_pct": round(100 * differ / max(1, args.deals), 3),
                        "examples": examples}
    print(f"deals    {args.deals} random 6 + 6 deals: old total differs from the fixed scorer's "
          f"in {differ} ({100 * differ / max(1, args.deals):.2f}%)")
    save("piktas_old_answers", results)


if __name__ == "__main__":
    main()
