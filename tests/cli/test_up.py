"""`codedesk up`: the embedded server and a worker, found by every other command, restartable."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
from pathlib import Path
from typing import Any

from tests.helpers.agent_pids import live_commands
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import assert_refused, cli_env, run_cli, shown, started_number
from tests.helpers.repos import git
from tests.helpers.surfaces.cli_up import StartUp, servers_on, up_log
from tests.helpers.waiting import eventually, until
from workers.devserver import DB_FILE, free_port, port_is_free
from workers.temporal.runtime import RUNTIME_FILE

REPO = "acme/api"


async def stop_up(process: subprocess.Popen[bytes], sig: int = signal.SIGINT) -> int:
    process.send_signal(sig)
    return await asyncio.to_thread(process.wait, 15)


def server_sync(home: Path) -> str:
    """The `synchronous` pragma of the one server `up` runs on `home`'s database."""
    (argv,) = [argv for _, argv in live_commands() if str(home / DB_FILE) in argv]
    return next(word for word in argv if word.startswith("synchronous="))


async def test_up_serves_commands_without_an_address_and_survives_a_restart(
    tmp_path: Path, origin: Path, start_up: StartUp
) -> None:
    home, port, ui_port = tmp_path / "home", free_port(), free_port()
    env = cli_env(CODEDESK_HOME=str(home), CODEDESK_HEARTBEAT_TIMEOUT="2s")
    up = start_up(home, port, ui_port)
    await until(lambda: (home / RUNTIME_FILE).is_file() or up.poll() is not None, "up")
    assert up.poll() is None, up_log(tmp_path, 1)
    record = json.loads((home / RUNTIME_FILE).read_text())
    assert record["address"] == f"127.0.0.1:{port}"
    await until(lambda: "Worker polling" in up_log(tmp_path, 1), "up's worker")
    assert f"127.0.0.1:{port}" in up_log(tmp_path, 1)
    assert server_sync(home) == "synchronous=NORMAL"

    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    command = agent("write:hello.txt=hi", "commit:greet")
    done = await run_cli(
        env, "task", REPO, "add a greeting", "--agent-command", command, "--wait", cwd=tmp_path
    )
    assert done.returncode == 0, shown(done)
    number = started_number(done)
    assert f"job {number} on {REPO}: integrated" in done.stdout
    assert git(home / "shelf" / "acme" / "api", "log", "-1", "--format=%s") == "greet"

    assert await stop_up(up) == 0, up_log(tmp_path, 1)
    assert not (home / RUNTIME_FILE).exists()
    assert port_is_free(port), "the Temporal server still listens after up stopped"
    assert servers_on(home / DB_FILE) == []
    gone = await run_cli(env, "jobs", cwd=tmp_path)
    assert_refused(gone, "codedesk up")

    (tmp_path / "codedesk.toml").write_text('server_sync = "full"\n')
    again = start_up(home, port, ui_port)
    await until(lambda: (home / RUNTIME_FILE).is_file() or again.poll() is not None, "up")
    assert again.poll() is None, up_log(tmp_path, 2)
    assert server_sync(home) == "synchronous=FULL", "the owner's server_sync reaches the server"

    # Visibility catches up with the restored database shortly after the server starts.
    async def listed_rows() -> dict[int, dict[str, Any]]:
        listed = await run_cli(env, "jobs", "--json", cwd=tmp_path)
        assert listed.returncode == 0, shown(listed)
        return {row["number"]: row for row in json.loads(listed.stdout)}

    rows = await eventually(listed_rows, lambda rows: number in rows, f"job {number} listed")
    assert rows[number]["repo"] == REPO
    assert rows[number]["outcome"] == "integrated"
    shown_job = await run_cli(env, "show", str(number), "--json", cwd=tmp_path)
    assert shown_job.returncode == 0, shown(shown_job)
    document = json.loads(shown_job.stdout)
    assert document["job"]["report"]["outcome"] == "integrated"
    assert document["ui_url"] == "", "a headless up serves no UI to link to"
    # SIGTERM stops it as cleanly as Ctrl-C does.
    assert await stop_up(again, signal.SIGTERM) == 0, up_log(tmp_path, 2)
    assert not (home / RUNTIME_FILE).exists()
    assert port_is_free(port)


async def test_up_refuses_a_taken_port(tmp_path: Path, start_up: StartUp) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        home = tmp_path / "home"
        up = start_up(home, port, free_port())
        code = await asyncio.to_thread(up.wait, 30)
    log = up_log(tmp_path, 1)
    assert code != 0, log
    assert code not in (134, 139), log
    assert "Traceback" not in log, log
    assert f"Port {port} is taken" in log, log
    assert not (home / RUNTIME_FILE).exists()
    assert servers_on(home / DB_FILE) == []
