"""The answer bench's baselines: Claude Code's session resumed by hand, no codedesk, no sandbox.

Each baseline first runs a session to the point where codedesk's job waits for a person (the
same script of the fake model, so the resumed session holds the same turns), then resumes it as
a person would by hand, timed from that spawn to the fake's request that carries what the
resume brings. A session reaches a call it defers only through a `PreToolUse` hook, so every
bare session has the least hook there is: one `sh` script that allows every call but, while the
folder has no `allow` file, defers a `git push` (codedesk's hook is `codedesk hold`).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from common import IDENTITY, git, make_origin
from suspension import PATIENCE, StampedFake, until

from tests.real_agents.fake_anthropic import Step

STREAM = ("--output-format", "stream-json", "--verbose")
HOOK = """#!/bin/sh
input=$(cat)
case "$input" in
  *'git push'*) [ -e "{allow}" ] || {{ echo '{defer}'; exit 0; }} ;;
esac
echo '{allow_json}'
"""


def _decision(verdict: str) -> str:
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": verdict}}
    )


@dataclass
class BareSession:
    """One session run by hand in its own folder: a clone of its own origin, its own config."""

    claude: Path
    fake: StampedFake
    folder: Path
    session_id: str = ""

    @classmethod
    def make(cls, claude: Path, fake: StampedFake, root: Path) -> BareSession:
        folder = Path(tempfile.mkdtemp(prefix="bare-", dir=root))
        for part in ("home", "config"):
            (folder / part).mkdir()
        origin = make_origin(folder / "origin")
        git(folder, "clone", "--quiet", str(origin), "work")
        for option in IDENTITY[1::2]:
            git(folder / "work", "config", *option.split("=", 1))
        hook = folder / "hook.sh"
        hook.write_text(
            HOOK.format(
                allow=folder / "allow",
                defer=_decision("defer"),
                allow_json=_decision("allow"),
            )
        )
        settings = {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": f"sh {hook}"}]}
                ]
            }
        }
        (folder / "settings.json").write_text(json.dumps(settings))
        return cls(claude, fake, folder)

    def env(self) -> dict[str, str]:
        return {
            "PATH": f"{self.claude.parent}:{os.environ['PATH']}",
            "HOME": str(self.folder / "home"),
            "CLAUDE_CONFIG_DIR": str(self.folder / "config"),
            "ANTHROPIC_BASE_URL": self.fake.url,
            "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }

    def argv(self, *words: str) -> list[str]:
        return [
            str(self.claude),
            "-p",
            *STREAM,
            "--settings",
            str(self.folder / "settings.json"),
            *words,
        ]

    async def first(self, steps: list[Step], task: str) -> None:
        """The session until it ends (its last step said, or a call deferred)."""
        self.fake.steps = steps
        ran = await asyncio.create_subprocess_exec(
            *self.argv("--", task),
            cwd=self.folder / "work",
            env=self.env(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        out, _ = await asyncio.wait_for(ran.communicate(), PATIENCE)
        lines = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
        self.session_id = next((line["session_id"] for line in lines if "session_id" in line), "")
        if not self.session_id:
            raise RuntimeError(f"the bare session told no session id: {out.decode()[-1500:]}")

    async def resumed_ms(self, arrived: Callable[[int], float], *prompt: str) -> float:
        """Resume the session (with `prompt`, if any): from the spawn to when `arrived`, given
        the fake's mark before the spawn, sees the request, in ms."""
        mark = self.fake.mark()
        started = time.monotonic()
        words = ("--", *prompt) if prompt else ()
        resumed = await asyncio.create_subprocess_exec(
            *self.argv("--resume", self.session_id, *words),
            cwd=self.folder / "work",
            env=self.env(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            at = await until(lambda: arrived(mark), "the bare resume's request")
        finally:
            await asyncio.wait_for(resumed.wait(), PATIENCE)
        shutil.rmtree(self.folder, ignore_errors=True)
        return float(at - started) * 1000

    def allow_the_deferred_call(self) -> None:
        (self.folder / "allow").touch()


async def message_resume_ms(
    claude: Path,
    fake: StampedFake,
    root: Path,
    steps: list[Step],
    task: str,
    message: str,
    arrived: Callable[[int], float],
) -> float:
    """A session run through `steps`' first turns, resumed with `message` as its prompt."""
    session = BareSession.make(claude, fake, root)
    await session.first(steps, task)
    return await session.resumed_ms(arrived, message)


async def deferred_resume_ms(
    claude: Path,
    fake: StampedFake,
    root: Path,
    steps: list[Step],
    task: str,
    arrived: Callable[[int], float],
) -> float:
    """A session whose `git push` was deferred, resumed with no prompt once its hook allows the
    push: the CLI asks the hook again, runs the push, and sends the model its result."""
    session = BareSession.make(claude, fake, root)
    await session.first(steps, task)
    session.allow_the_deferred_call()
    return await session.resumed_ms(arrived)
