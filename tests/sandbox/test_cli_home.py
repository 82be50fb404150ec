"""The agent's home of its own: seeded from the owner's configuration of its CLI, without the
credentials, writable by the agent except for the seeded files, and never a way for an agent to
make the worker write outside it."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from activities.agent.process.cli_home import seed_cli_home
from activities.checks.sandbox_probe import sandbox_problem
from activities.sandbox.bubblewrap import BWRAP, choose_sandbox
from activities.shelf_paths import job_dir
from desk.agents.homes import home_variables, without_credentials
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient

REPO = "acme/api"
CODEX_CONFIG = (
    'model = "gpt-fake"\n'
    "model_max_output_tokens = 4000\n"
    'experimental_bearer_token = "owner-bearer-secret"\n'
    "[model_providers.fake]\n"
    'base_url = "http://127.0.0.1:8080/v1"\n'
    'env_key = "OPENAI_API_KEY"\n'
    'http_headers = { "X-Trace" = "Bearer sk-proj-abcdefghijklmnopqrstuv0123456789" }\n'
)
needs_bwrap = pytest.mark.skipif(
    choose_sandbox("auto").mode != BWRAP, reason="bubblewrap does not work on this host"
)


def owner_codex(folder: Path) -> Path:
    """An owner's codex folder: a config with a bearer token, a login, sessions."""
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(CODEX_CONFIG)
    (folder / "auth.json").write_text('{"OPENAI_API_KEY": "sk-owner-login"}')
    (folder / "AGENTS.md").write_text("Be brief.\n")
    (folder / "sessions").mkdir()
    (folder / "sessions" / "old.jsonl").write_text("{}\n")
    return folder


def test_a_toml_config_keeps_its_settings_and_loses_its_credentials() -> None:
    kept = without_credentials("config.toml", CODEX_CONFIG)
    assert "owner-bearer-secret" not in kept and "experimental_bearer_token" not in kept
    assert "sk-proj-abcdefghijklmnopqrstuv0123456789" not in kept
    for line in ('model = "gpt-fake"', "model_max_output_tokens = 4000", 'env_key = "OPENAI'):
        assert line in kept, kept


def test_json_and_yaml_configs_lose_every_credential_setting_however_deep() -> None:
    settings = {
        "permissions": {"allow": ["Bash(git push:*)"]},
        "apiKeyHelper": "/home/owner/bin/print-key",
        "env": {"ANTHROPIC_AUTH_TOKEN": "owner-token", "MAX_THINKING_TOKENS": "100"},
        "provider": {"x": {"options": {"apiKey": "owner-key", "baseURL": "http://h"}}},
    }
    kept = json.loads(without_credentials("settings.json", json.dumps(settings)))
    assert kept == {
        "permissions": {"allow": ["Bash(git push:*)"]},
        "env": {"MAX_THINKING_TOKENS": "100"},
        "provider": {"x": {"options": {"baseURL": "http://h"}}},
    }
    aider = "model: m\napi-key:\n  - openai=owner-key\nopenai-api-key: k\ndark-mode: true\n"
    assert without_credentials(".aider.conf.yml", aider) == "model: m\ndark-mode: true\n"


def test_the_home_is_seeded_from_where_the_owner_keeps_the_cli_not_its_login(
    tmp_path: Path,
) -> None:
    source = owner_codex(tmp_path / "owner-codex")
    home = tmp_path / "job-home"
    seeded = seed_cli_home(home, "/opt/bin/codex", {"CODEX_HOME": str(source)}, tmp_path / "o")
    assert sorted(path.relative_to(home).as_posix() for path in seeded) == [
        ".codex/AGENTS.md",
        ".codex/config.toml",
    ]
    assert not (home / ".codex" / "auth.json").exists()
    assert "owner-bearer-secret" not in (home / ".codex" / "config.toml").read_text()
    assert (source / "config.toml").read_text() == CODEX_CONFIG  # the owner's is untouched
    assert seed_cli_home(tmp_path / "other", "my-agent", {}, tmp_path / "o") == []
    assert home_variables(str(home))["CODEX_HOME"] == f"{home}/.codex"


def test_a_link_the_agent_planted_in_its_home_never_leads_the_worker_out(tmp_path: Path) -> None:
    source = owner_codex(tmp_path / "owner" / ".codex")
    home = tmp_path / "job-home"
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "config.toml").write_text("the owner's other file\n")
    home.mkdir()
    (home / ".codex").symlink_to(victim)  # as an agent of an earlier attempt could
    assert seed_cli_home(home, "codex", {}, source.parent) == []
    assert (victim / "config.toml").read_text() == "the owner's other file\n"
    assert sorted(p.name for p in victim.iterdir()) == ["config.toml"]
    (home / ".codex").unlink()
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").symlink_to(victim / "config.toml")
    assert [p.name for p in seed_cli_home(home, "codex", {}, source.parent)] == ["AGENTS.md"]
    assert (victim / "config.toml").read_text() == "the owner's other file\n"


FAKE_CODEX = """#!/bin/sh
# Stands in for codex: what it reads and writes in its home.
echo "home $HOME codex-home $CODEX_HOME"
cat "$CODEX_HOME/config.toml"
ls -a "$CODEX_HOME"
if echo planted >> "$CODEX_HOME/config.toml" 2>/dev/null; then echo "config: written"
else echo "config: read-only"; fi
mkdir -p "$CODEX_HOME/sessions" && echo session > "$CODEX_HOME/sessions/new.jsonl" \\
  && echo "sessions: written"
"""


@needs_bwrap
async def test_a_confined_cli_writes_its_home_but_not_the_seeded_config(
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = owner_codex(tmp_path / "owner-codex")
    monkeypatch.setenv("CODEX_HOME", str(source))
    program = tmp_path / "bin" / "codex"
    program.parent.mkdir()
    program.write_text(FAKE_CODEX)
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{program.parent}:/usr/bin:/bin")
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "look", agent_command="codex")
    report = await desk.wait(number)
    assert report.confinement == BWRAP, report
    assert report.outcome == JobOutcome.NOTHING, report
    home = job_dir(settings, number) / "agent-home"
    assert f"home {home} codex-home {home}/.codex" in report.output, report.output
    assert 'model = "gpt-fake"' in report.output and "owner-bearer-secret" not in report.output
    assert "auth.json" not in report.output and "old.jsonl" not in report.output
    assert "config: read-only" in report.output and "sessions: written" in report.output
    # Seen from outside: the job's home (its session with it) is kept for a continuation
    # (`SessionKeep` removes it later); the owner's folder is as it was.
    assert report.session_kept_until is not None and (home / ".codex" / "sessions").is_dir()
    assert (source / "config.toml").read_text() == CODEX_CONFIG
    assert sorted(p.name for p in (source / "sessions").iterdir()) == ["old.jsonl"]


@needs_bwrap
def test_doctor_says_what_a_program_lacks_in_the_sandbox(
    settings: DeskSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A CLI installed under the owner's home that needs a file outside its install root.
    owner = Path(tempfile.mkdtemp(prefix="codedesk-probe-owner-", dir="/var/tmp"))
    library = owner / ".local" / "share" / "tool-lib.sh"
    program = owner / ".local" / "tool" / "bin" / "aider"
    program.parent.mkdir(parents=True)
    library.parent.mkdir(parents=True)
    library.write_text("VERSION=1.2.3\n")
    program.write_text(f"#!/bin/sh\n. {library} && echo $VERSION\n")
    program.chmod(0o755)
    monkeypatch.setenv("HOME", str(owner))
    try:
        lacks = sandbox_problem(settings, "aider", str(program))
        assert "`aider --version` fails in the sandbox" in lacks, lacks
        assert "CODEDESK_SANDBOX_READ_PATHS" in lacks, lacks
        read = settings.model_copy(update={"sandbox_read_paths": [str(library.parent)]})
        assert sandbox_problem(read, "aider", str(program)) == ""
    finally:
        shutil.rmtree(owner)
