"""Argument types shared by several commands (argparse reports a bad value in one line)."""

from __future__ import annotations

import argparse

SEED_HELP = "random seed, a whole number 0 or more"


def seed(text: str) -> int:
    """A random seed: a whole number 0 or more. Python's random.Random(-n) plays the game
    of n, so a negative seed would silently repeat its positive twin: it is refused."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number 0 or more, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is 0 or more, got {text!r} (a negative seed "
                                         f"would play the same game as {-value})")
    return value
