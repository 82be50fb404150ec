"""The answer bench's baselines: Claude Code's session resumed by hand, no codedesk, no sandbox.

Each baseline first runs a session to the point where codedesk's job waits for a person (the
same script of the fake model, so the resumed session holds the same turns), then resumes it as
a person would by hand, timed from that spawn to the fake's request that carries what the
resume brings. A session reaches a call it defers only through a `PreToolUse` hook, so every
bare session has the least hook there is: one `sh` script that allows every call but a `git
push`, which it defers while the folder has no `answered` file and, once it has, answers as
codedesk answers an approved push of the job's work (codedesk pushes it itself once the job
has integrated): refused with that reason, so the push runs in neither (codedesk's hook is
`codedesk hold`). A budget's session is stopped by hand while its endless call runs, as codedesk
stops an agent whose work budget is spent: the CLI's process group ended (SIGTERM), then the
call's own gate file made, which ends the loop the CLI left (its shell runs in a session of its
own; codedesk's sandbox ends it with its PID namespace).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from common import IDENTITY, git, make_origin
from suspension import PATIENCE, StampedFake, until

from tests.real_agents.fake_anthropic import Step

STREAM = ("--output-format", "stream-json", "--verbose")
SHIPPED = (
    "Approved: codedesk will ask to push your commits to main once the job integrates. This"
    " command did not run here. Do not push again: commit your work and finish."
)
"""The words of codedesk's answer to an approved push of the job's work, near enough in size."""
HOOK = """#!/bin/sh
input=$(cat)
case "$input" in
  *'git push'*) [ -e "{answered}" ] && echo '{shipped}' || echo '{defer}'; exit 0 ;;
esac
echo '{allow_json}'
"""


STOPPED_AFTER = 1.0
"""Seconds the endless call runs before its session is stopped by hand."""


def _session_id(out: bytes) -> str:
    """The session id Claude Code's stream-json output `out` told."""
    lines = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
    found = next((line["session_id"] for line in lines if "session_id" in line), "")
    if not found:
        raise RuntimeError(f"the bare session told no session id: {out.decode()[-1500:]}")
    return str(found)


def bare_env(claude: Path, url: str, home: Path, config: Path) -> dict[str, str]:
    """The environment of Claude Code run by hand against the fake model at `url`, in its own
    home and config folder, with nothing it would send elsewhere."""
    return {
        "PATH": f"{claude.parent}:{os.environ['PATH']}",
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(config),
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }


def _decision(verdict: str, reason: str = "") -> str:
    said = {"hookEventName": "PreToolUse", "permissionDecision": verdict}
    if reason:
        said["permissionDecisionReason"] = reason
    return json.dumps({"hookSpecificOutput": said})


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
                answered=folder / "answered",
                defer=_decision("defer"),
                shipped=_decision("deny", SHIPPED),
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
        return bare_env(self.claude, self.fake.url, self.folder / "home", self.folder / "config")

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
        ran = await self._spawn(self.argv("--", task), asyncio.subprocess.PIPE)
        out, _ = await asyncio.wait_for(ran.communicate(), PATIENCE)
        self.session_id = _session_id(out)

    async def stopped(self, steps: list[Step], task: str, running: int) -> None:
        """The session until its `running`-th request was answered (the call that runs until
        stopped) and a moment after, then stopped as codedesk stops an agent at its budget."""
        self.fake.steps = steps
        mark = self.fake.mark()
        ran = await self._spawn(self.argv("--", task), asyncio.subprocess.PIPE, alone=True)
        reading = asyncio.create_task(ran.communicate())
        await until(lambda: len(self.fake.since(mark)) >= running, "the endless call")
        await asyncio.sleep(STOPPED_AFTER)
        os.killpg(ran.pid, signal.SIGTERM)
        out, _ = await asyncio.wait_for(reading, PATIENCE)
        self.stop_gate.touch()
        self.session_id = _session_id(out)

    async def resumed_ms(self, arrived: Callable[[int], float], *prompt: str) -> float:
        """Resume the session (with `prompt`, if any): from the spawn to when `arrived`, given
        the fake's mark before the spawn, sees the request, in ms."""
        mark = self.fake.mark()
        started = time.monotonic()
        words = ("--", *prompt) if prompt else ()
        resumed = await self._spawn(
            self.argv("--resume", self.session_id, *words), asyncio.subprocess.DEVNULL
        )
        try:
            at = await until(lambda: arrived(mark), "the bare resume's request")
        finally:
            await asyncio.wait_for(resumed.wait(), PATIENCE)
        shutil.rmtree(self.folder, ignore_errors=True)
        return float(at - started) * 1000

    @property
    def stop_gate(self) -> Path:
        """The file that ends this session's endless call (`stopped`)."""
        return self.folder / "stopped"

    async def _spawn(
        self, argv: list[str], stdout: int, alone: bool = False
    ) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            *argv,
            cwd=self.folder / "work",
            env=self.env(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=stdout,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=alone,
        )

    def answer_the_deferred_call(self) -> None:
        (self.folder / "answered").touch()


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


async def stopped_resume_ms(
    claude: Path,
    fake: StampedFake,
    root: Path,
    script: Callable[[Path], list[Step]],
    running: int,
    task: str,
    message: str,
    arrived: Callable[[int], float],
) -> float:
    """A session stopped while its `running`-th step's endless call runs (the steps
    `script(gate)`, whose call ends once `gate` exists), resumed with `message` as its prompt."""
    session = BareSession.make(claude, fake, root)
    await session.stopped(script(session.stop_gate), task, running)
    return await session.resumed_ms(arrived, message)


async def deferred_resume_ms(
    claude: Path,
    fake: StampedFake,
    root: Path,
    steps: list[Step],
    task: str,
    arrived: Callable[[int], float],
) -> float:
    """A session whose `git push` was deferred, resumed with no prompt once its hook has the
    answer: the CLI asks the hook again and sends the model the answer as the call's result."""
    session = BareSession.make(claude, fake, root)
    await session.first(steps, task)
    session.answer_the_deferred_call()
    return await session.resumed_ms(arrived)
