"""In CI a skipped kiosk test fails the run (tests/conftest.py); elsewhere it may skip."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def run_suite(tmp_path, env_ci: bool) -> subprocess.CompletedProcess:
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    (tmp_path / "test_screen.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.kiosk\n"
        "def test_needs_a_display():\n"
        "    pytest.skip('no display')\n\n"
        "def test_plain():\n"
        "    assert True\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    kiosk: needs a display\n")
    env = {"PATH": "/usr/bin:/bin", "CI": "true"} if env_ci else {"PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)


def test_a_skipped_kiosk_test_fails_in_ci(tmp_path):
    proc = run_suite(tmp_path, env_ci=True)
    assert proc.returncode == 1, proc.stdout
    assert "kiosk test(s) skipped in CI" in proc.stdout


def test_a_skipped_kiosk_test_is_only_a_skip_outside_ci(tmp_path):
    proc = run_suite(tmp_path, env_ci=False)
    assert proc.returncode == 0, proc.stdout
    assert "1 skipped" in proc.stdout
