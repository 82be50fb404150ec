"""A real headless Chromium driven over the DevTools protocol, to look at the Temporal UI.

`chromium-headless-shell` (Debian's package; `.ci/run` installs it as root) opens a page; the
test waits until the page's text says what it expects (the UI is a single-page app that
fetches after loading, and a running workflow's page keeps a long poll open, so "the page
loaded" means nothing) and then takes a screenshot. aiohttp, which discord.py brings, speaks
the protocol's WebSocket.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp

from tests.helpers.waiting import PATIENCE

BROWSERS = ("chromium-headless-shell", "chromium", "google-chrome")


def browser_program() -> str | None:
    """The first headless-capable Chromium on PATH, or None."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


class Page:
    """One browser tab: go to a URL, read its text, click by text, take a screenshot."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self._socket = socket
        self._ids = itertools.count(1)

    async def _call(self, method: str, **params: Any) -> dict[str, Any]:
        call_id = next(self._ids)
        await self._socket.send_str(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            message = json.loads((await self._socket.receive()).data)
            if message.get("id") != call_id:
                continue
            if "error" in message:
                raise AssertionError(f"{method} failed: {message['error']}")
            result: dict[str, Any] = message["result"]
            return result

    async def go(self, url: str) -> None:
        await self._call("Page.navigate", url=url)

    async def evaluate(self, expression: str) -> Any:
        answer = await self._call("Runtime.evaluate", expression=expression, returnByValue=True)
        return answer["result"].get("value")

    async def text(self) -> str:
        said = await self.evaluate("document.body ? document.body.innerText : ''")
        return str(said or "")

    async def frames_text(self) -> str:
        """The text of the page and of its same-origin frames (the UI renders markdown in one)."""
        said = await self.evaluate(
            "[document.body ? document.body.innerText : ''].concat("
            "Array.from(document.querySelectorAll('iframe')).map(f => "
            "(f.contentDocument && f.contentDocument.body) ? f.contentDocument.body.innerText : ''"
            ")).join('\\n')"
        )
        return str(said or "")

    async def wait_for_text(self, *wanted: str) -> str:
        """The page's text once it holds every one of `wanted` (fails after PATIENCE)."""
        return await self._wait_for(self.text, wanted)

    async def wait_for_frames_text(self, *wanted: str) -> str:
        """Like `wait_for_text`, counting the page's frames' text too."""
        return await self._wait_for(self.frames_text, wanted)

    async def _wait_for(self, read: Callable[[], Awaitable[str]], wanted: tuple[str, ...]) -> str:
        deadline = time.monotonic() + PATIENCE  # a safety net against a hang, not a measure
        while True:
            said = await read()
            if all(part in said for part in wanted):
                return said
            if time.monotonic() > deadline:
                missing = [part for part in wanted if part not in said]
                raise AssertionError(f"the page never showed {missing}; it said:\n{said[:3000]}")
            await asyncio.sleep(0.2)

    async def click(self, label: str) -> None:
        """Click the first link or button whose text is `label` (fails if there is none)."""
        clicked = await self.evaluate(
            "(() => { const hit = Array.from(document.querySelectorAll('a, button'))"
            f".find(e => e.innerText.trim() === {json.dumps(label)});"
            " if (hit) { hit.click(); } return Boolean(hit); })()"
        )
        if not clicked:
            raise AssertionError(f"no link or button says {label!r}:\n{(await self.text())[:3000]}")

    async def screenshot(self, path: Path) -> Path:
        shot = await self._call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))
        return path


@asynccontextmanager
async def browser_page(
    program: str, profile: Path, width: int = 1400, height: int = 900
) -> AsyncIterator[Page]:
    """A tab of a fresh headless Chromium (its own profile folder), closed on the way out."""
    profile.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [
            program,
            "--no-sandbox",  # the test's own throwaway browser, on a page it serves itself
            "--disable-gpu",
            f"--window-size={width},{height}",
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # Debian's program is a shell script that runs the browser as its child: only ending
        # the whole group ends the browser too.
        start_new_session=True,
    )
    try:
        port = await _debugging_port(profile / "DevToolsActivePort", process)
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as listed:
                targets = await listed.json()
            page_url = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
            async with session.ws_connect(page_url, max_msg_size=0) as socket:
                yield Page(socket)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


async def _debugging_port(announced: Path, process: subprocess.Popen[bytes]) -> int:
    deadline = time.monotonic() + PATIENCE  # a safety net against a hang, not a measure
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the browser exited with {process.returncode} before it listened")
        lines = announced.read_text().split() if announced.exists() else []
        if lines:
            return int(lines[0])
        await asyncio.sleep(0.05)
    raise AssertionError(f"the browser never wrote {announced}")
