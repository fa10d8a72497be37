"""Argument types shared by several commands (argparse reports a bad value in one line)."""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

from companion.errors import CompanionError

SEED_HELP = "random seed, a whole number 0 or more"


class BadInputFile(CompanionError, ValueError):
    """An input path that is missing or is not a regular file (a folder, /dev/zero)."""


def regular_file(text: str, what: str) -> Path:
    """An input file that exists and is a regular file: a device such as /dev/zero would
    be read for ever, a folder cannot be read at all."""
    path = Path(text).expanduser()
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise BadInputFile(f"cannot read the {what} {text!r}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise BadInputFile(f"the {what} {text!r} is not a regular file")
    return path


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
