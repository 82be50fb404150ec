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


def test_an_npm_install_is_bound_with_its_node_modules(tmp_path: Path) -> None:
    # `npm install --prefix DIR @openai/codex`: DIR/node_modules/.bin/codex links to the
    # package, whose platform binary is another package beside it.
    modules = tmp_path / "codex" / "node_modules"
    script = modules / "@openai" / "codex" / "bin" / "codex.js"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    (modules / ".bin").mkdir()
    (modules / ".bin" / "codex").symlink_to(script)
    bound = tool_paths([], "codex", str(modules / ".bin"))
    assert modules.resolve() in bound, bound
