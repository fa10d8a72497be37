"""Elo ratings per player per game (docs/session.md, "Ratings").

Every player starts at 1500. A finished game is read as a set of pairwise matches:
each pair of seats is compared by placement (the game's winners first, then the
final score, higher is better), and each player's rating moves by
K * (actual - expected) / (n - 1) summed over the n - 1 others, with K = 32. For two
players that is plain Elo; dividing by n - 1 keeps a many-player game from moving a
rating further than one head-to-head game does. Pure functions: storage keeps the
results and recomputes a game's ratings from them in finishing order.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

K = 32.0
DEFAULT = 1500.0


def expected(rating: float, other: float) -> float:
    """The expected score (0..1) of a player rated `rating` against one rated `other`."""
    return 1.0 / (1.0 + 10.0 ** ((other - rating) / 400.0))


def placement(scores: Sequence[float], winners: Sequence[int]) -> list[tuple[bool, float]]:
    """A sortable key per seat: the game's winners above everyone, then the final score.
    (Ahyoheek's sudden death or Yonac's Ace-of-Clubs win can crown a seat whose score
    ties or trails, so winners count first.)"""
    won = set(winners)
    return [(seat in won, float(score)) for seat, score in enumerate(scores)]


def game_changes(ratings: Sequence[float], scores: Sequence[float], winners: Sequence[int],
                 k: float = K) -> list[float]:
    """The rating change of every seat after one game (they sum to zero)."""
    n = len(ratings)
    if n != len(scores):
        raise ValueError(f"{n} ratings but {len(scores)} scores")
    if n < 2:
        return [0.0] * n
    keys = placement(scores, winners)
    changes = []
    for i in range(n):
        total = 0.0
        for j in range(n):
            if i == j:
                continue
            actual = 1.0 if keys[i] > keys[j] else 0.5 if keys[i] == keys[j] else 0.0
            total += actual - expected(ratings[i], ratings[j])
        changes.append(k * total / (n - 1))
    return changes


@dataclass(frozen=True)
class Rating:
    """A player's rating in one game and the number of finished games behind it."""

    rating: float = DEFAULT
    games: int = 0


@dataclass(frozen=True)
class Result:
    """One finished game as ratings see it: the player at each seat, scores, winners."""

    players: Sequence[Hashable]
    scores: Sequence[float]
    winners: Sequence[int]


def rate(results: Iterable[Result], k: float = K) -> dict[Hashable, Rating]:
    """Ratings after the `results` of one game, applied in the order given (oldest first)."""
    table: dict[Hashable, Rating] = {}
    for result in results:
        before = [table.get(p, Rating()) for p in result.players]
        changes = game_changes([r.rating for r in before], result.scores, result.winners, k)
        for player, old, change in zip(result.players, before, changes, strict=True):
            table[player] = Rating(old.rating + change, old.games + 1)
    return table
