"""The agent's own home in the job's folder, seeded from the owner's configuration of its CLI.

What is seeded and what is a credential is desk/agents/homes.py's. The home is kept across the
job's attempts (a CLI's sessions live there); each attempt seeds it again from the owner's files
as they are then. The agent may have written anything into it, links included, so the worker
never writes through a link: a path whose folder leads out of the home, or that is a link
itself, is not seeded.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from desk.agents.homes import CLI_HOMES, CliHome, owner_folder, without_credentials

SEED_LIMIT = 1 << 20
"""A configuration file larger than this (1 MiB) is no configuration: it is not seeded."""
SKIPPED_FOLDERS = frozenset({"node_modules", ".git"})


def seed_cli_home(
    home: Path, program: str, environ: Mapping[str, str], owner_home: Path
) -> list[Path]:
    """Make `home` and seed it for the CLI `program` runs (by file name); the seeded files."""
    home.mkdir(parents=True, exist_ok=True)
    cli = CLI_HOMES.get(program.rsplit("/", 1)[-1])
    if cli is None:
        return []
    source = Path(owner_folder(cli, dict(environ), str(owner_home))).expanduser()
    seeded = []
    for relative, path in _owner_files(cli, source):
        target = home / cli.folder / relative
        if _write_inside(home, target, path):
            seeded.append(target)
    return seeded


def _owner_files(cli: CliHome, source: Path) -> Iterator[tuple[Path, Path]]:
    """The owner's files to seed (relative to the CLI's folder, and where they are)."""
    for seed in cli.seeds:
        path = source / seed
        if path.is_file():
            yield Path(seed), path
        elif path.is_dir():
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_FOLDERS and d not in cli.never)
                for name in sorted(files):
                    if name not in cli.never:
                        found = Path(folder, name)
                        yield found.relative_to(source), found


def _write_inside(home: Path, target: Path, source: Path) -> bool:
    """Write `source`'s text without credentials at `target`, only inside `home`."""
    try:
        if source.stat().st_size > SEED_LIMIT:
            return False
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    folder = folder_inside(home, target.parent)
    if folder is None:
        return False
    if target.is_symlink() or target.is_dir():
        return False
    target.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    descriptor = os.open(target, flags, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(without_credentials(source.name, text))
    return True


def folder_inside(home: Path, folder: Path) -> Path | None:
    """`folder`, made one part at a time under `home`, or None where a part is a link or no
    folder (a link the agent planted would lead the worker's write out of the home)."""
    current = home
    for part in folder.relative_to(home).parts:
        current = current / part
        if current.is_symlink():
            return None
        if not current.exists():
            current.mkdir()
        elif not current.is_dir():
            return None
    return current
