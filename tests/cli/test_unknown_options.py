"""A mistyped option is named with the nearest real one, on every command and group."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import typer.main
from typer._click import Command

from surfaces.cli.app import app
from surfaces.cli.common.options import NamedOptionsCommand, NamedOptionsGroup
from surfaces.cli.main import invoke

SHA = "a" * 40


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["task", "acme/api", "x", "--agnet", "claude"], "--agnet (did you mean --agent?)"),
        # `task` takes a text that starts with '-': here the slip became the text.
        (["task", "acme/api", "--agnet", "claude", "x"], "--agnet (did you mean --agent?)"),
        (["task", "acme/api", "x", "--wiat"], "--wiat (did you mean --wait?)"),
        (["jobs", "--limt", "3"], "--limt (did you mean --limit?)"),
        (["jobs", "--lmit=3"], "--lmit (did you mean --limit?)"),
        (["repo", "list", "--jsn"], "--jsn (did you mean --json?)"),
        (["repo", "add", "acme/api", "--form", "x"], "--form (did you mean --from?)"),
        (
            ["repo", "set", "acme/api", "--no-chek-blocks"],
            "--no-chek-blocks (did you mean --no-check-blocks?)",
        ),
        (["push", "acme/api", SHA, "--wiat"], "--wiat (did you mean --wait?)"),
        (["withdraw", "job-1", "--reasn", "x"], "--reasn (did you mean --reason?)"),
        (["--verison"], "--verison (did you mean --version?)"),
        (["jobs", "--zzzzzz"], "No such option: --zzzzzz\n"),
    ],
)
def test_a_mistyped_option_is_named_with_the_nearest_one(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert invoke(args) == 2
    error = capsys.readouterr().err
    assert f"Error: No such option: {said.removeprefix('No such option: ')}" in error, error
    assert "unexpected extra argument" not in error, error


def test_other_extra_arguments_are_still_called_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert invoke(["task", "acme/api", "x", "y"]) == 2
    assert "Got unexpected extra argument(s) (y)" in capsys.readouterr().err


def test_a_task_that_starts_with_a_dash_is_still_a_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Alone, it is the task's text: the command runs (and finds no server to send it to)."""
    for name in [name for name in os.environ if name.startswith("CODEDESK_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CODEDESK_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    assert invoke(["task", "acme/api", "--fix-the-flaky-test"]) == 1
    assert "No Temporal server is known" in capsys.readouterr().err


def test_every_command_and_group_names_a_mistyped_option() -> None:
    def walk(command: Command) -> list[Command]:
        subcommands: dict[str, Command] = getattr(command, "commands", {})
        return [command, *(found for sub in subcommands.values() for found in walk(sub))]

    for command in walk(typer.main.get_command(app)):
        kind = NamedOptionsGroup if hasattr(command, "commands") else NamedOptionsCommand
        assert isinstance(command, kind), command.name
