"""What one command does, as the shell rule's command tables see it: the words they report."""

from __future__ import annotations

from enum import StrEnum


class HoldClass(StrEnum):
    """Why a shell command waits for a person before it runs."""

    PUSH = "push"
    DESTRUCTIVE = "destructive"
    PRIVILEGED = "privileged"
    OUTSIDE_WORKSPACE = "outside_workspace"


class Findings:
    """What a command does that the rule weighs, before its paths are placed.

    `classes` hold as they are; `writes` are paths written (outside the workspace: held),
    `removes` paths removed by force (not strictly inside: destructive), `repos` repositories a
    git command writes (outside: held), `modes` paths whose mode or owner changes (outside:
    held, privileged for system paths), `links` symlinks made; `scripts` are shell text and
    `commands` argument lists it runs, read in turn; `guesses` are argument lists that may be
    commands (the rule counts only what they surely do); `unresolved` says the rule cannot tell
    what the command runs.
    """

    __slots__ = (
        "classes",
        "writes",
        "removes",
        "repos",
        "modes",
        "links",
        "scripts",
        "commands",
        "guesses",
        "unresolved",
    )

    def __init__(self, *classes: HoldClass) -> None:
        self.classes: set[HoldClass] = set(classes)
        self.writes: list[tuple[str, bool]] = []  # (path, whether a final symlink is followed)
        self.removes: list[tuple[str, bool]] = []
        self.repos: list[str] = []
        self.modes: list[str] = []  # paths whose owner or mode changes
        self.links: list[tuple[str, str]] = []  # (link, target) of symlinks made
        self.scripts: list[str] = []
        self.commands: list[list[str]] = []
        self.guesses: list[list[str]] = []
        self.unresolved = False

    def write(self, *paths: str, follow: bool = True) -> Findings:
        self.writes += [(path, follow) for path in paths]
        return self

    def add(self, *classes: HoldClass) -> Findings:
        self.classes.update(classes)
        return self

    def merge(self, other: Findings) -> Findings:
        """Add what another reading of the same command found."""
        self.classes |= other.classes
        self.writes += other.writes
        self.removes += other.removes
        self.repos += other.repos
        self.modes += other.modes
        self.links += other.links
        self.scripts += other.scripts
        self.commands += other.commands
        self.guesses += other.guesses
        self.unresolved |= other.unresolved
        return self


def unresolved() -> Findings:
    """Findings of a command the rule cannot read: held for every class."""
    found = Findings()
    found.unresolved = True
    return found
