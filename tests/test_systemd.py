"""The Pi's kiosk unit: install-pi.sh fills it in for this checkout with the groups this
machine has, and it passes systemd-analyze verify."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "systemd" / "install-pi.sh"


def render(tmp_path: Path, user: str = "root", groups: tuple[str, ...] | None = None) -> str:
    """The unit as `install-pi.sh --print-unit` fills it in; with `groups`, a stub getent
    says only those groups exist."""
    env = {**os.environ, "COMPANION_USER": user}
    if groups is not None:
        stub = tmp_path / "bin"
        stub.mkdir(exist_ok=True)
        known = " ".join(groups)
        (stub / "getent").write_text(f'#!/bin/sh\nfor g in {known}; do [ "$2" = "$g" ] && exit 0; done\n'
                                     "exit 2\n")
        (stub / "getent").chmod(0o755)
        env["PATH"] = f"{stub}{os.pathsep}{env['PATH']}"
    proc = subprocess.run(["bash", str(SCRIPT), "--print-unit"], capture_output=True, text=True,
                          env=env, check=True)
    return proc.stdout


def test_unit_restarts_logs_and_runs_unprivileged(tmp_path):
    unit = render(tmp_path, "pi", ("video", "render", "input", "gpio"))
    assert "@" not in unit.replace("getty@tty1", "")
    assert "Restart=always" in unit and "StandardOutput=journal" in unit
    assert "User=pi" in unit and "SupplementaryGroups=video render input gpio" in unit
    assert f"ExecStart={ROOT}/.venv/bin/companion kiosk --fullscreen --source picamera2 " \
        f"--pins {ROOT}/hardware/default_pins.toml" in unit
    assert "WantedBy=multi-user.target" in unit


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze is not installed")
def test_unit_passes_systemd_analyze_verify(tmp_path):
    if not (ROOT / ".venv" / "bin" / "companion").exists():
        pytest.skip("no .venv/bin/companion to point the unit at")
    path = tmp_path / "table-companion-kiosk.service"
    path.write_text(render(tmp_path))
    proc = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True)
    problems = [line for line in proc.stderr.splitlines() if str(path) in line]
    assert proc.returncode == 0 and not problems, proc.stderr


def test_unit_names_only_the_groups_that_exist(tmp_path):
    # plain Debian has no gpio group; systemd will not start a unit that names a missing one
    unit = render(tmp_path, "pi", ("video", "render", "input"))
    assert "SupplementaryGroups=video render input\n" in unit
    assert "SupplementaryGroups=\n" in render(tmp_path, "pi", ())


def test_install_script_is_valid_bash():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)


def test_install_script_refuses_unknown_options():
    proc = subprocess.run(["bash", str(SCRIPT), "--bogus"], capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown option --bogus" in proc.stderr


def test_no_system_install_without_picamera2_stops_before_touching_anything(tmp_path):
    # a python3 without picamera2: --no-system may not apt-get it, so it stops at once
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "python3").write_text('#!/bin/sh\ncase "$*" in *picamera2*) exit 1;; esac\n'
                                  'exec "$REAL_PYTHON" "$@"\n')
    (stub / "python3").chmod(0o755)
    env = {**os.environ, "PATH": f"{stub}{os.pathsep}{os.environ['PATH']}",
           "REAL_PYTHON": shutil.which("python3") or "/usr/bin/python3"}
    proc = subprocess.run(["bash", str(SCRIPT), "--no-system"], capture_output=True, text=True, env=env)
    assert proc.returncode == 1
    assert "picamera2 is not importable by the system python3, and --no-system forbids apt-get" \
        in proc.stderr
    assert proc.stdout == ""


def test_32_bit_python_is_refused_with_the_reason(tmp_path):
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "python3").write_text('#!/bin/sh\ncase "$*" in *calcsize*) exit 1;; *machine*) echo armv7l;; '
                                  'esac\nexit 0\n')
    (stub / "python3").chmod(0o755)
    env = {**os.environ, "PATH": f"{stub}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, env=env)
    assert proc.returncode == 1
    assert "32-bit Python (armv7l)" in proc.stderr and "64-bit Raspberry Pi OS" in proc.stderr
