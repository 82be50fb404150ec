"""`codedesk repo set` and `repo show`: the owner's worktree set-up, through the real script."""

from __future__ import annotations

import json
from pathlib import Path

from desk.config.settings import DeskSettings
from tests.helpers.cli_helpers import assert_refused, run_cli, settings_env, shown

REPO = "acme/api"


async def test_set_show_change_and_clear(
    clone: Path, settings: DeskSettings, tmp_path: Path
) -> None:
    env = settings_env(settings)

    async def cli(*args: str) -> str:
        result = await run_cli(env, *args, cwd=tmp_path)
        assert result.returncode == 0, shown(result)
        return result.stdout

    said = await cli(
        "repo", "set", REPO, "--setup", "npm ci", "--copy", ".env", "--copy",
        "config/local.toml", "--check", "npm test", "--no-check-blocks",
    )  # fmt: skip
    assert "set-up: npm ci" in said and "copied: .env, config/local.toml" in said
    assert "(a failure does not block integration)" in said
    assert "ships:  onto the default branch" in said
    assert "review: as each task asks" in said
    assert "ships:  as a pull request" in await cli("repo", "set", REPO, "--check-blocks", "--pr")
    assert "review: every job waits for a person" in await cli("repo", "set", REPO, "--review")
    shown_json = json.loads(await cli("repo", "show", REPO, "--json"))
    assert shown_json == {
        "setup": "npm ci",
        "copy_files": [".env", "config/local.toml"],
        "check": "npm test",
        "check_blocks": True,
        "pull_requests": True,
        "check_retries": 2,
        "review": True,
    }
    await cli("repo", "set", REPO, "--clear")
    assert "no worktree set-up or check" in await cli("repo", "show", REPO)


async def test_a_path_out_of_the_clone_is_refused(
    clone: Path, settings: DeskSettings, tmp_path: Path
) -> None:
    env = settings_env(settings)
    result = await run_cli(env, "repo", "set", REPO, "--copy", "../.ssh/id_ed25519", cwd=tmp_path)
    assert_refused(result, "Cannot copy '../.ssh/id_ed25519'", "inside the clone")
    show = await run_cli(env, "repo", "show", REPO, "--json", cwd=tmp_path)
    assert json.loads(show.stdout)["copy_files"] == [], shown(show)


async def test_the_owner_sets_how_often_a_failed_check_goes_back_to_the_agent(
    clone: Path, settings: DeskSettings, tmp_path: Path
) -> None:
    env = settings_env(settings)
    said = await run_cli(env, "repo", "set", REPO, "--check", "make test", cwd=tmp_path)
    assert "blocks integration, after it went back to the agent twice" in said.stdout, shown(said)
    said = await run_cli(env, "repo", "set", REPO, "--check-retries", "0", cwd=tmp_path)
    assert "at once: it does not go back to the agent" in said.stdout, shown(said)
    for bad in ("-1", "11"):
        refused = await run_cli(env, "repo", "set", REPO, "--check-retries", bad, cwd=tmp_path)
        assert_refused(refused, f"--check-retries {bad} is out of range", "give 0 to 10")
    show = await run_cli(env, "repo", "show", REPO, "--json", cwd=tmp_path)
    assert json.loads(show.stdout)["check_retries"] == 0, shown(show)
