"""The console script against a test's desk (`cli`), and acme/api added through it (`clone`):
fixtures of tests/cli, brought in by its conftest.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from desk.config.settings import DeskSettings
from surfaces.clients.desk_client import DeskClient
from tests.helpers.cli_helpers import Cli, run_cli, settings_env, shown

REPO = "acme/api"


@pytest.fixture
def cli(settings: DeskSettings, tmp_path: Path) -> Cli:
    """The console script against this test's desk (the `desk` fixture hosts the worker)."""
    env = settings_env(settings)

    async def call(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return await run_cli({**env, **extra}, *args, cwd=tmp_path)

    return call


@pytest.fixture
async def clone(desk: DeskClient, cli: Cli, origin: Path, settings: DeskSettings) -> Path:
    """acme/api added through `codedesk repo add`."""
    added = await cli("repo", "add", REPO, "--from", str(origin))
    assert added.returncode == 0, shown(added)
    return settings.shelf_dir / "acme" / "api"
