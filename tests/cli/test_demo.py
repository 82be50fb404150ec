"""The main job: `codedesk demo` on a fresh home runs two jobs and ships them, offline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.repos import git
from workers.devserver import free_port

CODEDESK = Path(sys.executable).parent / "codedesk"


def test_demo_runs_two_jobs_and_ships_them(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEDESK_")}
    env.update(
        CODEDESK_HOME=str(tmp_path / "home"),
        CODEDESK_PORT=str(free_port()),
        CODEDESK_UI_PORT=str(free_port()),
    )
    done = subprocess.run(
        [str(CODEDESK), "demo"], env=env, capture_output=True, text=True, timeout=110
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "not an AI" in output
    assert output.count(": integrated") == 2, output
    assert "Pushed " in output
    origin = tmp_path / "home" / "demo" / "origins" / "sample.git"
    subjects = git(origin, "log", "--format=%s", "main").splitlines()
    assert len(subjects) == 3, subjects
    assert "Sample service" in subjects[-1]
