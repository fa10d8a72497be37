"""The club's errors: each says what was wrong with which value."""

from __future__ import annotations

from companion.errors import CompanionError


class ClubError(CompanionError):
    """Anything the club side refuses."""


class NotConfirmable(ClubError, ValueError):
    """A result that cannot be confirmed (not finished, wrong seat, already confirmed)."""


class BadMessage(ClubError, ValueError):
    """A message on the broker that is not one the club sends: refused, never stored."""


class BadAddress(ClubError, ValueError):
    """A HOST:PORT that is not one."""


class BrokerError(ClubError, OSError):
    """Mosquitto cannot be started, reached or configured."""


class BadCorrection(ClubError, ValueError):
    """A director's correction that names no result, or has no reason or wrong scores."""
