"""The Pi's kiosk unit: it renders for this checkout and passes systemd-analyze verify."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "systemd" / "table-companion-kiosk.service.in"


def render(prefix: Path, user: str = "root") -> str:
    return TEMPLATE.read_text().replace("@PREFIX@", str(prefix)).replace("@USER@", user)


def test_unit_restarts_logs_and_runs_unprivileged():
    unit = render(ROOT, "pi")
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
    path.write_text(render(ROOT))
    proc = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True)
    problems = [line for line in proc.stderr.splitlines() if str(path) in line]
    assert proc.returncode == 0 and not problems, proc.stderr


def test_install_script_is_valid_bash():
    subprocess.run(["bash", "-n", str(ROOT / "systemd" / "install-pi.sh")], check=True)
