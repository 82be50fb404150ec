"""The README's reference tables match the CLI and the settings they describe."""

from __future__ import annotations

from pathlib import Path

from desk.settings import settings_table
from surfaces.cli.reference import command_rows

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_every_command_is_in_the_readme_as_the_cli_describes_it() -> None:
    missing = [row for row in command_rows() if row not in README]
    assert not missing, "README command reference is stale; regenerate rows:\n" + "\n".join(
        missing
    )


def test_every_setting_is_in_the_readme_table() -> None:
    rows = ["| `{}` | `{}` | `{}` | {} |".format(*row) for row in settings_table()]
    missing = [row for row in rows if row not in README]
    assert not missing, "README settings table is stale:\n" + "\n".join(missing)


def test_quick_start_has_the_two_commands_and_ci_runs_the_test_one() -> None:
    assert "make demo" in README and "make test" in README
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    assert "make test" in ci
