"""The runtime: one table wired from its parts, with no toolkit.

`runtime.table.Table` owns the session in play, the camera feed and its source, the
panel, the settings, the corner calibration, deck teaching and the camera calibration.
The kiosk, the demo and the CLI's table commands start a table through it; the kiosk
is a thin bridge from Kivy's properties to it. Recognition runs in a process of its own
(`runtime.vision_process`), with frames passed through shared memory.

Dependencies (DESIGN.md): runtime -> companion.session, vision, hardware; never kiosk.
"""
