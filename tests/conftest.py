"""Suite-wide rules: in CI a skipped kiosk test is a failure, not a pass."""

from __future__ import annotations

import os

import pytest

_skipped_kiosk: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and "kiosk" in report.keywords:
        _skipped_kiosk.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("CI") and _skipped_kiosk:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if os.environ.get("CI") and _skipped_kiosk:
        terminalreporter.write_line(
            f"FAILED: {len(_skipped_kiosk)} kiosk test(s) skipped in CI; they must run: "
            + ", ".join(_skipped_kiosk), red=True)
