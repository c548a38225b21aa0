"""A small client of the Chrome DevTools Protocol over ``--remote-debugging-pipe``: the standard library only.

Chromium started with ``--remote-debugging-pipe`` reads the protocol's JSON messages, each
ended by a NUL byte, on its file descriptor 3 and writes its own on 4: two pipes, no
WebSocket, no port. ``Browser`` starts headless Chromium so, opens a page, and sends
commands to it (``call``), each awaited by its id with a deadline; events are skipped.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

__all__ = ["Browser", "CDPError", "find_chromium"]


class CDPError(RuntimeError):
    """The browser answered a command with an error, closed the pipe, or took too long."""


def find_chromium() -> str | None:
    """Debian's ``chromium`` (or ``chromium-browser``, ``google-chrome``), or ``$TICKSWAP_CHROMIUM``; else ``None``."""
    given = os.environ.get("TICKSWAP_CHROMIUM")
    if given:
        return given
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """Headless Chromium with one page, driven through the DevTools protocol over its pipe."""

    def __init__(self, chromium: str, width: int = 800, height: int = 600) -> None:
        self.profile = tempfile.mkdtemp(prefix="tickswap-chromium-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def descriptors() -> None:  # in the child, before exec: the pipe ends at 3 and 4, inherited
            os.dup2(to_browser_read, 3)
            os.dup2(from_browser_write, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--no-first-run",
             "--no-default-browser-check", "--mute-audio", "--disable-extensions", "--disable-background-networking",
             "--disable-gpu", f"--window-size={width},{height}", f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, close_fds=False,
            preexec_fn=descriptors)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self.session: str | None = None

    def _send(self, message: dict[str, Any]) -> None:
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("the browser did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise CDPError("the browser closed its pipe (it exited)")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60.0,
             session: bool = True) -> dict[str, Any]:
        """Send ``method`` (to the page's session unless ``session=False``) and return its result."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session is not None:
            message["sessionId"] = self.session
        self._send(message)
        deadline = time.monotonic() + timeout
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise CDPError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def open(self, url: str) -> None:
        """Open ``url`` in a new page and attach to it (later calls go to it)."""
        target = self.call("Target.createTarget", {"url": url}, session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]

    def evaluate(self, expression: str, timeout: float = 60.0) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited), as JSON gives it.

        Asked again while the page is still replacing about:blank (its first context destroyed)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                        "returnByValue": True, "timeout": int(timeout * 1000)},
                                   timeout=timeout + 5)
                break
            except CDPError as error:
                if "context" not in str(error) or time.monotonic() > deadline:
                    raise
        if "exceptionDetails" in result:
            raise CDPError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def key(self, kind: str, code: str, key: str, virtual: int) -> None:
        """One key event through the browser's input pipeline (as a keyboard's): ``kind`` keyDown or keyUp."""
        self.call("Input.dispatchKeyEvent", {"type": kind, "code": code, "key": key,
                                             "windowsVirtualKeyCode": virtual, "nativeVirtualKeyCode": virtual})

    def close(self) -> None:
        """Close the browser (by its pid: the process this object started) and its profile."""
        try:
            self._send({"id": 0, "method": "Browser.close", "params": {}})
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        finally:
            os.close(self._to_browser)
            os.close(self._from_browser)
            shutil.rmtree(self.profile, ignore_errors=True)
