"""The scripted agent that stands in for a coding agent does what its steps say."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

AGENT = Path(__file__).parents[1] / "helpers" / "programs" / "scripted_agent.py"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh repository with one commit, standing in for a job's worktree."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "--quiet")
    (path / "README.md").write_text("hello\n", encoding="utf-8")
    git(path, "add", "README.md")
    git(
        path,
        "-c",
        "user.name=Test",
        "-c",
        "user.email=test@codedesk.invalid",
        "commit",
        "-qm",
        "init",
    )
    return path


def run_agent(
    repo: Path, *steps: str, env: dict[str, str] | None = None, start_new_session: bool = False
) -> subprocess.CompletedProcess[str]:
    # Only the variables a test names: a CODEDESK_* left in the outer environment must not leak.
    base = {k: v for k, v in os.environ.items() if not k.startswith("CODEDESK_")}
    base.update(env or {})
    return subprocess.run(
        [sys.executable, str(AGENT), *steps],
        cwd=repo,
        env=base,
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
        start_new_session=start_new_session,
    )


def test_write_and_commit_make_a_commit(repo: Path) -> None:
    done = run_agent(repo, r"write:src/a.txt=one\ntwo", "append:src/a.txt=\nthree", "commit:add a")
    assert done.returncode == 0, done.stderr
    assert (repo / "src" / "a.txt").read_text(encoding="utf-8") == "one\ntwo\nthree"
    assert git(repo, "log", "-1", "--format=%s|%an|%ae|%cn") == (
        "add a|Scripted Agent|agent@codedesk.invalid|Scripted Agent"
    )
    assert git(repo, "status", "--porcelain") == ""
    assert "scripted agent: commit 'add a'" in done.stdout
    assert done.stdout.rstrip().endswith("scripted agent: done")


def test_commit_with_nothing_to_commit_goes_on(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    done = run_agent(repo, "commit:nothing here", "say:after")
    assert done.returncode == 0, done.stderr
    assert git(repo, "rev-parse", "HEAD") == head
    assert "nothing to commit" in done.stdout
    assert "after\n" in done.stdout


def test_exit_code_is_passed_through_at_once(repo: Path) -> None:
    done = run_agent(repo, "exit:3", "write:never.txt=x")
    assert done.returncode == 3
    assert not (repo / "never.txt").exists()
    assert "scripted agent: done" not in done.stdout


def test_crash_kills_itself(repo: Path) -> None:
    done = run_agent(repo, "crash", "write:never.txt=x")
    assert done.returncode == -signal.SIGKILL
    assert not (repo / "never.txt").exists()


def test_sleep_first_sleeps_only_on_the_first_run(repo: Path) -> None:
    # A 60 s sleep would hit the 20 s timeout: skipping it is what makes this pass.
    again = run_agent(repo, "sleep-first:60", env={"CODEDESK_INTERRUPTED": "1"})
    assert again.returncode == 0, again.stderr
    assert "skipped" in again.stdout
    first = run_agent(repo, "sleep-first:0.01", "sleep:0.01")
    assert first.returncode == 0, first.stderr
    assert "sleep-first 0.01s" in first.stdout


def test_grandchild_outlives_the_agent_in_its_process_group(repo: Path, tmp_path: Path) -> None:
    agent_pidfile, pidfile = tmp_path / "agent.pid", tmp_path / "grandchild.pid"
    # The agent leads a new session here, so its process group id is its own pid.
    done = run_agent(
        repo, f"pidfile:{agent_pidfile}", f"grandchild:30:{pidfile}", start_new_session=True
    )
    assert done.returncode == 0, done.stderr
    pid = int(pidfile.read_text(encoding="utf-8"))
    try:
        os.kill(pid, 0)  # still alive after the agent exited
        assert os.getpgid(pid) == int(agent_pidfile.read_text(encoding="utf-8"))
    finally:
        os.kill(pid, signal.SIGKILL)


def test_pidfile_writes_the_agent_pid(repo: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "agent.pid"
    done = run_agent(repo, f"pidfile:{pidfile}")
    assert done.returncode == 0, done.stderr
    assert f"pid {int(pidfile.read_text(encoding='utf-8'))}" in done.stdout


def test_mark_appends_one_line_per_run(repo: Path, tmp_path: Path) -> None:
    marks = tmp_path / "marks.txt"
    assert run_agent(repo, f"mark:{marks}", env={"CODEDESK_JOB": "job-4"}).returncode == 0
    interrupted = {"CODEDESK_JOB": "job-4", "CODEDESK_INTERRUPTED": "1"}
    assert run_agent(repo, f"mark:{marks}", env=interrupted).returncode == 0
    assert marks.read_text(encoding="utf-8").splitlines() == [
        "run job-4 interrupted=0",
        "run job-4 interrupted=1",
    ]


def test_mark_without_a_path_prints_it_in_the_order_of_the_hosts_clock(repo: Path) -> None:
    # What a sandboxed agent can do: its output reaches the job's log on the host.
    first = run_agent(repo, "mark", env={"CODEDESK_JOB": "7"})
    second = run_agent(repo, "mark", env={"CODEDESK_JOB": "8", "CODEDESK_INTERRUPTED": "1"})
    stamps = []
    for done, expected in ((first, "run 7 interrupted=0"), (second, "run 8 interrupted=1")):
        assert done.returncode == 0, done.stderr
        line = done.stdout.splitlines()[0]
        assert line.startswith(f"scripted agent: mark {expected} at "), line
        stamps.append(int(line.rsplit(" ", 1)[1]))
    assert stamps[0] < stamps[1]


def test_env_writes_the_codedesk_variables(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "env.json"
    env = {"CODEDESK_JOB": "job-9", "CODEDESK_TASK": "fix it", "OTHER_THING": "no"}
    done = run_agent(repo, f"env:{out}", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text(encoding="utf-8")) == {
        "CODEDESK_JOB": "job-9",
        "CODEDESK_TASK": "fix it",
    }


def test_say_many_prints_numbered_lines(repo: Path) -> None:
    done = run_agent(repo, "say-many:3")
    assert done.stdout.splitlines()[:3] == ["line 1", "line 2", "line 3"]


@pytest.mark.parametrize("step", ["bogus", "sleep:soon", "write:no-equals-sign", "crash:now"])
def test_unknown_or_malformed_step_exits_2(repo: Path, step: str) -> None:
    done = run_agent(repo, "say:before", step, "say:after")
    assert done.returncode == 2
    assert "scripted agent:" in done.stderr
    assert "after" not in done.stdout
