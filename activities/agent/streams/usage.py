"""What the agent used, read as its output streams: the preset's usage reader fed whole lines,
the usage a command agent reports on the hold channel, priced by the owner's table.

The tally travels with the agent activity's heartbeat (Temporal keeps only the latest details,
never an event per heartbeat) and with its result, so reading usage adds no event to the job's
history. A retried attempt starts from the usage its earlier attempt last heartbeated: a worker
that died mid-run loses none of what the agent had spent.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from temporalio import activity

from desk.agents.presets import preset_for
from desk.config.settings import DeskSettings
from desk.payloads.agent_progress import AgentHeartbeat
from desk.usage.prices import Price, parse_prices, priced
from desk.usage.readers import UsageReader, reader_for
from desk.usage.tally import USD, Usage

MAX_LINE_CHARS = 16 << 20
"""A line longer than this is not kept to be read for usage (the CLI's total comes later)."""
MODEL_OPTIONS = ("--model", "-m")


class UsageWatch:
    """The usage of one attempt of the agent, and of the attempts before it."""

    def __init__(
        self,
        reader: UsageReader,
        prices: dict[str, Price],
        before: Usage,
        limit: Decimal | None = None,
        limit_from: str = "CODEDESK_JOB_SPEND_LIMIT",
    ) -> None:
        self.reader = reader
        self.prices = prices
        self.before = before
        self.limit = limit
        self.limit_from = limit_from
        self._pending: list[str] = []
        self._pending_chars = 0

    @classmethod
    def of(
        cls,
        argv: Sequence[str],
        settings: DeskSettings,
        job_limit: Decimal | None = None,
        spent_before: Usage | None = None,
    ) -> UsageWatch:
        """The watch for the agent started with `argv`, after this activity's earlier attempts
        (or, on its first, the job's runs before a suspension: `spent_before`); its limit the
        stricter of this worker's setting and the job's (`job_limit`)."""
        preset = preset_for(argv)
        reader = reader_for(preset.name if preset else None, model_of(argv))
        prices = parse_prices(settings.prices)
        own = settings.job_spend_limit
        limit: Decimal | None
        if job_limit is not None and (own is None or job_limit < own):
            limit, limit_from = job_limit, "the desk's for this job: the host's or the task's ask"
        else:
            limit, limit_from = own, "CODEDESK_JOB_SPEND_LIMIT"
        earlier = earlier_usage()  # an earlier attempt's total has the runs before it in it
        before = earlier if not earlier.empty else spent_before or Usage()
        return cls(reader, prices, before, limit, limit_from)

    def feed(self, text: str) -> None:
        """Read the agent's output: a whole line, or a piece of one (kept until it ends)."""
        if not text.endswith("\n"):
            self._pending_chars += len(text)
            if self._pending_chars <= MAX_LINE_CHARS:
                self._pending.append(text)
            return
        if self._pending:
            text = "".join(self._pending) + text
        if self._pending_chars <= MAX_LINE_CHARS:
            self.reader.feed(text)
        self._pending.clear()
        self._pending_chars = 0

    def total(self, reported: Usage) -> Usage:
        """Every attempt's usage so far, this one's (its output's and what it `reported` on the
        hold channel) priced and included."""
        return self.before.plus(priced(self.reader.usage.plus(reported), self.prices))

    def reached(self, reported: Usage) -> bool:
        """Whether the total reached a known limit in dollars: a budget a person may extend
        (a cost nobody knows is no such budget)."""
        if self.limit is None:
            return False
        total = self.total(reported)
        return total.cost is not None and total.currency == USD and total.cost >= self.limit

    def stop_reason(self, reported: Usage) -> str | None:
        """Why the agent must stop now: its total reached the job's spend limit, or it used
        tokens at a cost nobody knows under a limit (the guard fails closed); None: go on."""
        if self.limit is None:
            return None
        total = self.total(reported)
        limit = f"the job's spend limit ${self.limit} ({self.limit_from})"
        if total.cost is None and total.tokens:
            return (
                f"codedesk stopped the agent: it used {total.tokens:,} tokens at a cost nobody"
                f" knows, under {limit}: name its model in CODEDESK_PRICES."
            )
        if total.cost is not None and (total.currency != USD or total.cost >= self.limit):
            return (
                f"codedesk stopped the agent: it spent {total.cost} {total.currency}, at {limit}."
            )
        return None


def model_of(argv: Sequence[str]) -> str | None:
    """The model the command names with `--model`/`-m`, if it does."""
    for index, part in enumerate(argv):
        name, sep, value = part.partition("=")
        if name in MODEL_OPTIONS and sep:
            return value or None
        if part in MODEL_OPTIONS and index + 1 < len(argv):
            return argv[index + 1]
    return None


def earlier_usage() -> Usage:
    """The total an earlier attempt of this activity last heartbeated (none: nothing)."""
    details = activity.info().heartbeat_details
    beat = details[0] if details else None
    if isinstance(beat, AgentHeartbeat) and beat.usage is not None:
        return beat.usage
    if isinstance(beat, dict) and isinstance(beat.get("usage"), dict):
        return Usage.model_validate(beat["usage"])
    return Usage()
