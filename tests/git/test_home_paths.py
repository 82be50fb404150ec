"""A home or shelf that is a file, or cannot be created, is a one-line reason: no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli_helpers import assert_refused, cli_env, run_cli
from workers.devserver import free_port


def env_with(**values: str) -> dict[str, str]:
    """Ports of its own: should a command wrongly start a server, it takes no one else's."""
    return cli_env(CODEDESK_PORT=str(free_port()), CODEDESK_UI_PORT=str(free_port()), **values)


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "a-file"
    path.write_text("not a directory\n")
    return path


@pytest.mark.parametrize("command", [["up", "--headless"], ["worker"], ["demo"], ["jobs"]])
async def test_a_home_that_is_a_file_is_refused_by_name(
    a_file: Path, tmp_path: Path, command: list[str]
) -> None:
    env = env_with(CODEDESK_HOME=str(a_file))
    result = await run_cli(env, *command, cwd=tmp_path)
    assert_refused(result, "CODEDESK_HOME", "not a directory", str(a_file))
    assert a_file.read_text() == "not a directory\n"


async def test_a_shelf_that_is_a_file_is_refused_by_name(a_file: Path, tmp_path: Path) -> None:
    env = env_with(CODEDESK_HOME=str(tmp_path / "home"), CODEDESK_SHELF=str(a_file))
    result = await run_cli(env, "up", "--headless", cwd=tmp_path)
    assert_refused(result, "CODEDESK_SHELF", "not a directory")


@pytest.mark.parametrize("command", [["up", "--headless"], ["worker"], ["demo"]])
async def test_a_home_that_cannot_be_created_is_refused_before_anything_starts(
    a_file: Path, tmp_path: Path, command: list[str]
) -> None:
    home = a_file / "home"
    env = env_with(CODEDESK_HOME=str(home))
    result = await run_cli(env, *command, cwd=tmp_path)
    assert_refused(result, "CODEDESK_HOME", "cannot be used as a directory", str(home))


async def test_a_shelf_that_cannot_be_created_is_refused(a_file: Path, tmp_path: Path) -> None:
    env = env_with(CODEDESK_HOME=str(tmp_path / "home"), CODEDESK_SHELF=str(a_file / "shelf"))
    result = await run_cli(env, "worker", cwd=tmp_path)
    assert_refused(result, "CODEDESK_SHELF", "cannot be used as a directory")
