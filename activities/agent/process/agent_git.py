"""The sandboxed agent's git: its branch ref and new objects live in a per-job folder.

Inside the sandbox the clone's `.git` is read-only. Writable are only the worktree's admin
dir (`.git/worktrees/<name>`: HEAD, index), a per-job folder bound over the directory that
holds the job branch's ref (and its reflog), and a per-job objects dir (`GIT_OBJECT_DIRECTORY`,
with the clone's objects as alternates). So the agent commits on its branch and can move no
other ref, write no config and rewrite no object of the clone.

After the agent (its whole tree is dead by then), the host takes its branch back: it first
rewrites every pointer the agent could have changed (the worktree's `.git` file, the admin
dir's `commondir`, `gitdir` and `HEAD`, no `config.worktree`), so host-side git never reads
config the agent wrote; then it copies the new objects into the clone through a pack (git
hashes every object again), checks that the tip is complete, and moves the branch to it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from activities.git.git_commands import SAFE_CONFIG, git_env, run_git, try_git
from activities.git.worktree_admin import worktree_list_lock
from desk.errors import SandboxError
from desk.payloads.jobs import Worktree

STATE_DIR = "git"
ADMIN_RECEIPT = "admin-dir"
SHARED_POINTERS = ("commondir", "gitdir")
"""Files of the worktree's admin dir that git reads for every worktree of the clone."""
SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


@dataclass(frozen=True)
class AgentGit:
    """Where job `n`'s git lives on the host and what the sandbox binds of it."""

    clone_git: Path
    admin: Path
    worktree: Path
    branch: str
    state: Path

    @property
    def refs(self) -> Path:
        return self.state / "refs"

    @property
    def logs(self) -> Path:
        return self.state / "logs"

    @property
    def objects(self) -> Path:
        return self.state / "objects"

    @property
    def leaf(self) -> str:
        return self.branch.rsplit("/", 1)[-1]

    @property
    def ref_dir(self) -> Path:
        """The clone's directory holding the branch's loose ref (bound over inside)."""
        return (self.clone_git / "refs" / "heads" / self.branch).parent

    @property
    def log_dir(self) -> Path:
        return (self.clone_git / "logs" / "refs" / "heads" / self.branch).parent

    def binds(self) -> tuple[list[tuple[Path, Path]], list[Path]]:
        """(writable `source -> inside` pairs, read-only paths) for the sandbox.

        In the writable admin dir, `commondir` and `gitdir` stay read-only: every other job's
        `git worktree add` reads them, and one made a folder failed them all while the agent
        ran (a wrong `gitdir` lets a prune drop the admin dir). Bound deeper, they win.
        """
        writable = [
            (self.admin, self.admin),
            (self.refs, self.ref_dir),
            (self.logs, self.log_dir),
            (self.objects, self.objects),
        ]
        pointers = [self.admin / name for name in SHARED_POINTERS]
        return writable, [self.clone_git, *(path for path in pointers if path.is_file())]

    def environment(self) -> dict[str, str]:
        return {
            "GIT_OBJECT_DIRECTORY": str(self.objects),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(self.clone_git / "objects"),
        }


def agent_git(job_folder: Path, worktree: Worktree) -> AgentGit:
    """The layout of the job whose folder is `job_folder`, found before its agent first ran.

    The admin dir is read from the worktree's `.git` file only the first time (the agent has
    not run yet) and kept in the job folder, which the agent cannot write.
    """
    state = job_folder / STATE_DIR
    path = Path(worktree.path)
    receipt = state / ADMIN_RECEIPT
    if receipt.is_file():
        admin = Path(receipt.read_text().strip())
    else:
        pointer = (path / ".git").read_text().strip()
        if not pointer.startswith("gitdir: "):
            raise SandboxError(f"The worktree {path} has no `.git` file naming its git dir.")
        admin = Path(pointer.removeprefix("gitdir: ")).resolve()
        state.mkdir(parents=True, exist_ok=True)
        receipt.write_text(f"{admin}\n")
    clone_git = admin.parent.parent
    if admin.parent.name != "worktrees" or not (clone_git / "objects").is_dir():
        raise SandboxError(f"The worktree {path} points at {admin}, not into a clone's .git.")
    return AgentGit(clone_git, admin, path, worktree.branch, state)


def prepare(layout: AgentGit) -> None:
    """Take back what an earlier attempt left, then give the agent a fresh ref and objects."""
    if layout.refs.exists():
        take_back(layout)
    for folder in (layout.logs, layout.objects):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    layout.ref_dir.mkdir(parents=True, exist_ok=True)
    layout.log_dir.mkdir(parents=True, exist_ok=True)
    # The folder stands in for the clone's whole ref folder (all of `refs/heads` for a branch
    # without a slash): copies of the refs beside the branch keep them visible to the agent.
    # Only the branch's own ref is ever taken back.
    shutil.rmtree(layout.refs, ignore_errors=True)
    _copy_refs(layout.ref_dir, layout.refs)
    if _loose_ref(layout.refs / layout.leaf) is None:  # packed: no file of its own to copy
        tip = run_git(layout.clone_git, "rev-parse", "--verify", f"refs/heads/{layout.branch}")
        (layout.refs / layout.leaf).write_text(f"{tip.strip()}\n")


def _loose_ref(path: Path) -> str | None:
    """The commit a loose ref file names, or None when there is none there to read.

    Read only where the agent cannot write (the clone's own ref, or its copy before the agent
    starts): a git process less at each end of the agent (issue 13).
    """
    try:
        tip = path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return tip if SHA.match(tip) else None


def _copy_refs(source: Path, target: Path) -> None:
    """Copy a folder of loose refs, skipping any that vanish meanwhile.

    Other jobs delete their branches beside this one as they integrate: a ref listed and gone
    a moment later (seen in a bench: `worker/16` while job 18 started) is simply not copied,
    instead of failing the agent's attempt.
    """
    target.mkdir(parents=True, exist_ok=True)
    try:
        entries = list(os.scandir(source))
    except FileNotFoundError:
        return
    for entry in entries:
        inside = target / entry.name
        try:
            if entry.is_symlink():
                inside.symlink_to(os.readlink(entry.path))
            elif entry.is_dir():
                _copy_refs(Path(entry.path), inside)
            else:
                shutil.copy2(entry.path, inside)
        except FileNotFoundError:
            continue


def take_back(layout: AgentGit) -> str:
    """Restore the pointers, import the agent's branch; returns what happened, for the log.

    A clone deleted while the agent ran has no branch to take back to: that is said, and the
    job's next step (which needs the clone) says what the user must do.
    """
    if not layout.clone_git.is_dir() or not layout.worktree.is_dir():
        return (
            f"codedesk: the clone {layout.clone_git.parent} or the job's worktree is gone; "
            "the agent's branch was not taken back."
        )
    _restore_pointers(layout)
    try:
        tip = (layout.refs / layout.leaf).read_text().strip()
    except (OSError, UnicodeDecodeError):
        return "codedesk: the agent's branch ref is gone; the branch is unchanged."
    if not SHA.match(tip):
        return "codedesk: the agent's branch ref is not a commit id; the branch is unchanged."
    ref = f"refs/heads/{layout.branch}"
    current = (
        _loose_ref(layout.clone_git / ref)
        or run_git(layout.clone_git, "rev-parse", "--verify", ref).strip()
    )
    if tip == current:
        return ""
    try:
        _import_objects(layout, tip, current)
    except SandboxError as error:
        return f"codedesk: {error}"
    # git itself refuses to set a branch to anything but a commit (a tree, a tag, a blob).
    moved, detail = try_git(layout.clone_git, "update-ref", ref, tip, current)
    if not moved:
        return (
            f"codedesk: the agent's branch names {tip[:12]}, which cannot become branch "
            f"{layout.branch} ({detail.strip()}); branch {layout.branch} is unchanged."
        )
    return f"codedesk: branch {layout.branch} moved to the agent's commit {tip[:12]}."


def settle(job_folder: Path, worktree: Worktree) -> str:
    """Take back a sandboxed agent's branch that its own attempt could not (its worker died
    and the job ended without a retry), before host-side git touches the worktree."""
    if not (job_folder / STATE_DIR / "refs").exists() or not Path(worktree.path).is_dir():
        return ""
    layout = agent_git(job_folder, worktree)
    told = take_back(layout)
    clean(layout)
    return told


def _restore_pointers(layout: AgentGit) -> None:
    """Rewrite what the agent could have changed, under the clone's worktree-list lock and
    each file replaced whole: another job's `git worktree add` or `prune` reads every
    worktree's admin dir, and one that read `commondir` as it was being rewritten failed with
    "failed to read .git/worktrees/<n>/commondir" (a job refused, seen in a bench)."""
    dot_git = layout.worktree / ".git"
    with worktree_list_lock(layout.clone_git.parent):
        _replace(dot_git, f"gitdir: {layout.admin}\n")
        # Host-side git appends to some files here (the reflog `logs/HEAD`) through any link.
        _drop_links(layout.admin)
        # A lock would keep host git from removing the worktree once the job is done.
        for planted in ("config.worktree", "locked"):
            _remove(layout.admin / planted)
        for name, text in (
            ("commondir", "../..\n"),
            ("gitdir", f"{dot_git}\n"),
            ("HEAD", f"ref: refs/heads/{layout.branch}\n"),
        ):
            _replace(layout.admin / name, text)


def _drop_folder(path: Path) -> None:
    """Remove a real folder at `path` with all it holds (a link or a file is left alone)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)


def _remove(path: Path) -> None:
    """Remove a file, a link or a whole folder at `path`; nothing there is fine."""
    _drop_folder(path)
    path.unlink(missing_ok=True)


def _replace(path: Path, text: str) -> None:
    """Put `text` at `path` in one step (a link there is replaced, never followed; a folder
    the agent put there goes first, as `os.replace` cannot replace one)."""
    _drop_folder(path)
    staged = path.with_name(f".{path.name}.codedesk-new")
    _remove(staged)  # the admin dir is the agent's to write: whatever it left there goes
    staged.write_text(text)
    os.replace(staged, path)


def _import_objects(layout: AgentGit, tip: str, current: str) -> None:
    """Copy the objects of `current..tip` into the clone, hashed again, and check them.

    The agent's alternates and symbolic links go first: through them it could name objects
    of any repository the host can read (another clone on the shelf) and have them copied in.
    """
    _drop_links(layout.objects)
    for name in ("alternates", "http-alternates"):
        (layout.objects / "info" / name).unlink(missing_ok=True)
    git = ["git", *SAFE_CONFIG, f"--git-dir={layout.clone_git}"]
    reading = git_env()
    reading["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(layout.objects)
    with subprocess.Popen(
        [*git, "pack-objects", "--revs", "--stdout", "-q"],
        env=reading,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as packing:
        assert packing.stdin is not None and packing.stdout is not None
        packing.stdin.write(f"{tip}\n--not\n{current}\n".encode())
        packing.stdin.close()
        unpacked = subprocess.run(
            [*git, "unpack-objects", "-q"],
            env=git_env(),
            stdin=packing.stdout,
            capture_output=True,
            check=False,
        )
    if packing.returncode != 0 or unpacked.returncode != 0:
        raise SandboxError(
            f"the agent's commit {tip[:12]} could not be read from its objects; "
            f"branch {layout.branch} is unchanged."
        )
    complete, _ = try_git(layout.clone_git, "rev-list", "--objects", tip, "--not", current)
    if not complete:
        raise SandboxError(
            f"the agent's commit {tip[:12]} is incomplete; branch {layout.branch} is unchanged."
        )


def _drop_links(folder: Path) -> None:
    """Remove every symbolic link (and anything but files and folders) under `folder`."""
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            entry = Path(root, name)
            if entry.is_symlink() or not (entry.is_dir() or entry.is_file()):
                entry.unlink()


def clean(layout: AgentGit) -> None:
    """Drop the agent's ref and objects once they are in the clone."""
    for folder in (layout.refs, layout.logs, layout.objects):
        shutil.rmtree(folder, ignore_errors=True)
