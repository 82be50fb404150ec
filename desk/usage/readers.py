"""Usage read from each agent CLI's own output, a line at a time, as it streams.

- Claude Code (`--output-format stream-json`): each assistant message's `usage` (counted once
  per message id: a message comes as one event per content block), replaced at each result by
  the CLI's own total: its `modelUsage` (per model, what the process used so far: the main
  turns, its subagents and its side requests) and `total_cost_usd`. A result's `usage` covers
  its own turn's main model only: it is the total only for a CLI that sends no `modelUsage`
  (then the results' `usage` are added). A CLI that restores a resumed session's earlier
  spend into `modelUsage` and `total_cost_usd` (2.1.332) also says what each result added
  (`model_usage_since_last_result`): those are added instead, so a resumed run counts only
  what it used itself (the runs before it are counted already).
- codex (`exec --json`): `turn.completed` events' `usage`; OpenAI's input count includes the
  cached tokens, which are counted here as cached only. No money: the price table prices it.
- aider: `Tokens: 2.3k sent, 1.1k cache hit, 120 received. Cost: $0.0012 message, $0.0040
  session.` lines (aider rounds counts over 1000 to tenths of a thousand; its session cost is
  exact).
- opencode (`run --format json`): `step_finish` events' `part.tokens` and `part.cost`.

Anthropic counts cache writes as input and cache reads as cached, as they are billed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Protocol

from desk.usage.tally import ModelUsage, Usage, count, money


class UsageReader(Protocol):
    """Reads one CLI's output lines; `usage` is what it said it used so far."""

    @property
    def usage(self) -> Usage: ...

    def feed(self, line: str) -> None:
        """Read one whole line of the agent's output."""
        ...


class NoUsage:
    """A CLI whose output says nothing of its usage (it may report it through the hold
    channel instead)."""

    usage = Usage()

    def feed(self, line: str) -> None:
        return None


class ClaudeUsage:
    """Claude Code's stream-json events."""

    def __init__(self) -> None:
        self._messages: dict[str, Usage] = {}
        self._anonymous = Usage()
        self._final: Usage | None = None
        self._results = Usage()
        """The results' own `usage` added (each covers its turn): for a CLI without
        `modelUsage`."""
        self._since: Usage | None = None
        """The results' `model_usage_since_last_result` added: this process's own usage, where
        `modelUsage` may hold a resumed session's restored spend."""
        self._model: str | None = None

    @property
    def usage(self) -> Usage:
        if self._final is not None:
            return self._final
        total = self._anonymous
        for used in self._messages.values():
            total = total.plus(used)
        return total

    def feed(self, line: str) -> None:
        event = _json(line)
        if event is None:
            return
        if event.get("type") == "system" and isinstance(event.get("model"), str):
            self._model = event["model"]
        elif event.get("type") == "assistant" and isinstance(event.get("message"), Mapping):
            message = event["message"]
            model = message.get("model") if isinstance(message.get("model"), str) else None
            self._model = model or self._model
            used = _anthropic(message.get("usage"), self._model)
            if isinstance(message.get("id"), str):
                self._messages[message["id"]] = used
            else:
                self._anonymous = self._anonymous.plus(used)
        elif event.get("type") == "result":
            self._results = self._results.plus(_anthropic(event.get("usage"), self._model))
            added = _by_model(event.get("model_usage_since_last_result"), self._model)
            if added is not None or self._since is not None:
                self._since = (self._since or Usage()).plus(added or Usage())
                self._final = self._since
                return
            cost = money(event.get("total_cost_usd"))
            used = _by_model(event.get("modelUsage"), self._model) or self._results
            self._final = used.model_copy(update={"cost": cost}) if cost is not None else used


def _anthropic(value: Any, model: str | None) -> Usage:
    block = value if isinstance(value, Mapping) else {}
    return Usage(
        input_tokens=count(block.get("input_tokens"))
        + count(block.get("cache_creation_input_tokens")),
        output_tokens=count(block.get("output_tokens")),
        cached_tokens=count(block.get("cache_read_input_tokens")),
        model=model,
    )


def _by_model(value: Any, main: str | None) -> Usage | None:
    """The totals of a result's `modelUsage` (`{model: {inputTokens, outputTokens,
    cacheReadInputTokens, cacheCreationInputTokens, costUSD}}`), each model's part kept; None
    when it names no model. The main model is the session's (or the one that used the most)."""
    if not isinstance(value, Mapping):
        return None
    parts = {
        str(name): ModelUsage(
            input_tokens=count(block.get("inputTokens"))
            + count(block.get("cacheCreationInputTokens")),
            output_tokens=count(block.get("outputTokens")),
            cached_tokens=count(block.get("cacheReadInputTokens")),
            cost=money(block.get("costUSD")),
        )
        for name, block in value.items()
        if isinstance(block, Mapping)
    }
    if not parts:
        return None
    costs = [part.cost for part in parts.values()]
    heaviest = max(parts, key=lambda name: _tokens(parts[name]))
    return Usage(
        input_tokens=sum(part.input_tokens for part in parts.values()),
        output_tokens=sum(part.output_tokens for part in parts.values()),
        cached_tokens=sum(part.cached_tokens for part in parts.values()),
        cost=None if None in costs else sum((c for c in costs if c is not None), Decimal(0)),
        model=main if main in parts else heaviest,
        by_model=parts if len(parts) > 1 else {},
    )


def _tokens(part: ModelUsage) -> int:
    return part.input_tokens + part.output_tokens + part.cached_tokens


class CodexUsage:
    """codex's `exec --json` events."""

    def __init__(self, model: str | None = None) -> None:
        self.usage = Usage(model=model)

    def feed(self, line: str) -> None:
        event = _json(line)
        if event is None or event.get("type") != "turn.completed":
            return
        block = event.get("usage")
        if not isinstance(block, Mapping):
            return
        cached = count(block.get("cached_input_tokens"))
        used = Usage(
            input_tokens=max(0, count(block.get("input_tokens")) - cached),
            output_tokens=count(block.get("output_tokens")),
            cached_tokens=cached,
            model=self.usage.model,
        )
        self.usage = self.usage.plus(used)


AIDER_TOKENS = re.compile(r"^Tokens: (?P<counts>.+?)\.(?: Cost: (?P<cost>.+?)\.)?\s*$")
AIDER_COUNT = re.compile(
    r"^(?P<number>[\d.,]+)(?P<k>k?) (?P<what>sent|received|cache write|cache hit)$"
)
AIDER_SESSION = re.compile(r"\$(?P<amount>[\d.]+) session")


class AiderUsage:
    """aider's `Tokens: ... Cost: ...` lines."""

    def __init__(self, model: str | None = None) -> None:
        self.usage = Usage(model=model)

    def feed(self, line: str) -> None:
        found = AIDER_TOKENS.match(line.strip())
        if found is None:
            return
        counts = {"sent": 0, "received": 0, "cache write": 0, "cache hit": 0}
        for part in found["counts"].split(", "):
            number = AIDER_COUNT.match(part.strip())
            if number is None:
                return
            amount = Decimal(number["number"].replace(",", ""))
            counts[number["what"]] = int(amount * 1000 if number["k"] else amount)
        session = AIDER_SESSION.search(found["cost"] or "")
        used = Usage(
            input_tokens=counts["sent"] + counts["cache write"],
            output_tokens=counts["received"],
            cached_tokens=counts["cache hit"],
            model=self.usage.model,
        )
        total = self.usage.plus(used)
        if session is not None:
            total = total.model_copy(update={"cost": money(session["amount"])})
        self.usage = total


class OpencodeUsage:
    """opencode's `run --format json` events."""

    def __init__(self, model: str | None = None) -> None:
        self.usage = Usage(model=model)

    def feed(self, line: str) -> None:
        event = _json(line)
        if event is None or event.get("type") != "step_finish":
            return
        part = event.get("part")
        tokens = part.get("tokens") if isinstance(part, Mapping) else None
        if not isinstance(part, Mapping) or not isinstance(tokens, Mapping):
            return
        cache: Mapping[str, Any] = (
            tokens["cache"] if isinstance(tokens.get("cache"), Mapping) else {}
        )
        used = Usage(
            input_tokens=count(tokens.get("input")) + count(cache.get("write")),
            output_tokens=count(tokens.get("output")) + count(tokens.get("reasoning")),
            cached_tokens=count(cache.get("read")),
            cost=money(part.get("cost")),
            model=self.usage.model,
        )
        self.usage = self.usage.plus(used)


def reader_for(preset: str | None, model: str | None = None) -> UsageReader:
    """The reader of preset `preset`'s output (by name); a custom command's says nothing."""
    if preset == "claude":
        return ClaudeUsage()
    if preset == "codex":
        return CodexUsage(model)
    if preset == "aider":
        return AiderUsage(model)
    if preset == "opencode":
        return OpencodeUsage(model)
    return NoUsage()


def _json(line: str) -> Mapping[str, Any] | None:
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        event = json.loads(text)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None
