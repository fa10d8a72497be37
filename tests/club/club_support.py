"""Helpers the club tests share (a module of its own: tests/conftest.py is also a
`conftest`, so `from conftest import ...` would find the wrong one in a whole run)."""

from __future__ import annotations

import os

import pytest

IN_CI = bool(os.environ.get("CI"))
HUB_PASSWORD = "hub-secret"
DIRECTOR_PASSWORD = "director-secret"
TABLES = 6


def need(ok: bool, why: str) -> None:
    """Skip without a system part on a developer's machine; in CI (make test installs them)
    a missing part fails the run instead of passing it unseen."""
    if not ok:
        (pytest.fail if IN_CI else pytest.skip)(why)


def table_password(name: str) -> str:
    return f"pw-{name}"
