"""`companion panel test`: a dry run on mock pins, and one-line errors with status 2."""

from __future__ import annotations

import os
import subprocess
import sys

from gpiozero import Device
from gpiozero.exc import BadPinFactory

from companion.cli import main

TABLE = "[table]\nconfirm = 12\nundo = 16\nmenu = 20\nstatus_green = 8\nstatus_red = 7\n"


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    environ = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    environ.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True,
                          timeout=60, env=environ)
    return proc.returncode, proc.stdout, proc.stderr


def test_mock_dry_run_lights_every_output_and_presses_every_button():
    code, out, err = run("panel", "test", "--mock", "--step", "0")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "Pin map default_pins.toml: 5 seats, 18 buttons (mock pins: a dry run)"
    assert "  seat 1 LED      GPIO 14 (pin 8)    on" in lines
    assert "  buzzer          GPIO 18 (pin 12)   beep" in lines
    assert "  seat 5 button 3 GPIO 21 (pin 40)" in lines and "  menu button     GPIO 20 (pin 38)" in lines
    assert lines[-1] == "18 of 18 buttons pressed: all of them work"


def test_a_bad_pin_map_is_one_line_naming_the_line(tmp_path):
    path = tmp_path / "pins.toml"
    path.write_text("[[seat]]\nbuttons = [2, 3]\nled = 3\n" + TABLE)
    code, out, err = run("panel", "test", "--mock", "--pins", str(path))
    assert code == 2 and out == ""
    assert err == ("companion: error: pins.toml, line 3: GPIO 3 is used twice: by seat 1 button 2 "
                   "(line 2) and by seat 1 LED\n")


def test_a_pin_map_of_its_own_and_listening_for_a_while(tmp_path, capsys):
    path = tmp_path / "two.toml"
    path.write_text("[[seat]]\nbuttons = [2, 3]\nled = 14\n[[seat]]\nbuttons = [4]\nled = 15\n" + TABLE)
    assert main(["panel", "test", "--mock", "--pins", str(path), "--step", "0", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Pin map two.toml: 2 seats, 6 buttons (mock pins: a dry run)"
    assert "Press each button for 0.05 s (Ctrl-C to stop):" in out
    assert "0 of 6 buttons pressed; never pressed:" in out and out[-1] == "  menu button     GPIO 20 (pin 38)"


def test_no_gpio_says_how_to_try_it_without(monkeypatch, capsys):
    def no_driver():
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(no_driver))
    assert main(["panel", "test", "--step", "0", "--seconds", "0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ("companion: error: no GPIO found on this machine (not a Raspberry Pi, or "
                            "gpiozero has no pin driver such as lgpio); for a dry run: companion panel "
                            "test --mock, or set GPIOZERO_PIN_FACTORY=mock\n")


def test_an_unknown_pin_factory_name_is_one_line():
    code, out, err = run("panel", "test", "--step", "0", env={"GPIOZERO_PIN_FACTORY": "nosuch"})
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("companion: error: GPIOZERO_PIN_FACTORY='nosuch' names no pin driver")


def test_bad_seconds_is_a_usage_error(capsys):
    assert main(["panel", "test", "--seconds", "soon"]) == 2
    assert capsys.readouterr().err == ("companion: error: companion panel test: argument --seconds: "
                                       "a number of seconds, got 'soon'\n")
