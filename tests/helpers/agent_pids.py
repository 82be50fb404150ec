"""Finding scripted agents from outside their sandbox: host pids by a tag, marks in job logs.

A sandboxed agent runs in a PID namespace of its own, so a pid it reports is not the host's,
and it can write nothing outside its worktree. The host still sees its command line in /proc,
and the worker writes everything the agent prints into the job's agent log: tests find an
agent and the order agents ran in through those, the same confined or not.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

from tests.helpers.cli_helpers import pid_dead
from tests.helpers.programs.scripted_agent import GRANDCHILD
from tests.helpers.waiting import until

SCRIPTED_AGENT = str(Path(__file__).parent / "programs" / "scripted_agent.py")
MARK_LINE = re.compile(r"^scripted agent: mark (run (\d+) interrupted=\d) at (\d+)$", re.MULTILINE)


def agent_tag(folder: Path | None = None) -> str:
    """A step that prints a fresh uuid, or one made from `folder` (a test's own tmp_path, for
    helpers that know only that): it makes one test's agents findable by `agent_pids`."""
    if folder is None:
        return f"say:agent-{uuid.uuid4().hex}"
    return f"say:agent-{uuid.uuid5(uuid.NAMESPACE_URL, str(folder.resolve())).hex}"


def job_runs(home: Path, number: int) -> list[str]:
    """The `mark` lines of job `number`'s agents (see `logged_runs`)."""
    return [run for run in logged_runs(home) if run.split()[1] == str(number)]


def live_commands() -> Iterator[tuple[int, list[str]]]:
    """Every live process on the host with its command line."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if not pid_dead(int(entry.name)):
            yield int(entry.name), [word.decode(errors="replace") for word in argv]


def agent_pids(tag: str) -> list[int]:
    """Host pids of live scripted agents whose steps include `tag`: the agent's own process (the
    python running tests/helpers/programs/scripted_agent.py), never the sandbox or gate around
    it."""
    return sorted(
        pid
        for pid, words in live_commands()
        if len(words) > 2 and words[1] == SCRIPTED_AGENT and tag in words[2:]
    )


def grandchild_pids(tag: str) -> list[int]:
    """Host pids of live grandchildren (`grandchild:` steps) of the agents with `tag`."""
    return sorted(
        pid
        for pid, words in live_commands()
        if len(words) > 4 and words[1] == "-c" and words[3] == GRANDCHILD and tag in words[4:]
    )


def tagged_pids(tag: str) -> list[int]:
    """Every live process with `tag` in its command line: the agents, their grandchildren and
    the sandboxes around them. None left: the whole tree is gone."""
    return sorted(pid for pid, words in live_commands() if tag in words)


def agent_pid(tag: str) -> int | None:
    """The one live agent with `tag`, or None; two at once are a failure of their own."""
    pids = agent_pids(tag)
    assert len(pids) <= 1, f"two agents with {tag!r} at once: {pids}"
    return pids[0] if pids else None


def logged_runs(*homes: Path) -> list[str]:
    """The scripted agents' `mark` lines ("run <job> interrupted=<0|1>") in the order they
    ran, read from the agent logs of every job under `homes` (each carries the host's
    monotonic clock)."""
    stamped = []
    for home in homes:
        for log in sorted(home.glob("jobs/*/agent.log")):
            text = log.read_text(errors="replace")
            stamped += [(int(at), run) for run, _, at in MARK_LINE.findall(text)]
    return [run for _, run in sorted(stamped)]


def logged_marks(*homes: Path) -> list[int]:
    """Job numbers in the order the scripted agents' `mark` steps ran (see `logged_runs`)."""
    return [int(run.split()[1]) for run in logged_runs(*homes)]


def agent_said(home: Path, number: int, text: str) -> bool:
    """Whether job `number`'s agent (of the desk at `home`) printed a line holding `text`:
    how a test learns, also from a sandboxed agent, that it got to a step."""
    log = home / "jobs" / str(number) / "agent.log"
    try:
        return any(text in line for line in log.read_text(errors="replace").splitlines())
    except OSError:
        return False


async def running_agent(home: Path, number: int, tag: str) -> int:
    """The host pid of job `number`'s agent once it printed its `tag` step (and the worker
    logged it): the test knows the agent got that far, as a pid file written there told."""
    said = tag.removeprefix("say:")
    await until(lambda: agent_said(home, number, said), f"job {number}'s agent at {said}")
    pid: int = await until(lambda: agent_pid(tag), f"job {number}'s agent on the host")
    return pid


def codedesk_environment(pid: int) -> dict[str, str]:
    """The CODEDESK_* variables process `pid` runs with, as the kernel has them (what the
    scripted agent's `env:` step writes, read from outside: a sandboxed agent cannot write
    a file for the test)."""
    entries = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    pairs = (entry.decode(errors="replace").partition("=") for entry in entries if entry)
    return {name: value for name, _, value in pairs if name.startswith("CODEDESK_")}


def job_processes(worktree: str) -> list[int]:
    """Live processes whose environment holds the job's worktree (the agent and its tree)."""
    mark = f"CODEDESK_WORKTREE={worktree}\0".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if mark in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found
