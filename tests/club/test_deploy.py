"""The hub's systemd units pass systemd-analyze verify; the ACL keeps tables to their topics."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from club.broker import ACL, mosquitto_conf

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze is not installed")
@pytest.mark.parametrize("name", ["club-broker.service", "club-hub.service.in"])
def test_units_pass_systemd_analyze_verify(name, tmp_path):
    text = (ROOT / "club" / "deploy" / name).read_text()
    text = text.replace("@PREFIX@", str(ROOT)).replace("@USER@", "root")
    if "companion club serve" in text and not (ROOT / ".venv" / "bin" / "companion").exists():
        pytest.skip("no .venv/bin/companion to point the unit at")
    path = tmp_path / name.removesuffix(".in")
    path.write_text(text)
    proc = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True)
    problems = [line for line in proc.stderr.splitlines() if str(path) in line]
    assert not problems, proc.stderr


def test_the_acl_lets_a_table_write_only_its_own_topics_and_tls_is_one_option_away(tmp_path):
    writes = [line for line in ACL.splitlines() if line.startswith("pattern write")]
    assert writes and all("club/%u/" in line for line in writes)
    conf = mosquitto_conf(tmp_path, 8883, tls={"certfile": "/c.pem", "keyfile": "/k.pem"})
    assert "allow_anonymous false" in conf and "certfile /c.pem" in conf and "listener 8883" in conf
