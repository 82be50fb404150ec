"""Which of the agent's own texts are worth a message of their own, and a plain agent's
paragraphs (activities/agent/streams/texts.py)."""

from __future__ import annotations

import pytest

from activities.agent.streams.stream import ClaudeStream, PlainOutput
from activities.agent.streams.texts import AgentTexts, worth_reading


@pytest.mark.parametrize(
    ("text", "worth"),
    [
        ("x" * 400, True),
        ("x" * 399, False),
        ("## Plan\nshort", True),
        ("- one\n- two", True),
        ("- only one item", False),
        ("| a | b |\n| --- | --- |\n| 1 | 2 |", True),
        ("```\ncode\n```", True),
        ("a short note", False),
        ("   \n ", False),
    ],
)
def test_a_text_is_worth_reading_when_long_or_structured(text: str, worth: bool) -> None:
    assert worth_reading(text, 400) is worth


def test_a_threshold_of_zero_posts_nothing() -> None:
    assert not worth_reading("x" * 5000, 0)


def test_a_plain_agent_speaks_in_paragraphs_and_a_fence_keeps_its_blank_lines() -> None:
    plain = PlainOutput()
    for line in ["## Plan\n", "- a\n", "\n", "```\n", "x = 1\n", "\n", "y = 2\n", "```\n", "\n"]:
        plain.feed(line)
    plain.feed("the end")
    plain.finish()
    assert plain.texts == ["## Plan\n- a", "```\nx = 1\n\ny = 2\n```", "the end"]


def test_claude_code_s_text_blocks_are_its_texts_whole() -> None:
    stream = ClaudeStream()
    text = "## Done\n\nI changed two files."
    event = '{"type": "assistant", "message": {"content": [{"type": "text", "text": %s}]}}'
    stream.feed(event % repr(text).replace("'", '"') + "\n")
    assert stream.texts == [text]


def test_texts_are_scrubbed_cut_and_counted_and_the_latest_kept() -> None:
    texts = AgentTexts(chars=10, most=300)
    given = [f"text {n} ghp_{'a' * 36} " + "y" * 400 for n in range(7)] + ["short"]
    texts.take(given)
    assert given == []
    assert texts.total == 7
    assert len(texts.kept) == 5 and texts.kept[0].startswith("text 2 ")
    assert all("ghp_a" not in kept and len(kept) == 300 for kept in texts.kept)
