"""Autonomy modes (yolo, long-running): their scopes, switches and what a job follows.

A mode is set on a scope: the desk (the default), one chat channel or thread (the jobs started
there) or one job. A job follows the most specific scope that says anything. The `Desk` entity
keeps every scope's switches in `ModeBoard`; a job is told its effective `JobModes`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import Field

from desk.errors import DeskError, JobFinishedError, JobNotFoundError, ModeError
from desk.holds.approvals import Principal
from desk.policy.host import HostPolicy
from desk.records.base import Payload, ScrubbedText
from desk.shell_rule.shell_calls import ALWAYS

MODE_HISTORY = 50
"""How many switches (and, apart, refusals) the desk keeps for `codedesk mode`."""


class Mode(StrEnum):
    YOLO = "yolo"
    """Held calls whose classes yolo allows are approved without a card."""
    LONG_RUNNING = "long-running"
    """A job at its work budget goes on, up to a hard ceiling."""


class ScopeKind(StrEnum):
    DESK = "desk"
    CHANNEL = "channel"
    JOB = "job"


ON_OFF = {"on": True, "off": False}


class ModeSwitch(Payload):
    """One switch of one mode on one scope: who made it and when."""

    mode: Mode
    on: bool
    scope: ScopeKind = ScopeKind.DESK
    target: str = ""
    """The channel id or job number of the scope (empty for the desk)."""
    by: Principal | None = None
    at: datetime | None = None

    def said(self) -> str:
        """`yolo on (desk, by alice)`: one line for listings, notices and reports."""
        where = self.scope.value + (f" {self.target}" if self.target else "")
        who = f", by {self.by.name or self.by.id}" if self.by else ""
        return f"{self.mode.value} {'on' if self.on else 'off'} ({where}{who})"


class ModeRequest(Payload):
    """An Update to the desk: switch `mode` on or off on a scope, asked by `by`.

    The desk's host policy says who may: `by` among its owners, or one of `roles` (the Discord
    roles the bot read of `by`) among its owner roles; a switch by anyone else is refused and
    recorded. `owners` is read only for a desk without a policy's patch (older histories).
    """

    mode: str
    value: str
    scope: str = ScopeKind.DESK.value
    target: str = ""
    by: Principal
    owners: list[str] = Field(default_factory=list)
    roles: list[str] = Field(default_factory=list)


class ModeRefusal(Payload):
    """A switch the desk refused because its asker may not switch modes."""

    request: ModeRequest
    reason: ScrubbedText
    at: datetime | None = None


class ModeSwitched(Payload):
    """The desk's answer to a switch: the switch, and the running jobs it reached."""

    switch: ModeSwitch
    jobs: list[int] = Field(default_factory=list)


class JobModes(Payload):
    """The switches a job follows now, one per mode (None: no scope said anything)."""

    yolo: ModeSwitch | None = None
    long_running: ModeSwitch | None = None

    def of(self, mode: Mode) -> ModeSwitch | None:
        return self.yolo if mode == Mode.YOLO else self.long_running

    def is_on(self, mode: Mode) -> bool:
        switch = self.of(mode)
        return switch is not None and switch.on


def modes_said(modes: JobModes, following: Iterable[str]) -> str:
    """`yolo on (desk, by alice); long-running off`: what a job's scopes say, and where it does
    not follow them."""
    followed = set(following)
    said = []
    for mode in Mode:
        switch = modes.of(mode)
        if switch is None:
            said.append(f"{mode.value} off")
        elif switch.on and mode.value not in followed:
            said.append(f"{switch.said()}, not followed: the job's starter is no owner")
        else:
            said.append(switch.said())
    return "; ".join(said)


class ModeBoard(Payload):
    """Every scope's latest switch per mode, kept by the `Desk` across continue-as-new."""

    desk: dict[Mode, ModeSwitch] = Field(default_factory=dict)
    channels: dict[str, dict[Mode, ModeSwitch]] = Field(default_factory=dict)
    jobs: dict[int, dict[Mode, ModeSwitch]] = Field(default_factory=dict)
    job_channels: dict[int, list[str]] = Field(default_factory=dict)
    """Each running job's channels, most specific first: its own thread, then the channel (or
    thread) it was started from."""
    switches: list[ModeSwitch] = Field(default_factory=list)
    """The latest switches, newest last (at most `MODE_HISTORY`)."""
    refusals: list[ModeRefusal] = Field(default_factory=list)

    def modes_for(self, number: int) -> JobModes:
        """What job `number` follows: its own switch, else its channel's, else the desk's."""
        channels = [self.channels.get(channel, {}) for channel in self.job_channels.get(number, [])]
        layers = [self.jobs.get(number, {}), *channels, self.desk]

        def first(mode: Mode) -> ModeSwitch | None:
            return next((layer[mode] for layer in layers if mode in layer), None)

        return JobModes(yolo=first(Mode.YOLO), long_running=first(Mode.LONG_RUNNING))

    def apply(self, switch: ModeSwitch) -> None:
        """Record `switch` on its scope and in the list of switches."""
        if switch.scope == ScopeKind.DESK:
            self.desk[switch.mode] = switch
        elif switch.scope == ScopeKind.CHANNEL:
            self.channels.setdefault(switch.target, {})[switch.mode] = switch
        else:
            self.jobs.setdefault(int(switch.target), {})[switch.mode] = switch
        self.switches = [*self.switches, switch][-MODE_HISTORY:]

    def refuse(self, refusal: ModeRefusal) -> None:
        self.refusals = [*self.refusals, refusal][-MODE_HISTORY:]

    def affected(self, switch: ModeSwitch, running: Iterable[int]) -> list[int]:
        """The running jobs whose modes `switch` may change."""
        if switch.scope == ScopeKind.DESK:
            return list(running)
        if switch.scope == ScopeKind.CHANNEL:
            return [n for n in running if switch.target in self.job_channels.get(n, [])]
        return [n for n in running if str(n) == switch.target]

    def forget_job(self, number: int) -> None:
        """A job ended: its own switches and channel go (its history keeps them)."""
        self.jobs.pop(number, None)
        self.job_channels.pop(number, None)


class ModesView(Payload):
    """`codedesk mode`: the modes in force per scope, per live job, and the latest switches."""

    desk: dict[Mode, ModeSwitch] = Field(default_factory=dict)
    channels: dict[str, dict[Mode, ModeSwitch]] = Field(default_factory=dict)
    jobs: dict[int, JobModes] = Field(default_factory=dict)
    """Each running or queued job's modes in force (its own, its channel's or the desk's)."""
    switches: list[ModeSwitch] = Field(default_factory=list)
    refusals: list[ModeRefusal] = Field(default_factory=list)
    policy: HostPolicy | None = None
    """The desk's host policy: who may switch, what yolo still cards, long-running's ceiling."""


def yolo_allows(classes: Iterable[str], carded: Iterable[str], allowed: Iterable[str]) -> bool:
    """Whether yolo approves a call held for `classes` without a card.

    A class in `carded` (`CODEDESK_YOLO_CARDED_CLASSES`) needs a card unless `allowed`
    (`CODEDESK_YOLO_ALLOW`) names it; a call held without a class (the `tool` class of
    `CODEDESK_HOLD_TOOLS`) always needs one, as does a call with no class at all.
    """
    held = set(classes)
    if not held or ALWAYS in held:
        return False
    carded_now = set(carded) - set(allowed)
    return not held & carded_now


def mode_problem(request: ModeRequest, last_number: int, live: Iterable[int]) -> DeskError | None:
    """Why a switch names no mode, value or scope that exists, as the error to raise (None
    when it is well formed)."""
    modes = ", ".join(mode.value for mode in Mode)
    if request.mode not in {mode.value for mode in Mode}:
        return ModeError(f"There is no mode {request.mode!r}: the modes are {modes}.")
    if request.value not in ON_OFF:
        return ModeError(f"A mode is switched 'on' or 'off', not {request.value!r}.")
    if request.scope not in {kind.value for kind in ScopeKind}:
        scopes = ", ".join(kind.value for kind in ScopeKind)
        return ModeError(f"There is no scope {request.scope!r}: the scopes are {scopes}.")
    if request.scope == ScopeKind.CHANNEL and not request.target.strip():
        return ModeError("A channel scope needs the channel's or thread's id.")
    if request.scope == ScopeKind.JOB:
        if not request.target.isdigit() or int(request.target) < 1:
            return ModeError(f"{request.target!r} is not a job number.")
        number = int(request.target)
        if number > last_number:
            return JobNotFoundError(f"There is no job {number} (the last is {last_number}).")
        if number not in set(live):
            return JobFinishedError(f"Job {number} is finished: its modes no longer change.")
    return None


def long_running_allowance(
    worked: timedelta, budget: timedelta, ceiling: timedelta, check: timedelta, on: bool
) -> timedelta:
    """How much work a job may have done before its clock is looked at again.

    Below the budget, or with long-running off, the budget. Past it in long-running mode, one
    check interval more, never past the ceiling (nor below the budget).
    """
    if worked < budget or not on:
        return budget
    return min(worked + check, max(ceiling, budget))
