"""A real headless Chromium (Debian's `chromium`) driven through the DevTools protocol over
a pipe (--remote-debugging-pipe: JSON messages ending in NUL on fds 3 and 4), so the
page runs its own JavaScript against the live hub, server-sent events and all."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe")


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    def __init__(self, profile: str, exe: str) -> None:
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_chrome_r, from_chrome_w)]

        def fds() -> None:
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)
        self.proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                     preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        for fd in (to_chrome_r, from_chrome_w, *high):
            os.close(fd)
        self._buffer = b""
        self._id = 0

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float = 20.0) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, _, self._buffer = self._buffer.partition(b"\0")
                reply = json.loads(raw)
                if reply.get("id") == self._id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"Chromium did not answer {method} within {timeout:g} s")
            ready, _, _ = select.select([self._from_chrome], [], [], left)
            if ready:
                chunk = os.read(self._from_chrome, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe")
                self._buffer += chunk

    def open(self, url: str, width: int = 1280, height: int = 800, mobile: bool = False) -> str:
        """A new page at `url`, `width` x `height` CSS pixels; returns its session id."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                         "deviceScaleFactor": 1, "mobile": mobile},
                  session)
        self.call("Page.navigate", {"url": url}, session)
        return session

    def evaluate(self, session: str, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                           session)
        return result["result"].get("value")

    def wait_for(self, session: str, expression: str, timeout: float) -> Any:
        """Evaluate `expression` until it is truthy; its value, or TimeoutError."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(session, expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page never made {expression!r} true within {timeout:g} s")
            time.sleep(0.05)  # between two polls of a condition, bounded by the deadline above

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.call("Browser.close", timeout=5)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        os.close(self._to_chrome)
        os.close(self._from_chrome)
