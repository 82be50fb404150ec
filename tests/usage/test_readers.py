"""Usage read from each CLI's own output lines, in the formats the CLIs print."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from desk.usage.prices import parse_prices, priced
from desk.usage.readers import reader_for
from desk.usage.tally import Usage


def lines(*events: dict[str, object]) -> list[str]:
    return [json.dumps(event) + "\n" for event in events]


def read(preset: str, output: list[str], model: str | None = None) -> Usage:
    reader = reader_for(preset, model)
    for line in output:
        reader.feed(line)
    return reader.usage


def assistant(message_id: str, text: str, **usage: int) -> dict[str, object]:
    return {
        "type": "assistant",
        "message": {
            "id": message_id,
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}],
            "usage": usage,
        },
    }


def test_claude_counts_each_message_once_as_it_streams() -> None:
    # Claude Code sends one event per content block, each with its message's usage.
    first = assistant("msg_1", "a", input_tokens=10, cache_read_input_tokens=100, output_tokens=5)
    again = assistant("msg_1", "b", input_tokens=10, cache_read_input_tokens=100, output_tokens=7)
    second = assistant("msg_2", "c", input_tokens=3, cache_creation_input_tokens=2, output_tokens=4)
    usage = read("claude", [*lines(first, again, second), "a warning, not JSON\n"])
    assert usage == Usage(
        input_tokens=15, output_tokens=11, cached_tokens=100, model="claude-sonnet-4-5"
    )
    assert usage.cost is None


def test_claude_result_is_the_total_with_its_money() -> None:
    result = {
        "type": "result",
        "subtype": "success",
        "total_cost_usd": 0.0123456,
        "usage": {"input_tokens": 20, "cache_read_input_tokens": 300, "output_tokens": 40},
    }
    usage = read("claude", lines(assistant("msg_1", "a", input_tokens=1), result))
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (20, 40, 300)
    assert usage.cost == Decimal("0.0123456")


def result_with_models(turn: dict[str, int], **models: dict[str, float]) -> dict[str, object]:
    """A result event as Claude Code 2.1.197 and 2.1.332 print it (the fields codedesk reads):
    `usage` is the turn's main model only; `modelUsage` and `total_cost_usd` are the process's
    totals, a subagent's or a side request's model included."""
    return {
        "type": "result",
        "subtype": "success",
        "usage": {**turn, "server_tool_use": {"web_search_requests": 0}, "iterations": []},
        "modelUsage": {
            name: {
                "inputTokens": used["input"],
                "outputTokens": used["output"],
                "cacheReadInputTokens": used["read"],
                "cacheCreationInputTokens": used["write"],
                "webSearchRequests": 0,
                "costUSD": used["cost"],
                "contextWindow": 200000,
                "maxOutputTokens": 32000,
            }
            for name, used in models.items()
        },
        "total_cost_usd": sum(used["cost"] for used in models.values()),
    }


def test_claude_counts_what_every_model_used_not_only_the_main_turns() -> None:
    turn = {
        "input_tokens": 15,
        "cache_creation_input_tokens": 6,
        "cache_read_input_tokens": 100,
        "output_tokens": 23,
    }
    main = {"input": 15, "output": 23, "read": 100, "write": 6, "cost": 0.0007375}
    side = {"input": 50, "output": 5, "read": 0, "write": 0, "cost": 0.000075}
    result = result_with_models(
        turn, **{"claude-opus-4-8[1m]": main, "claude-haiku-4-5-20251001": side}
    )
    usage = read("claude", lines(assistant("msg_1", "a", **turn), result))
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (71, 28, 100)
    assert usage.cost == Decimal("0.0007375") + Decimal("0.000075")
    assert usage.model == "claude-opus-4-8[1m]"  # the one that used the most
    haiku = usage.by_model["claude-haiku-4-5-20251001"]
    assert (haiku.input_tokens, haiku.output_tokens, haiku.cost) == (50, 5, Decimal("0.000075"))
    assert usage.by_model["claude-opus-4-8[1m]"].input_tokens == 21
    # Two attempts (a crash, a suspension) add up model by model.
    twice = usage.plus(usage)
    assert twice.by_model["claude-haiku-4-5-20251001"].input_tokens == 100
    assert twice.input_tokens == 142


def test_claude_in_a_streamed_session_takes_the_latest_totals_not_the_last_turn() -> None:
    # With streaming input, each turn ends with a result whose `usage` is that turn's alone,
    # while `modelUsage` and `total_cost_usd` are what the process used so far.
    first = {"input": 15, "output": 23, "read": 100, "write": 6, "cost": 0.0007}
    both = {"input": 24, "output": 36, "read": 300, "write": 9, "cost": 0.0012}
    second_turn = {"input_tokens": 9, "cache_read_input_tokens": 200, "output_tokens": 13}
    usage = read(
        "claude",
        lines(
            result_with_models({"input_tokens": 15}, **{"claude-opus-4-8": first}),
            result_with_models(second_turn, **{"claude-opus-4-8": both}),
        ),
    )
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (33, 36, 300)
    assert usage.cost == Decimal("0.0012") and usage.by_model == {}
    # A CLI without `modelUsage`: the results' own counts are added.
    plain = [
        {k: v for k, v in result.items() if k != "modelUsage"}
        for result in (
            result_with_models({"input_tokens": 15, "output_tokens": 23}, m=first),
            result_with_models(second_turn, m=both),
        )
    ]
    usage = read("claude", lines(*plain))
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (24, 36, 200)


def test_claude_resumed_counts_its_own_usage_not_the_sessions_restored_spend() -> None:
    # Claude Code 2.1.332 restores a resumed session's earlier spend into `modelUsage` and
    # `total_cost_usd`; `model_usage_since_last_result` says what each result added. The runs
    # before were counted already (the job adds them up): counting the restored part again
    # would charge them twice.
    earlier = {"input": 24, "output": 36, "read": 300, "write": 9, "cost": 0.0009}
    restored_and_first = {"input": 34, "output": 50, "read": 600, "write": 12, "cost": 0.0013}
    restored_and_both = {"input": 70, "output": 98, "read": 2100, "write": 21, "cost": 0.0028}
    added = [
        {"input": 10, "output": 14, "read": 300, "write": 3, "cost": 0.0004},
        {"input": 36, "output": 48, "read": 1500, "write": 9, "cost": 0.0015},
    ]
    results = []
    for total, since in zip((restored_and_first, restored_and_both), added, strict=True):
        result = result_with_models({"input_tokens": since["input"]}, m=total)
        result["model_usage_since_last_result"] = result_with_models({}, m=since)["modelUsage"]
        results.append(result)
    usage = read("claude", lines(*results))
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (58, 62, 1800)
    assert usage.cost == Decimal("0.0019")
    assert earlier["input"] + earlier["write"] + usage.input_tokens == 70 + 21


def test_codex_adds_turns_and_counts_cached_input_once() -> None:
    turn = {
        "type": "turn.completed",
        "usage": {"input_tokens": 1000, "cached_input_tokens": 800, "output_tokens": 50},
    }
    other = {"type": "item.completed", "item": {"type": "agent_message", "text": "done"}}
    usage = read("codex", lines(turn, other, turn), model="gpt-5")
    assert usage == Usage(input_tokens=400, output_tokens=100, cached_tokens=1600, model="gpt-5")


def test_aider_reads_tokens_and_takes_the_session_cost() -> None:
    output = [
        "Applied edit to hello.py\n",
        "Tokens: 2.3k sent, 1.1k cache hit, 120 received."
        " Cost: $0.0012 message, $0.0012 session.\n",
        "Tokens: 12k sent, 1,500 received. Cost: $0.05 message, $0.0512 session.\n",
    ]
    usage = read("aider", output, model="gpt-4o")
    assert usage == Usage(
        input_tokens=14300,
        output_tokens=1620,
        cached_tokens=1100,
        cost=Decimal("0.0512"),
        model="gpt-4o",
    )


def test_aider_without_money_leaves_the_cost_unknown() -> None:
    usage = read("aider", ["Tokens: 900 sent, 30 received.\n"])
    assert (usage.input_tokens, usage.output_tokens, usage.cost) == (900, 30, None)


def test_opencode_adds_its_steps_tokens_and_cost() -> None:
    step = {
        "type": "step_finish",
        "part": {
            "type": "step-finish",
            "tokens": {
                "input": 100,
                "output": 20,
                "reasoning": 5,
                "cache": {"read": 7, "write": 3},
            },
            "cost": 0.001,
        },
    }
    usage = read("opencode", lines(step, {"type": "text", "part": {"text": "hi"}}, step))
    assert usage == Usage(
        input_tokens=206, output_tokens=50, cached_tokens=14, cost=Decimal("0.002")
    )


def test_a_custom_command_says_nothing() -> None:
    assert read("custom", ["Tokens: 900 sent, 30 received.\n"]).empty


def test_the_price_table_prices_tokens_per_million() -> None:
    table = parse_prices("gpt-5=1.25/10/0.125, claude-sonnet-4-5=3/15")
    usage = Usage(input_tokens=400, output_tokens=100, cached_tokens=1600, model="gpt-5")
    assert priced(usage, table).cost == Decimal("0.0017")
    assert table["claude-sonnet-4-5"].cached == Decimal(3)


def test_an_unknown_model_is_cost_unknown_never_zero() -> None:
    table = parse_prices("gpt-5=1.25/10")
    assert priced(Usage(input_tokens=10, model="o3"), table).cost is None
    assert priced(Usage(input_tokens=10), table).cost is None


def test_a_reported_cost_is_not_repriced() -> None:
    usage = Usage(input_tokens=10, cost=Decimal("0.5"), model="gpt-5")
    assert priced(usage, parse_prices("gpt-5=1000/1000")).cost == Decimal("0.5")


@pytest.mark.parametrize("entry", ["gpt-5", "gpt-5=1", "=1/2", "gpt-5=a/b", "m=1/2/3/4", "m=-1/2"])
def test_a_malformed_price_says_how_to_write_it(entry: str) -> None:
    with pytest.raises(ValueError, match="model=input/output"):
        parse_prices(entry)


def test_a_sum_with_an_unknown_part_is_unknown() -> None:
    known = Usage(input_tokens=1, cost=Decimal("0.1"))
    assert known.plus(known).cost == Decimal("0.2")
    assert known.plus(Usage(input_tokens=1)).cost is None
    assert known.plus(Usage()).cost == Decimal("0.1")
    assert known.plus(Usage(input_tokens=1, cost=Decimal(1), currency="EUR")).cost is None
