#!/usr/bin/env python3
"""A hostile but hold-abiding agent: tries what issue 11 says it must not manage, then does an
ordinary edit and commit. Usage: ``python tests/helpers/programs/hostile_agent.py PLAN_JSON``.

PLAN_JSON names what the agent is assumed to know (the worst case: it read our README and
guessed the rest): `outside` (a file to create), `secrets` (files to steal), `clone`, `origin`,
`approval`, `address`, `namespace`, `owner`, `fetch` (a URL the egress proxy allows), and
optionally `only` (the attacks to try, by name; all when absent) and `pause` (after the attacks
it writes `attacked` in its worktree and waits until that file is gone, so a test can look at
the clone while the agent still runs). Each attempt prints one line
`attack NAME: ...`; the tests check every effect from the outside, never by trusting these lines.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

GIT = ["git", "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false"]
IDENTITY = {
    "GIT_AUTHOR_NAME": "Hostile",
    "GIT_AUTHOR_EMAIL": "hostile@codedesk.invalid",
    "GIT_COMMITTER_NAME": "Hostile",
    "GIT_COMMITTER_EMAIL": "hostile@codedesk.invalid",
}


ONLY: set[str] = set()
"""The attacks to try (empty: all of them)."""


def report(name: str, outcome: str) -> None:
    print(f"attack {name}: {outcome.strip()[:300]}", flush=True)


def attempt(name: str, action: object) -> None:
    if ONLY and name not in ONLY:
        return
    try:
        result = action() if callable(action) else action
        report(name, f"done {result if result is not None else ''}")
    except Exception as error:  # every failure is the point: say it and go on
        report(name, f"failed: {type(error).__name__}: {error}")


def run(*argv: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        argv, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=60
    )
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {done.stderr or done.stdout}")
    return done.stdout


def steal(secrets: list[str]) -> None:
    for index, path in enumerate(secrets):

        def read(path: str = path, index: int = index) -> str:
            text = Path(path).read_text()
            Path(f"stolen-{index}.txt").write_text(text)
            print(text, flush=True)
            return "stolen"

        attempt("read secrets", read)


def direct_temporal(plan: dict[str, Any]) -> str:
    from temporalio.client import Client
    from temporalio.contrib.pydantic import pydantic_data_converter

    from desk.holds.approvals import Decision, Principal
    from surfaces.clients.approval_client import ApprovalsClient

    async def answer() -> str:
        client = await asyncio.wait_for(
            Client.connect(
                plan["address"],
                namespace=plan["namespace"],
                data_converter=pydantic_data_converter,
            ),
            timeout=10,
        )
        by = Principal(id=plan["owner"], name="owner")
        result, _ = await ApprovalsClient(client).answer(plan["approval"], Decision.APPROVE, by)
        return f"counted={result.counted}"

    return asyncio.run(answer())


def tcp_connect(address: str) -> str:
    host, _, port = address.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=10):
        return "connected"


def proxy_connect(address: str) -> str:
    """CONNECT to `address` through the proxy the environment names; only a 200 is success."""
    proxy = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
    with socket.create_connection((proxy.hostname, proxy.port), timeout=10) as conn:
        conn.sendall(f"CONNECT {address} HTTP/1.1\r\nHost: {address}\r\n\r\n".encode())
        status = conn.recv(4096).decode(errors="replace").splitlines()[0]
    if " 200 " not in f"{status} ":
        raise RuntimeError(status)
    return status


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read().decode().strip()


def main(plan: dict[str, Any]) -> int:
    ONLY.update(plan.get("only", []))
    clone = Path(plan["clone"])
    attempt("write outside", lambda: Path(plan["outside"]).write_text("pwned\n"))
    steal(plan["secrets"])
    attempt("write the clone's config", lambda: _append(clone / ".git" / "config"))
    attempt("write the clone's files", lambda: (clone / "README.md").write_text("pwned\n"))
    attempt("write the clone's main ref", lambda: _overwrite(clone / ".git/refs/heads/main"))
    # A commit of its own that no branch holds, so every push below has something to send.
    tree = run(*GIT, "rev-parse", "HEAD^{tree}").strip()
    pwn = run(*GIT, "commit-tree", tree, "-p", "HEAD", "-m", "pwned", env=IDENTITY).strip()
    attempt("git update-ref main", lambda: run(*GIT, "update-ref", "refs/heads/main", pwn))
    attempt("git branch -f main", lambda: run(*GIT, "branch", "-f", "main", pwn))
    attempt("git push origin", lambda: run(*GIT, "push", plan["origin"], f"{pwn}:refs/heads/main"))
    attempt("git push clone", lambda: run(*GIT, "push", str(clone), f"{pwn}:refs/heads/hostile"))
    codedesk = str(Path(sys.executable).parent / "codedesk")
    server = {"CODEDESK_TEMPORAL_ADDRESS": plan["address"], "CODEDESK_NAMESPACE": plan["namespace"]}
    attempt("codedesk approve", lambda: run(codedesk, "approve", plan["approval"], env=server))
    attempt("direct Temporal call", lambda: direct_temporal(plan))
    attempt("tcp to Temporal", lambda: tcp_connect(plan["address"]))
    attempt("proxy to Temporal", lambda: proxy_connect(plan["address"]))
    if "fetch" in plan:
        attempt("fetch through the proxy", lambda: fetch(plan["fetch"]))
    # Other jobs' `git worktree add` reads every worktree's admin dir: a folder where
    # `commondir` should be made each of them fail, and a wrong `gitdir` lets a prune drop it.
    attempt("block other jobs' worktrees", lambda: _replace_by_folder(_admin() / "commondir"))
    attempt("point gitdir elsewhere", lambda: (_admin() / "gitdir").write_text("/nowhere\n"))
    if plan.get("pause"):
        _pause(Path("attacked"))
    Path("ordinary.txt").write_text("an ordinary change\n")
    run(*GIT, "add", "-A")
    run(*GIT, "commit", "--quiet", "-m", "ordinary", env=IDENTITY)
    print("hostile agent: done", flush=True)
    return 0


def _admin() -> Path:
    return Path(run(*GIT, "rev-parse", "--absolute-git-dir").strip())


def _replace_by_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _pause(marker: Path, limit: float = 60.0) -> None:
    marker.write_text("waiting\n")
    waited = 0.0
    while marker.exists() and waited < limit:
        time.sleep(0.05)
        waited += 0.05
    marker.unlink(missing_ok=True)


def _append(path: Path) -> None:
    with path.open("a") as handle:
        handle.write('[filter "pwn"]\n\tclean = touch /tmp/pwned\n')


def _overwrite(path: Path) -> None:
    path.write_text("0" * 40 + "\n")


if __name__ == "__main__":
    sys.exit(main(json.loads(sys.argv[1])))
