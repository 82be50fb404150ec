"""`codedesk doctor`: a line per check, asked of the server and of a worker's host; fails loudly."""

from __future__ import annotations

import json
from pathlib import Path

from desk.config.settings import DeskSettings
from surfaces.clients.desk_client import DeskClient
from tests.helpers.cli_helpers import cli_env, run_cli, settings_env, shown


def by_name(stdout: str) -> dict[str, dict[str, str]]:
    return {check["name"]: check for check in json.loads(stdout)}


async def test_doctor_with_a_worker_passes_and_names_each_check(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    env = settings_env(settings, CODEDESK_AGENT_COMMAND=settings.agent_command)
    done = await run_cli(env, "doctor", "--json", cwd=tmp_path)
    assert done.returncode == 0, shown(done)
    checks = by_name(done.stdout)
    assert checks["server"]["status"] == "ok"
    assert checks["worker"]["status"] == "ok" and settings.task_queue in checks["worker"]["detail"]
    assert checks["search attributes"]["status"] == "ok"
    assert checks["git"]["status"] == "ok" and "git version" in checks["git"]["detail"]
    assert checks["agent"]["status"] == "ok"
    assert {f"preset {name}" for name in ("claude", "codex", "aider")} <= set(checks)
    assert checks["sandbox"]["status"] in {"ok", "warn", "skip"}
    assert checks["imports"]["status"] == "ok", checks["imports"]
    assert checks["imports (worker)"]["status"] == "ok", checks["imports (worker)"]
    assert checks["discord token"]["status"] == "skip"

    told = await run_cli(env, "doctor", cwd=tmp_path)
    assert told.returncode == 0, shown(told)
    assert "ok    worker: " in told.stdout and "ok    git: git version" in told.stdout


async def test_doctor_fails_on_an_agent_missing_on_the_workers_host(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    env = settings_env(
        settings,
        CODEDESK_AGENT_COMMAND="codedesk-no-such-agent {task}",
        CODEDESK_DISCORD_TOKEN="secret-token-value",
    )
    done = await run_cli(env, "doctor", "--json", cwd=tmp_path)
    assert done.returncode == 1, shown(done)
    checks = by_name(done.stdout)
    assert checks["agent"]["status"] == "fail"
    assert "'codedesk-no-such-agent'" in checks["agent"]["detail"]
    assert checks["discord token"]["status"] == "ok"
    assert "secret-token-value" not in done.stdout + done.stderr


async def test_doctor_without_a_worker_fails_and_skips_the_host(
    settings: DeskSettings, tmp_path: Path
) -> None:
    done = await run_cli(settings_env(settings), "doctor", "--json", cwd=tmp_path)
    assert done.returncode == 1, shown(done)
    checks = by_name(done.stdout)
    assert checks["server"]["status"] == "ok"
    assert checks["worker"]["status"] == "fail"
    assert "No codedesk worker is polling" in checks["worker"]["detail"]
    assert checks["git"]["status"] == "skip"


async def test_doctor_without_a_server_fails_at_the_first_line(tmp_path: Path) -> None:
    done = await run_cli(cli_env(CODEDESK_HOME=str(tmp_path / "home")), "doctor", cwd=tmp_path)
    assert done.returncode == 1, shown(done)
    assert done.stdout.startswith("fail  server: No Temporal server is known"), shown(done)
    assert "Traceback" not in done.stderr


def test_doctor_shows_each_presets_version_and_warns_when_it_is_older_than_proven(
    settings: DeskSettings,
) -> None:
    from desk.payloads.jobs import HostReport
    from surfaces.doctor_checks import host_checks

    report = HostReport(
        host="codedesk@alpha",
        git="git version 2.39.5",
        programs={"claude": "/opt/bin/claude", "aider": "/opt/bin/aider", "codex": ""},
        preset_versions={"claude": "2.1.197", "aider": "0.80.0"},
        preset_problems={"aider": "aider 0.80.0 is older than 0.86.2, the version it was proven"},
        preset_sandbox={"claude": "", "aider": "`aider --version` fails in the sandbox (exit 1)"},
    )
    checks = {check.name: check for check in host_checks(report, settings)}
    assert checks["preset claude (sandbox)"].status == "ok"
    assert checks["preset aider (sandbox)"].status == "warn"
    assert "fails in the sandbox" in checks["preset aider (sandbox)"].detail
    assert "preset codex (sandbox)" not in checks
    assert checks["preset claude"].status == "ok"
    assert "version 2.1.197" in checks["preset claude"].detail
    assert checks["preset aider"].status == "warn"
    assert "older than 0.86.2" in checks["preset aider"].detail
    assert checks["preset codex"].status == "warn"
    assert "not installed" in checks["preset codex"].detail


async def test_doctor_shows_the_hosts_policy_and_where_this_process_says_otherwise(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    env = settings_env(settings, CODEDESK_AGENT_COMMAND=settings.agent_command)
    same = by_name((await run_cli(env, "doctor", "--json", cwd=tmp_path)).stdout)
    policy = same["host policy"]
    assert policy["status"] == "ok", policy
    assert f"from host {settings.host}" in policy["detail"]
    assert "owner_repos: none (CODEDESK_OWNER_REPOS)" in policy["detail"]
    assert "hold_classes: all (CODEDESK_HOLD_CLASSES)" in policy["detail"]

    env["CODEDESK_OWNER_REPOS"] = "acme/widget"
    differs = by_name((await run_cli(env, "doctor", "--json", cwd=tmp_path)).stdout)
    policy = differs["host policy"]
    assert policy["status"] == "warn", policy
    assert "CODEDESK_OWNER_REPOS here is acme/widget, the desk's is none" in policy["detail"]
    assert "have no effect" in policy["detail"]
