"""Engine speed: legality checks, trick winners and whole bot games, per game.

Budget (DESIGN.md): a legality check or a trick winner well under 1 ms.
"""

from __future__ import annotations

import random
import time

from benchmarks.common import save, summarise
from companion.cards import get_deck
from companion.eventlog import bot_game
from companion.games import CHANCE, TERMINAL, games, make_game
from companion.games.yokir import trick_winner


def _states(name: str, seeds: range) -> list:
    """Every decision state of a few bot games, to time checks on realistic positions."""
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        game = make_game(name)
        state = game.new_state()
        while state.current_player() != TERMINAL:
            if state.current_player() == CHANCE:
                state.apply(state.sample_chance(rng))
                continue
            action = game.bot_action(state, rng)
            out.append((state.clone(), action))
            state.apply(action)
    return out


def main() -> None:
    results = {}
    for name in games():
        positions = _states(name, range(5))[:2000]
        checks, legal = [], []
        for state, action in positions:
            t0 = time.perf_counter()
            state.check(action)
            t1 = time.perf_counter()
            state.legal_actions()
            t2 = time.perf_counter()
            checks.append(t1 - t0)
            legal.append(t2 - t1)
        whole = []
        for seed in range(20):
            t0 = time.perf_counter()
            bot_game(make_game(name), seed)
            whole.append(time.perf_counter() - t0)
        results[name] = {"check": summarise(checks), "legal_actions": summarise(legal),
                         "bot_game": summarise(whole)}
        r = results[name]
        print(f"{name:18} check median {r['check']['median_ms']:.4f} ms (worst "
              f"{r['check']['worst_ms']:.3f}), legal_actions median "
              f"{r['legal_actions']['median_ms']:.4f} ms, whole bot game median "
              f"{r['bot_game']['median_ms']:.1f} ms")
    rng = random.Random(1)
    codes = list(get_deck("yokir").codes)
    samples = []
    for _ in range(20_000):
        cards, trump = rng.sample(codes, 3), rng.choice("ALMT")
        t0 = time.perf_counter()
        trick_winner(cards, trump)
        samples.append(time.perf_counter() - t0)
    results["yokir_trick_winner"] = summarise(samples)
    print(f"yokir trick_winner median {results['yokir_trick_winner']['median_ms']:.4f} ms, "
          f"worst {results['yokir_trick_winner']['worst_ms']:.3f} ms")
    save("engines", results)
