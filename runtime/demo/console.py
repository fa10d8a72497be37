"""The headless demo's voice: every verdict as it happens and a progress bar over the game.

On a terminal the bar is one line redrawn in place with a carriage return, and every
verdict is printed above it. Into a pipe or a file (a CI log, the README) there is no
redrawing: verdicts are plain lines and the bar is printed as its own line each time
another tenth of the game is done.
"""

from __future__ import annotations

import sys
from typing import TextIO

BAR_WIDTH = 20


def bar(done: int, total: int, width: int = BAR_WIDTH) -> str:
    """`[#####...............] 12/48 events`."""
    total = max(total, 1)
    done = min(max(done, 0), total)
    filled = round(width * done / total)
    return f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} events"


class Console:
    """Prints the demo as it goes. `tty` None: ask the stream."""

    def __init__(self, stream: TextIO | None = None, tty: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty and isatty())
        self.tty = tty
        self._bar = ""
        self._tenth = -1

    def line(self, text: str) -> None:
        """One line of output, above the bar on a terminal."""
        if self.tty and self._bar:
            self.stream.write("\r\x1b[K")
        self.stream.write(text + "\n")
        if self.tty and self._bar:
            self.stream.write(self._bar)
        self.stream.flush()

    def progress(self, done: int, total: int) -> None:
        """Show how far the game is."""
        text = bar(done, total)
        if self.tty:
            if text != self._bar:
                self._bar = text
                self.stream.write("\r\x1b[K" + text)
                self.stream.flush()
            return
        tenth = (10 * done) // max(total, 1)
        if tenth != self._tenth:
            self._tenth = tenth
            self.stream.write(text + "\n")
            self.stream.flush()

    def close(self) -> None:
        """Leave the bar where it is and end its line (terminal only)."""
        if self.tty and self._bar:
            self.stream.write("\n")
            self.stream.flush()
            self._bar = ""


def step_line(number: int, source: str, text: str) -> str:
    """One verdict as the demo prints it: `  12 camera  Seat 1 plays the Master of Thought.`"""
    return f"{number:>4} {source:<6}  {text}"


def scores_words(names: list[str] | tuple[str, ...], scores: list[int | float]) -> str:
    """`seat 1 (Ada) 7, seat 2 (Bo) 4, seat 3 (Cy) 2` (seats as people count them)."""
    return ", ".join(f"seat {i} ({n}) {s}"
                     for i, (n, s) in enumerate(zip(names, scores, strict=True), start=1))
