"""The project's errors.

Every error subclasses `CompanionError` and the fitting built-in, so callers can
catch either (gpiozero's pattern). Messages name the bad value and what was wrong.
"""


class CompanionError(Exception):
    """Base of every error this project raises on purpose."""


class UnknownCard(CompanionError, ValueError):
    """A card name or code that is not in the deck."""


class UnknownSuit(CompanionError, ValueError):
    """A suit name or letter that is not a suit of the game's deck."""


class UnknownDeck(CompanionError, ValueError):
    """A deck name that is not registered."""


class UnknownGame(CompanionError, ValueError):
    """A game name that is not registered."""


class BadOption(CompanionError, ValueError):
    """A game option with a wrong name, type or value."""


class IllegalAction(CompanionError, ValueError):
    """An action the rules do not allow in this state; the message says why."""


class BadLog(CompanionError, ValueError):
    """An event log line that cannot be read or replayed; the message names the line."""
