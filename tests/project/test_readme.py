"""The README's two commands, and the reference pages' generated parts and the stored top-level
help match the code."""

from __future__ import annotations

from pathlib import Path

from surfaces.cli.reference import HELP_PAGE, PAGES, PARTS, help_page_source, parts_in, with_tables

TOP = Path(__file__).resolve().parents[2]
README = (TOP / "README.md").read_text()


def test_reference_pages_match_the_cli_and_settings() -> None:
    for page in PAGES:
        text = (TOP / page).read_text()
        assert text == with_tables(text), (
            f"{page} is stale: run `.venv/bin/python -m surfaces.cli.reference`."
        )


def test_the_stored_top_level_help_is_the_apps() -> None:
    assert (TOP / HELP_PAGE).read_text() == help_page_source(), (
        f"{HELP_PAGE} is stale: run `.venv/bin/python -m surfaces.cli.reference`."
    )


def test_every_generated_part_is_in_exactly_one_reference_page() -> None:
    found = [name for page in PAGES for name in parts_in((TOP / page).read_text())]
    assert sorted(found) == sorted(PARTS), found


def test_quick_start_has_the_two_commands_and_ci_runs_the_test_one() -> None:
    assert "make demo" in README and "make test" in README
    assert "make test" in (TOP / ".ci" / "run").read_text()


def test_every_agent_preset_is_in_the_guide() -> None:
    from desk.agents.presets import PRESETS

    guide = (TOP / "docs" / "guide.md").read_text()
    for name, command in PRESETS.items():
        assert f"| `{name}` | `{command}` |" in guide, name


def test_the_guide_says_how_each_preset_gets_the_instructions_and_what_they_must_keep() -> None:
    from desk.agents.presets import AGENT_PRESETS
    from desk.agents.standing_instructions import REQUIRED_PARTS

    guide = (TOP / "docs" / "guide.md").read_text()
    for preset in AGENT_PRESETS.values():
        row = next(line for line in guide.splitlines() if line.startswith(f"| `{preset.name}` |"))
        assert f" | {preset.instructions_in} |" in row, preset.name
    for part in REQUIRED_PARTS:
        assert f"| {part.name} | {part.sentence} | {part.why} |" in guide, part.name


def test_the_readme_names_every_preset_with_its_proven_version_holds_instructions_messages() -> (
    None
):
    from desk.agents.presets import AGENT_PRESETS

    for preset in AGENT_PRESETS.values():
        row = next(line for line in README.splitlines() if line.startswith(f"| `{preset.name}` |"))
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        proven = "codedesk itself" if preset.built_in else preset.proven_version or "untested"
        assert cells[1] == proven, row
        assert len(cells) == 8 and all(cells), row
        assert cells[6] == preset.messages_in, row
        # Only the CLIs whose session the job resumes pause at their budget and ask.
        assert cells[7].startswith("pauses") == (preset.name in ("claude", "codex")), row
        # Claude Code defers a held call, codex is ended and its thread resumed: only their
        # agents are suspended.
        assert ("suspends" in cells[3]) == (preset.name in ("claude", "codex")), row
