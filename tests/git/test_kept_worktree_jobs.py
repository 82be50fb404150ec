"""Jobs through the desk on kept worktrees, agents in the product's sandbox: what an agent leaves
in the worktree it is done with never reaches the job that takes that worktree next, and each
job still gets its set-up, its copies and a worktree of its own."""

from __future__ import annotations

import asyncio
from pathlib import Path

from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from desk.records.repo_setup import SetRepoSetup
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from tests.helpers.agents import agent
from tests.helpers.repos import git, make_origin
from tests.helpers.waiting import until

REPO = "acme/api"
FILES = {
    "README.md": "# api\n",
    ".gitignore": "build/\n*.log\n",
    "src/app.py": "print('app')\n",
    "src/util.py": "print('util')\n",
}
IDENTITY = "-c user.name=agent -c user.email=agent@codedesk.invalid"

ATTACKER = f"""\
set -u
admin=$(git rev-parse --absolute-git-dir)
# Ignored files and folders (a nested repository among them): git status calls the tree clean.
mkdir -p build/deep build/nested && echo object > build/deep/out.o && echo log > debug.log
git -C build/nested init --quiet
# Tracked files changed and hidden from git status by the agent's own index.
echo hidden > src/app.py && git update-index --skip-worktree src/app.py
echo hidden > src/util.py && git update-index --assume-unchanged src/util.py
# Everything it can write in its worktree's admin dir.
printf '[core]\\n\\tsparseCheckout = true\\n' > "$admin/config.worktree"
mkdir -p "$admin/info" "$admin/refs/worktree" "$admin/logs"
echo /README.md > "$admin/info/sparse-checkout"
git rev-parse HEAD > "$admin/refs/worktree/planted"
echo planted >> "$admin/logs/HEAD"
echo planted > "$admin/planted"
# A stash and a setting (the sandbox refuses both: the clone's .git is read-only to it).
git stash push --quiet --all --message planted 2>/dev/null
git config user.planted yes 2>/dev/null
# One commit, so that the job integrates and hands its worktree back.
echo one > one.txt && git {IDENTITY} add one.txt && git {IDENTITY} commit --quiet -m one
"""

LOOKER = f"""\
{{
  echo "git file: $(cat .git)"
  echo "status:"; git status --porcelain --ignored --untracked-files=all
  echo "flagged:"; git ls-files -v | grep -v '^H ' 
  echo "stashes:"; git stash list
  echo "admin:"; ls -A "$(git rev-parse --absolute-git-dir)"
  echo "worktree refs:"; git for-each-ref refs/worktree
  echo "settings:"; git config --list --show-scope | grep -e planted -e sparse
  echo "files:"; cat src/app.py src/util.py
}} > /tmp/seen.txt
mv /tmp/seen.txt seen.txt
git {IDENTITY} add seen.txt && git {IDENTITY} commit --quiet -m seen
"""


async def clone_of(desk: DeskClient, tmp_path: Path) -> Path:
    origin = make_origin(tmp_path / "origins" / "api.git", FILES)
    return Path((await desk.add_repo(REPO, str(origin))).path)


def script(gates: Path, name: str, text: str) -> str:
    """An agent command running `text` with sh (the gates folder is readable in the sandbox)."""
    path = gates / f"{name}.sh"
    path.write_text(text)
    return f"sh {path}"


async def test_nothing_an_agent_leaves_reaches_the_job_that_takes_its_worktree_next(
    desk: DeskClient, tmp_path: Path, gates: Path
) -> None:
    clone = await clone_of(desk, tmp_path)
    first = await desk.start_job(REPO, "attack", agent_command=script(gates, "attack", ATTACKER))
    report = await desk.wait(first)
    assert report.outcome == JobOutcome.INTEGRATED, report
    second = await desk.start_job(REPO, "look", agent_command=script(gates, "look", LOOKER))
    report = await desk.wait(second)
    assert report.outcome == JobOutcome.INTEGRATED, report

    seen = (clone / "seen.txt").read_text()
    admin = clone / ".git" / "worktrees" / str(first)
    assert seen == (
        f"git file: gitdir: {admin}\n"  # the first job's worktree, taken by the second
        "status:\nflagged:\nstashes:\n"
        "admin:\nHEAD\ncommondir\ngitdir\nindex\n"
        "worktree refs:\nsettings:\n"
        "files:\nprint('app')\nprint('util')\n"
    )
    assert git(clone, "stash", "list") == ""
    assert "planted" not in git(clone, "config", "--list")


async def test_each_job_on_a_kept_worktree_gets_its_own_set_up_and_copies(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    clone = await clone_of(desk, tmp_path)
    (clone / ".env").write_text("KEY=owner\n")
    change = SetRepoSetup(
        repo=REPO,
        setup="mkdir -p build && echo ran >> build/setup.log",
        copy_files=[".env"],
    )
    await RepoSetupClient(desk.client, settings).configure(change)
    steps = (
        "require:.env=KEY=owner\\n",
        "require:build/setup.log=ran\\n",
        "write:.env=KEY=agent",
        "append:build/setup.log=agent",
    )
    numbers = []
    for name in ("one", "two"):
        command = agent(*steps, f"write:{name}.txt={name}", f"commit:{name}")
        numbers.append(await desk.start_job(REPO, name, agent_command=command))
        report = await desk.wait(numbers[-1])
        assert report.outcome == JobOutcome.INTEGRATED, report
    assert (clone / "one.txt").exists() and (clone / "two.txt").exists()
    assert git(clone, "worktree", "list", "--porcelain").count("worktree ") == 2
    kept = tmp_path / "home" / "shelf" / ".worktrees" / "acme" / "api" / ".kept"
    assert [path.name for path in kept.iterdir() if path.is_dir()] == [str(numbers[0])]


async def test_a_failed_job_hands_an_empty_worktree_on_and_keeps_one_with_work(
    desk: DeskClient, tmp_path: Path
) -> None:
    clone = await clone_of(desk, tmp_path)
    failed = await desk.start_job(
        REPO, "fail", agent_command=agent("write:build/out.o=x", "write:debug.log=x", "exit:3")
    )
    report = await desk.wait(failed)
    assert report.outcome == JobOutcome.FAILED and not report.branch_kept, report
    draft = await desk.start_job(
        REPO, "draft", agent_command=agent("require:README.md=# api\\n", "write:draft.txt=wip")
    )
    report = await desk.wait(draft)
    assert report.outcome == JobOutcome.REFUSED and report.branch_kept, report
    kept_work = Path(report.worktree)
    assert (kept_work / ".git").read_text().strip().endswith(f"worktrees/{failed}")
    assert not (kept_work / "build").exists() and not (kept_work / "debug.log").exists()

    later = await desk.start_job(
        REPO, "later", agent_command=agent("write:later.txt=later", "commit:later")
    )
    report = await desk.wait(later)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (kept_work / "draft.txt").read_text() == "wip", "a worktree with work stays as it is"
    trees = git(clone, "worktree", "list", "--porcelain")
    assert f"worktree {kept_work}\n" in trees
    assert f".kept/{later}\n" in trees, "the later job cut a new worktree, now kept"


async def test_jobs_at_once_each_work_in_a_worktree_of_their_own(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path, gates: Path
) -> None:
    clone = await clone_of(desk, tmp_path)
    first = await desk.start_job(REPO, "a", agent_command=agent("write:a.txt=a", "commit:a"))
    assert (await desk.wait(first)).outcome == JobOutcome.INTEGRATED
    go = gates / "go"
    waiting = f"""\
while [ ! -e {go} ]; do sleep 0.05; done
name=$(basename "$PWD")
cat .git > "$name.txt"
git {IDENTITY} add "$name.txt" && git {IDENTITY} commit --quiet -m "$name"
"""
    command = script(gates, "together", waiting)
    numbers = [await desk.start_job(REPO, name, agent_command=command) for name in "bcd"]
    for number in numbers:  # all three at work at once before any may end
        await until((settings.jobs_dir / str(number) / "agent.log").exists, f"job {number}")
    go.touch()
    reports = await asyncio.gather(*(desk.wait(number) for number in numbers))
    assert [report.outcome for report in reports] == [JobOutcome.INTEGRATED] * 3, reports
    admins = {(clone / f"{number}.txt").read_text() for number in numbers}
    assert len(admins) == 3, admins
    assert f"gitdir: {clone / '.git' / 'worktrees' / str(first)}\n" in admins
