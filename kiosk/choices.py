"""The touch menus the play screen lays out: the types of `companion.menus`, where they
are computed from the session's state (the kiosk never reads an engine itself)."""

from __future__ import annotations

from companion.menus import Choice, Count, Menu

__all__ = ["Choice", "Count", "Menu"]
