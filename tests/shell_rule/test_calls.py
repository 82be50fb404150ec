"""Tests of desk.shell_rule.shell_calls: one tool call's hold classes, in every input shape an agent
sends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from desk.holds.approvals import ClassifyInput
from desk.holds.rules import classify_call
from desk.shell_rule.shell_calls import call_hold_classes, call_reaches_outside

EVERY = ["destructive", "outside_workspace", "privileged", "push"]


@pytest.mark.parametrize(
    ("tool", "input", "classes"),
    [
        pytest.param("Bash", {"command": "git push"}, ["push"], id="claude-bash"),
        pytest.param("Bash", {"command": "ls -la"}, [], id="claude-harmless"),
        pytest.param("shell", {"command": ["bash", "-lc", "git push"]}, ["push"], id="codex"),
        pytest.param("shell", {"command": ["git", "status"]}, [], id="codex-argv-harmless"),
        pytest.param("shell", {"command": ["rm", "-rf", "/"]}, ["destructive"], id="codex-rm"),
        pytest.param("Bash", {"command": 3}, EVERY, id="number"),
        pytest.param("Bash", {"command": {"x": 1}}, EVERY, id="object"),
        pytest.param("Bash", {"command": None}, EVERY, id="null"),
        pytest.param("Bash", {}, EVERY, id="missing"),
        pytest.param("shell", {"command": []}, EVERY, id="empty-list"),
        pytest.param("shell", {"command": ["git", 1]}, EVERY, id="list-of-non-strings"),
        pytest.param("exec", {"cmd": "sudo ls"}, ["privileged"], id="cmd-key"),
        pytest.param(
            "shell",
            {"command": ["bash", "-lc", "echo x > ../y"], "workdir": "/"},
            ["outside_workspace"],
            id="workdir-elsewhere",
        ),
        pytest.param(
            "shell",
            {"command": ["bash", "-lc", "echo x > out.txt"], "workdir": "src"},
            [],
            id="workdir-inside",
        ),
        pytest.param("shell", {"command": "ls", "workdir": 7}, EVERY, id="workdir-not-text"),
        pytest.param("Write", {"file_path": "../x", "content": ""}, ["outside_workspace"], id="w"),
        pytest.param("Write", {"file_path": "src/x.py"}, [], id="write-inside"),
        pytest.param("Edit", {"file_path": 3}, ["outside_workspace"], id="write-path-not-text"),
        pytest.param("Read", {"file_path": "/etc/passwd"}, [], id="read"),
    ],
)
def test_call_hold_classes(
    tmp_path: Path, tool: str, input: dict[str, object], classes: list[str]
) -> None:
    (tmp_path / "src").mkdir()
    assert call_hold_classes(tool, input, str(tmp_path))[0] == classes


@pytest.mark.parametrize(
    ("tool", "input", "reaches"),
    [
        pytest.param("Bash", {"command": "rm -rf /srv/data"}, True, id="rm-elsewhere"),
        pytest.param("Bash", {"command": "rm -rf /tmp/x"}, True, id="rm-tmp"),
        pytest.param("Bash", {"command": "rm -rf ~/cache"}, True, id="rm-home"),
        pytest.param("Bash", {"command": "cd / && rm -rf srv"}, True, id="rm-after-cd"),
        pytest.param("Bash", {"command": "bash -c 'echo x > /etc/y'"}, True, id="nested-write"),
        pytest.param("Bash", {"command": "npm install -g left-pad"}, True, id="global-install"),
        pytest.param("shell", {"command": ["rm", "-rf", "/srv"]}, True, id="argv"),
        pytest.param("Write", {"file_path": "/srv/x", "content": ""}, True, id="write"),
        pytest.param("Bash", {"command": "rm -rf ."}, False, id="rm-the-worktree"),
        pytest.param("Bash", {"command": "rm -rf src/build"}, False, id="rm-inside"),
        pytest.param("Bash", {"command": "git push origin main"}, False, id="push"),
        pytest.param("Bash", {"command": "sudo ls /etc"}, False, id="reads"),
        pytest.param("Write", {"file_path": "src/x.py"}, False, id="write-inside"),
        pytest.param("Bash", {"command": 3}, False, id="unreadable"),
    ],
)
def test_whether_a_call_reaches_outside_the_workspace(
    tmp_path: Path, tool: str, input: dict[str, object], reaches: bool
) -> None:
    # What a sandbox that binds only the workspace writable cannot do on the host.
    (tmp_path / "src").mkdir()
    assert call_reaches_outside(tool, input, str(tmp_path)) is reaches


def test_settings_choose_classes_and_tools(tmp_path: Path) -> None:
    call = {"command": "sudo git push"}
    assert call_hold_classes("Bash", call, str(tmp_path), ["push"])[0] == ["push"]
    assert call_hold_classes("Read", {}, str(tmp_path), [], ["Read"])[0] == ["tool"]
    # A command this cannot read is held whatever classes are chosen.
    assert call_hold_classes("Bash", {"command": 1}, str(tmp_path), ["push"])[0] == ["push"]


@pytest.mark.parametrize("workspace", ["", "relative/ws"])
def test_a_workspace_that_is_not_absolute_holds_everything(workspace: str) -> None:
    assert call_hold_classes("Bash", {"command": "ls"}, workspace)[0] == EVERY
    assert call_hold_classes("shell", {"command": ["ls"]}, workspace)[0] == EVERY
    assert call_hold_classes("Write", {"file_path": "x"}, workspace)[0] == ["outside_workspace"]


def test_the_action_names_the_command(tmp_path: Path) -> None:
    assert call_hold_classes("Bash", {"command": "git push"}, str(tmp_path))[1] == "Run: git push"
    codex = {"command": ["bash", "-lc", "git push origin"]}
    assert call_hold_classes("shell", codex, str(tmp_path))[1] == "Run: bash -lc 'git push origin'"


def test_the_worker_wrapper_gives_the_same_answer(tmp_path: Path) -> None:
    request = ClassifyInput(
        tool="shell", input={"command": ["bash", "-lc", "git push"]}, workspace=str(tmp_path)
    )
    classification = classify_call(request)
    assert (classification.classes, classification.action) == (
        ["push"],
        "Run: bash -lc 'git push'",
    )


def test_the_rule_imports_only_the_standard_library() -> None:
    """The hook runs it isolated on every tool call: no pydantic, typing or dataclasses."""
    probe = (
        "import sys, desk.shell_rule.shell_calls;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('pydantic', 'pydantic_core', 'temporalio', 'typing', 'dataclasses', 'inspect')))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", probe], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout
