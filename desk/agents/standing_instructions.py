"""The agent's standing instructions: the job's contract, and the parts codedesk's guards need.

Every preset hands the agent these instructions the way its CLI takes a system or developer
prompt (desk/agents/presets.py says how, per preset), never by writing into the repository. The
owner may replace the text (`CODEDESK_AGENT_INSTRUCTIONS`, a file), but a replacement must still say
what codedesk's guards rely on: the agent commits (integration takes commits only), it never
ships (the push waits for an owner), it keeps to its worktree, and it neither retries nor works
around a refused call (a hold is only a hold if the agent accepts its answer). A replacement
without one of those sentences is refused with `InstructionsError`, naming what is missing.

A job's report names the instructions its agent had (`InstructionsUsed`: a name and a digest,
never the text), so an owner can tell which text a job ran under.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from desk.errors import InstructionsError

INSTRUCTIONS_VERSION = 1
"""Bumped whenever the built-in text changes, so reports tell the texts apart by name too."""
BUILT_IN_NAME = f"codedesk v{INSTRUCTIONS_VERSION}"
INSTRUCTIONS_SETTING = "CODEDESK_AGENT_INSTRUCTIONS"
MAX_INSTRUCTIONS_BYTES = 32 * 1024
"""The longest text taken: Claude Code gets it as one argument, which Linux caps at 128 KiB."""


@dataclass(frozen=True)
class RequiredPart:
    """A sentence every instructions text must contain, and the guard that relies on it."""

    name: str
    sentence: str
    why: str


REQUIRED_PARTS: tuple[RequiredPart, ...] = (
    RequiredPart(
        "worktree",
        "Work only in this job's worktree (the current directory) and on its branch.",
        "the job integrates that branch, and holds are judged against that worktree",
    ),
    RequiredPart(
        "commit",
        "Commit your work before you finish: codedesk integrates commits, not uncommitted changes.",
        "a job whose agent leaves uncommitted changes is refused",
    ),
    RequiredPart(
        "no shipping",
        "Never push, publish or change the forge: codedesk ships the work after a person "
        "approves it.",
        "shipping waits for an owner's approval of the exact commit",
    ),
    RequiredPart(
        "refusals",
        "A refused or declined call must not be retried or worked around: list it in your "
        "final answer.",
        "a held call's refusal holds only if the agent accepts it, and the report lists it",
    ),
)

BUILT_IN_TEXT = f"""\
Standing instructions for this coding job (codedesk, version {INSTRUCTIONS_VERSION}).

You work unattended on a task in a git worktree that codedesk prepared for this job.

- {REQUIRED_PARTS[0].sentence}
- Read and follow the repository's own instructions before you change anything: files such as \
CLAUDE.md, AGENTS.md, CONTRIBUTING.md and the README's notes for developers.
- Run the repository's checks (its tests, linters and type checkers, as its instructions say) \
and fix what your change breaks.
- {REQUIRED_PARTS[1].sentence} Use the repository's commit conventions.
- {REQUIRED_PARTS[2].sentence}
- {REQUIRED_PARTS[3].sentence}
- End with a short final answer: what you changed, the checks you ran and their results.
"""


@dataclass(frozen=True)
class Instructions:
    """A text the agent gets, with the name a report gives it."""

    name: str
    text: str

    @property
    def digest(self) -> str:
        """`sha256:<hex>` of the text: what a report records instead of the text."""
        return "sha256:" + hashlib.sha256(self.text.encode()).hexdigest()


BUILT_IN = Instructions(BUILT_IN_NAME, BUILT_IN_TEXT)


def _normal(text: str) -> str:
    """Text compared without regard to case, line breaks or runs of spaces."""
    return " ".join(text.split()).casefold()


def missing_parts(text: str) -> list[RequiredPart]:
    """The required parts whose sentence `text` does not contain."""
    have = _normal(text)
    return [part for part in REQUIRED_PARTS if _normal(part.sentence) not in have]


def owner_instructions(name: str, text: str, where: str) -> Instructions:
    """The owner's replacement named `name` (read from `where`), or InstructionsError when it
    is empty, too long or lacks a required part."""
    if not text.strip():
        raise InstructionsError(
            f"The agent instructions in {where} ({INSTRUCTIONS_SETTING}) are empty: write the "
            f"job's rules there, or unset {INSTRUCTIONS_SETTING} to use codedesk's own."
        )
    size = len(text.encode())
    if size > MAX_INSTRUCTIONS_BYTES:
        raise InstructionsError(
            f"The agent instructions in {where} ({INSTRUCTIONS_SETTING}) are {size} bytes, more "
            f"than the {MAX_INSTRUCTIONS_BYTES} codedesk passes to an agent: shorten them."
        )
    missing = missing_parts(text)
    if missing:
        listed = "; ".join(f'{part.name} ("{part.sentence}": {part.why})' for part in missing)
        raise InstructionsError(
            f"The agent instructions in {where} ({INSTRUCTIONS_SETTING}) lack parts codedesk's "
            f"guards rely on: {listed}. Add each sentence as it is written here, or unset "
            f"{INSTRUCTIONS_SETTING} to use codedesk's own instructions."
        )
    return Instructions(f"owner's {name}", text)
