"""`companion panel test`: check the wiring of the buttons and LEDs on a real Pi.

Lights each LED in turn (and beeps the buzzer), printing which part on which pin, then
prints each button as it is pressed until Ctrl-C or --seconds, and ends with the buttons
that were never pressed. `--mock` runs on gpiozero's MockFactory: a dry run that also
presses every button once by itself. The hardware package is imported only when the
command runs, so `companion --help` stays quick.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

from companion.commands._args import regular_file


def _say(text: str) -> None:
    print(text)
    sys.stdout.flush()


def test(args: argparse.Namespace) -> int:
    from hardware.panel import NoGPIO, Panel
    from hardware.pinmap import default_pinmap, load_pinmap

    pinmap = load_pinmap(regular_file(args.pins, "pin map")) if args.pins else default_pinmap()
    factory = None
    if args.mock:
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
    with warnings.catch_warnings():  # gpiozero warns once per driver it cannot load
        warnings.simplefilter("ignore")
        try:
            panel = Panel(pinmap, pin_factory=factory)
        except NoGPIO:
            if os.environ.get("GPIOZERO_PIN_FACTORY"):
                raise
            raise NoGPIO("no GPIO found on this machine (not a Raspberry Pi, or gpiozero has no pin "
                         "driver such as lgpio); for a dry run: companion panel test --mock, or "
                         "set GPIOZERO_PIN_FACTORY=mock") from None
    with panel:
        seats = len(pinmap.seats)
        _say(f"Pin map {pinmap.source}: {seats} seats, {sum(1 for _ in panel.buttons())} buttons"
             + (" (mock pins: a dry run)" if args.mock else ""))
        _say("Outputs, one at a time:")
        for part, device in panel.outputs():
            _say(f"  {part.name:<15} {part.where:<18} {'beep' if part.role == 'buzzer' else 'on'}")
            device.on()
            time.sleep(args.step)
            device.off()
        pressed: set[str] = set()
        parts = {event: part for event, part, _ in panel.buttons()}

        def show(event) -> None:
            part = parts[event]
            pressed.add(part.name)
            _say(f"  {part.name:<15} {part.where}")

        if args.mock and args.seconds is None:
            _say("Buttons (mock pins: each pressed once):")
            for _event, _part, button in panel.buttons():
                button.pin.drive_low()
                button.pin.drive_high()
                for got in panel.drain():
                    show(got)
        else:
            limit = "" if args.seconds is None else f" for {args.seconds:g} s"
            _say(f"Press each button{limit} (Ctrl-C to stop):")
            end = None if args.seconds is None else time.monotonic() + args.seconds
            try:
                while end is None or time.monotonic() < end:
                    wait = 0.2 if end is None else max(0.0, min(0.2, end - time.monotonic()))
                    event = panel.get_event(timeout=wait)
                    if event is not None:
                        show(event)
            except KeyboardInterrupt:
                _say("")
        missing = [part for part in parts.values() if part.name not in pressed]
        _say(f"{len(pressed)} of {len(parts)} buttons pressed"
             + ("; never pressed:" if missing else ": all of them work"))
        for part in missing:
            _say(f"  {part.name:<15} {part.where}")
    return 0


def _seconds(text: str) -> float:
    """A number of seconds for --seconds and --step (argparse reports a bad one)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of seconds, got {text!r}") from None
    if not 0 <= value <= 86400:
        raise argparse.ArgumentTypeError(f"0 to 86400 seconds, got {text!r}")
    return value


def register(cli) -> None:
    p = cli.group("panel", "check the buttons and LEDs").add_parser(
        "test", help="light each LED in turn, then print each button as it is pressed",
        description="Light each LED in turn (and beep the buzzer), then print each button as it "
                    "is pressed, until Ctrl-C or --seconds: for checking the wiring on a real Pi "
                    "(docs/hardware.md).")
    p.set_defaults(func=test)
    p.add_argument("--pins", metavar="FILE", help="the TOML pin map (default: the built-in map, "
                                                  "hardware/default_pins.toml)")
    p.add_argument("--seconds", type=_seconds, metavar="N",
                   help="stop listening to the buttons after N seconds (default: until Ctrl-C)")
    p.add_argument("--step", type=_seconds, default=0.5, metavar="S",
                   help="how long each LED stays lit (default 0.5)")
    p.add_argument("--mock", action="store_true",
                   help="use gpiozero's mock pins instead of the GPIO: a dry run that presses "
                        "every button once (with --seconds: listens, and nobody presses)")
