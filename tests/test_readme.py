"""The README's reference tables match the CLI and the settings they describe."""

from __future__ import annotations

from pathlib import Path

from surfaces.cli.reference import with_tables

TOP = Path(__file__).resolve().parent.parent
README = (TOP / "README.md").read_text()


def test_reference_tables_match_the_cli_and_settings() -> None:
    assert README == with_tables(README), (
        "The README's command or settings table is stale: run "
        "`.venv/bin/python -m surfaces.cli.reference README.md`."
    )


def test_quick_start_has_the_two_commands_and_ci_runs_the_test_one() -> None:
    assert "make demo" in README and "make test" in README
    assert "make test" in (TOP / ".ci" / "run").read_text()


def test_every_agent_preset_is_in_the_readme() -> None:
    from desk.agents import PRESETS

    for name, command in PRESETS.items():
        assert f"| `{name}` | `{command}` |" in README, name
