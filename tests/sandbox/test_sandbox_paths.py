"""What the sandbox binds back: programs that live where the sandbox shows an empty folder."""

from __future__ import annotations

from pathlib import Path

from activities.sandbox.bubblewrap import PRIVATE_DIRECTORIES, tool_paths


def test_an_agent_installed_under_tmp_is_bound_back_into_the_sandboxs_own_tmp(
    tmp_path: Path,
) -> None:
    # A CI checkout (and its venv, and the agent it installs) may live under /tmp, which the
    # sandbox replaces by an empty tmpfs: such a program must still run inside.
    assert str(tmp_path.resolve()).startswith("/tmp/")
    tool = tmp_path / "agent-install" / "bin" / "my-agent"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    bound = tool_paths([], "my-agent", str(tool.parent))
    assert (tmp_path / "agent-install").resolve() in bound
    assert "/tmp" in PRIVATE_DIRECTORIES


def test_a_program_outside_every_hidden_folder_needs_no_bind(tmp_path: Path) -> None:
    bound = tool_paths([], "sh", "/usr/bin:/bin")
    assert not any(path.is_relative_to(Path("/usr")) for path in bound)
