"""What a person reads of the conversation: a `say` answer, a report's messages."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from desk.holds.approvals import Principal
from desk.payloads.message_payloads import (
    Delivered,
    JobMessage,
    MessageDelivery,
    MessageSeam,
    SayAnswer,
)
from surfaces.render.terminal.block_lines import plain
from surfaces.render.words.message_words import message_blocks, say_answer

AT = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("delivery", "seam", "words"),
    [
        (MessageDelivery.DELIVERED, MessageSeam.STDIN, "delivered to the running agent (on its"),
        (MessageDelivery.DELIVERED, MessageSeam.FILE, "delivered to the running agent (in its"),
        (MessageDelivery.SHORTLY, MessageSeam.STDIN, "queued: the running agent gets it as soon"),
        (MessageDelivery.TURN_END, MessageSeam.RESUME, "queued: delivered when the agent's turn"),
        (MessageDelivery.AGENT_START, MessageSeam.PROMPT, "queued: delivered when the agent sta"),
        (MessageDelivery.RESUME, MessageSeam.STDIN, "queued: delivered when the agent runs again"),
    ],
)
def test_an_answer_says_what_became_of_the_message(
    delivery: MessageDelivery, seam: MessageSeam, words: str
) -> None:
    said = say_answer(SayAnswer(number=7, seq=3, delivery=delivery, seam=seam))
    assert said.startswith(f"message 3 to job 7: {words}"), said


def test_a_report_lists_who_sent_each_message_and_how_it_reached_the_agent() -> None:
    messages = [
        JobMessage(
            seq=1,
            text="also update the changelog\nand the README",
            by=Principal(id="local:alice", name="alice"),
            surface="cli",
            at=AT,
            delivered=Delivered(run=2, attempt=2, at=AT, seam=MessageSeam.RESUME),
        ),
        JobMessage(seq=2, text="stop", by=Principal(id="discord:1"), surface="discord", at=AT),
    ]
    shown = "\n".join(plain(message_blocks(messages, omitted=1)))
    assert "messages (3)" in shown
    assert "1 from alice (cli) at 2026-12-06 12:00:00 UTC: also update the changelog…" in shown
    assert "(delivered at run 2, attempt 2, resuming its session)" in shown
    assert "2 from discord:1 (discord)" in shown and "stop (not delivered)" in shown
    assert "… and 1 more" in shown
