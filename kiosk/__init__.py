"""The Kivy touchscreen app (issue #11): home, setup, play, history, rules and settings
screens, one .kv file each, bound to the session's view model (docs/kiosk.md).

Importing this package does not import Kivy, so `companion --help` stays fast. Call
`kiosk.boot.configure()` before anything imports Kivy's window, then build
`kiosk.app.CompanionApp`.
"""

from __future__ import annotations

from kiosk.boot import SCREEN_SIZE, KivyAlreadyStarted, configure

__all__ = ["SCREEN_SIZE", "KivyAlreadyStarted", "configure"]
