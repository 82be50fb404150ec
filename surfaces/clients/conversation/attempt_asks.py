"""What a person asks for when they ask for several attempts (`codedesk task --agents/--attempts`,
Discord's `/task agents:/attempts:`), read into the job's attempt specs, with the same refusals
wherever it was asked; only the options' spelling differs (`OptionNames`)."""

from __future__ import annotations

from dataclasses import dataclass

from desk.agents.presets import PRESETS, preset_command
from desk.errors import AgentCommandError
from desk.names import ATTEMPT_LABELS
from desk.payloads.conversation.attempt_payloads import AttemptSpec, attempt_specs


@dataclass(frozen=True)
class OptionNames:
    """How a surface spells the three options in its refusals."""

    agents: str
    attempts: str
    pick_first_passing: str


CLI_OPTIONS = OptionNames("--agents", "--attempts", "--pick-first-passing")


def attempts_asked(
    agents: str | None,
    count: int | None,
    command: str | None,
    *,
    pick_first_passing: bool = False,
    names: OptionNames = CLI_OPTIONS,
) -> list[AttemptSpec]:
    """The attempts `agents` (presets, comma-separated) or `count` (K runs of `command`) ask for;
    none when neither is given. Both at once, fewer than two, an unknown preset, and a
    `pick_first_passing` with no attempts to pick among are refused (`AgentCommandError`)."""
    if agents is not None and count is not None:
        raise AgentCommandError(f"Give {names.agents} or {names.attempts}, not both.")
    if pick_first_passing and agents is None and count is None:
        raise AgentCommandError(
            f"{names.pick_first_passing} picks among attempts: give {names.agents} or "
            f"{names.attempts} too."
        )
    if agents is not None:
        listed = [name.strip() for name in agents.split(",") if name.strip()]
        unknown = [name for name in listed if name not in PRESETS]
        if unknown or len(listed) < 2:
            raise AgentCommandError(
                f"{names.agents} {agents!r}: name two presets or more, separated by commas, "
                f"from {', '.join(sorted(PRESETS))}"
                + (f" ({', '.join(unknown)} is none)." if unknown else ".")
            )
        return attempt_specs([(name, preset_command(name)) for name in listed])
    if count is None:
        return []
    if not 2 <= count <= len(ATTEMPT_LABELS):
        raise AgentCommandError(
            f"{names.attempts} {count}: ask for 2 or more (the host says how many)."
        )
    return attempt_specs([("", command or "")] * count)
