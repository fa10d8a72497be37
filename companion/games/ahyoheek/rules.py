"""Ahyoheek's rules: pen, page, beetle, picked in secret, for 2 to 5 players.

Reading (RULINGS, docs/games/ahyoheek.md): the worked five-player example fixes the
cycle beetle > pen > page > beetle; the one-line summary's cycle is the house rule
`cycle="summary"`. Every pair is compared (+1 / -1 / 0); the players with the top
round score win one of what they played, nobody when all score 0. The match ends
after a round in which someone holds three of one item; ties go to the most items,
then to sudden-death rounds among the tied players only, which award no items and
end when one of them wins a round alone.
"""

from __future__ import annotations

from collections.abc import Sequence

PICKS = ("pen", "page", "beetle")
# key beats value
BEATS = {
    "example": {"beetle": "pen", "pen": "page", "page": "beetle"},
    "summary": {"pen": "beetle", "beetle": "page", "page": "pen"},
}
GOAL = 3


def round_scores(picks: Sequence[str | None], cycle: str = "example") -> list[int]:
    """Pairwise round points; a seat whose pick is None is not playing and scores 0."""
    beats = BEATS[cycle]
    scores = [0] * len(picks)
    for i, a in enumerate(picks):
        for j, b in enumerate(picks):
            if i == j or a is None or b is None:
                continue
            if beats[a] == b:
                scores[i] += 1
            elif beats[b] == a:
                scores[i] -= 1
    return scores


def round_winners(picks: Sequence[str | None], scores: Sequence[int]) -> list[int]:
    """The playing seats with the highest score; nobody when every player scores 0."""
    playing = [i for i, p in enumerate(picks) if p is not None]
    if all(scores[i] == 0 for i in playing):
        return []
    best = max(scores[i] for i in playing)
    return [i for i in playing if scores[i] == best]

