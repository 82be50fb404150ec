"""Delivering a job's report or a push's result to the host's result hooks."""

from __future__ import annotations

import json
from datetime import datetime
from enum import StrEnum

from pydantic import Field

from desk.payloads.jobs import JobInput, JobReport
from desk.payloads.ship_payloads import PushResult, ShipInput
from desk.policy.result_hooks import ResultHook, ResultHooks
from desk.records.base import Payload, ScrubbedText


class ResultEvent(StrEnum):
    JOB = "job"
    """A job ended: its report."""
    PUSH = "push"
    """A push ended (pushed, declined, refused, ...): its result."""


class ResultAsked(Payload):
    """Who asked for the work a result ends, and where: for a hook that answers them there.

    Every field is empty in a result of an earlier version (and `surface` is `cli` for the CLI).
    """

    requester: str = ""
    """Who asked: a principal id (`discord:<user id>`) or the CLI user's name."""
    surface: str = ""
    """Where they asked: `discord` or `cli`."""
    channel: str = ""
    """The Discord channel (or thread, or direct message) they asked in; empty on the CLI."""
    thread: str = ""
    """The thread that followed the job, when it had one of its own; empty otherwise."""


def asked_for_job(job: JobInput) -> ResultAsked:
    """Who asked for `job`, and where."""
    followed = job.place.channel if job.place is not None else ""
    discord = job.place is not None or bool(job.origin_channel)
    return ResultAsked(
        requester=job.requester,
        surface="discord" if discord else "cli",
        channel=job.origin_channel or followed,
        thread=followed if followed and followed != job.origin_channel else "",
    )


def asked_for_push(request: ShipInput) -> ResultAsked:
    """Who asked for a push, and where (a `/push` from Discord names its channel)."""
    place = request.place
    return ResultAsked(
        requester=request.requester,
        surface="discord" if place is not None else "cli",
        channel=place.channel if place is not None else "",
    )


class DeliveryInput(Payload):
    """One result for every hook of the host: what the `ResultDelivery` workflow delivers."""

    delivery_id: str
    """The same on every attempt of every hook, so a receiver can drop a repeated delivery."""
    event: ResultEvent
    hooks: ResultHooks
    report: JobReport | None = None
    push: PushResult | None = None
    asked: ResultAsked = Field(default_factory=ResultAsked)
    """Who asked for the job or the push, and where."""


class DeliveryRequest(Payload):
    """One hook's delivery of one result (an activity's input)."""

    hook: ResultHook
    delivery_id: str
    event: ResultEvent
    report: JobReport | None = None
    push: PushResult | None = None
    asked: ResultAsked = Field(default_factory=ResultAsked)

    def body(self) -> bytes:
        """The JSON a hook receives: the event, the delivery id, the report or result, and who
        asked for it where (`requester`, `surface`, `channel`, `thread`)."""
        result = self.report if self.event == ResultEvent.JOB else self.push
        document = {
            "event": self.event.value,
            "delivery_id": self.delivery_id,
            self.event.value: result.model_dump(mode="json") if result else None,
            **self.asked.model_dump(mode="json"),
        }
        return json.dumps(document, sort_keys=True).encode()


class DeliveryStatus(StrEnum):
    TRYING = "trying"
    DELIVERED = "delivered"
    GAVE_UP = "gave up"
    """Tried for the host's whole window (`result_hook_window`) without being taken."""


class HookDelivery(Payload):
    hook: ResultHook
    status: DeliveryStatus = DeliveryStatus.TRYING
    error: ScrubbedText = ""
    """Why the hook gave up (the last attempt's error)."""
    at: datetime | None = None
    """When it was delivered or given up."""


class DeliveryState(Payload):
    """Where one result's delivery is, hook by hook (the `ResultDelivery` query)."""

    delivery_id: str
    event: ResultEvent
    deliveries: list[HookDelivery]


class HookView(Payload):
    """One hook's delivery as a surface shows it: its state, and while it is still trying, the
    attempts made and the last attempt's error (from the server's pending activity)."""

    hook: ResultHook
    status: DeliveryStatus = DeliveryStatus.TRYING
    attempts: int = 0
    error: ScrubbedText = ""


class DeliveryView(Payload):
    workflow_id: str
    delivery_id: str = ""
    hooks: list[HookView]

    @property
    def troubled(self) -> list[HookView]:
        """Hooks that gave up, or are trying again after a failed attempt."""
        return [
            hook
            for hook in self.hooks
            if hook.status == DeliveryStatus.GAVE_UP
            or (hook.status == DeliveryStatus.TRYING and (hook.attempts > 1 or bool(hook.error)))
        ]
