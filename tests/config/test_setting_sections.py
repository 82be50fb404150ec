"""Settings by section: each setting in one section, the sections composed into DeskSettings in
the reference's order, and each section a model that reads its own settings and keeps its rules."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from desk.config.sections.agent_settings import AgentSettings
from desk.config.sections.hold_settings import HoldSettings
from desk.config.settings import SECTIONS, DeskSettings, settings_table


def test_every_setting_is_in_exactly_one_section() -> None:
    placed = [name for section in SECTIONS for name in section.model_fields]
    assert len(placed) == len(set(placed)), sorted({n for n in placed if placed.count(n) > 1})
    assert set(placed) == set(DeskSettings.model_fields)


def test_the_settings_and_the_reference_read_section_by_section() -> None:
    """Errors naming several settings list them in the reference's order: the sections'."""
    in_order = [name for section in SECTIONS for name in section.model_fields]
    assert list(DeskSettings.model_fields) == in_order
    assert [row[0] for _, rows in settings_table() for row in rows] == in_order
    assert [heading for heading, _ in settings_table()] == [s.heading for s in SECTIONS]


def test_a_section_reads_its_own_settings_alone(
    no_env_settings: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "codedesk.toml").write_text('work_budget = "20m"\n')
    monkeypatch.setenv("CODEDESK_AGENT_ENV", "PATH, HOME")
    agent = AgentSettings()
    assert agent.work_budget == timedelta(minutes=20)
    assert agent.agent_env == ["PATH", "HOME"]


def test_a_rule_across_a_sections_settings_holds_in_the_section_alone(
    no_env_settings: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValidationError, match="does not fit in the agent's hook timeout"):
        HoldSettings(hold_wait="20m")
