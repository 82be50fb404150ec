"""Discord rendering: card embeds under Discord's limits, escaped text, long text split whole."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from desk.holds.approvals import ApprovalOutcome, ApprovalRequest, OutcomeKind, Principal
from desk.payloads.jobs import CommitInfo, JobOutcome, JobReport
from surfaces.render.discord.embeds import (
    DESCRIPTION_CHARS,
    PROGRESS_FOOTER,
    card_embed,
    closed_copy,
    progress_embed,
)
from surfaces.render.discord.message_text import MESSAGE_CHARS, sanitize, split_message
from surfaces.render.discord.replies import report_text

IDENT = "approval-job-7-0123456789abcdef"
HOSTILE = (
    "@everyone look [here](https://evil.example) <@123> <#456> <@&789> "
    "\u202eevil\u202c www.evil.example ```"
)


def request(**fields: object) -> ApprovalRequest:
    base: dict[str, object] = {
        "tool": "Bash",
        "input": {"command": "git push origin main"},
        "scope": "job-7",
        "title": "Job 7 on acme/api wants to run Bash",
        "classes": ["push"],
    }
    return ApprovalRequest.model_validate({**base, **fields})


def fences(text: str) -> int:
    return sum(1 for line in text.split("\n") if re.match(r"^ {0,3}(```|~~~)", line))


def test_an_open_card_is_an_embed_with_the_renderers_body_and_the_id_as_footer() -> None:
    payload = card_embed(IDENT, request()).to_dict()
    assert payload["title"] == "Job 7 on acme/api wants to run Bash"
    assert payload["description"].startswith("**Approve `Bash`?**")
    assert "git push origin main" in payload["description"]
    assert payload["footer"]["text"] == IDENT
    fields = {field["name"]: field["value"] for field in payload["fields"]}
    assert fields == {"Held because": "`push`", "From": "`job-7`"}


def test_a_card_says_what_approving_does_when_the_call_does_not_simply_run() -> None:
    shipped = card_embed(IDENT, request(ships_to="main", confined=True)).to_dict()
    fields = {field["name"]: field["value"] for field in shipped["fields"]}
    assert "codedesk will ask to push the job's commits to main" in fields["If approved"]
    forced = card_embed(IDENT, request(confined=True)).to_dict()
    fields = {field["name"]: field["value"] for field in forced["fields"]}
    assert "runs inside the agent's sandbox" in fields["If approved"]
    assert "cannot reach the origin" in fields["If approved"]
    unconfined = card_embed(IDENT, request()).to_dict()
    assert "If approved" not in {field["name"] for field in unconfined["fields"]}


def test_a_huge_input_fits_an_embed() -> None:
    big = request(input={"command": "x" * 50_000, "note": "y" * 20_000}, title="t" * 1000)
    payload = card_embed(IDENT, big).to_dict()
    assert len(payload["description"]) <= DESCRIPTION_CHARS
    assert len(payload["title"]) <= 256
    assert len(str(payload)) < 6000  # Discord's limit on a whole embed


def test_model_written_text_on_a_card_cannot_mention_link_or_reorder() -> None:
    hostile = request(
        input={"command": HOSTILE}, title=f"Job 7 {HOSTILE}", tool="Bash @here", classes=[]
    )
    payload = card_embed(IDENT, hostile).to_dict()
    for text in (payload["title"], payload["description"]):
        assert "@everyone" not in text and "@here" not in text
        assert "\u202e" not in text
    assert "](https://" not in payload["title"] and "://evil" not in payload["title"]
    # Without a schema the input is code (a JSON block), where nothing links.
    assert (
        '```json\n{\n  "command": "@\u200beveryone look [here](https://evil'
        in (payload["description"])
    )


def test_a_closed_card_keeps_its_body_and_shows_the_outcome_as_footer() -> None:
    approved = ApprovalOutcome(
        kind=OutcomeKind.APPROVED, approval_id=IDENT, by=Principal(id="discord:1001", name="ann")
    )
    payload = card_embed(IDENT, request(), approved).to_dict()
    assert payload["footer"]["text"] == f"Approved by ann (discord:1001) · {IDENT}"
    withdrawn = ApprovalOutcome(
        kind=OutcomeKind.WITHDRAWN, approval_id=IDENT, note="The job has ended."
    )
    closed = closed_copy(card_embed(IDENT, request()), IDENT, withdrawn).to_dict()
    assert closed["footer"]["text"] == "The job has ended."
    assert closed["description"] == payload["description"]
    assert closed["color"] != payload["color"]


@pytest.mark.parametrize(
    ("note", "footer"),
    [
        ("", "Withdrawn; nothing will run"),
        (" \n\u200b", "Withdrawn; nothing will run"),
        ("replaced by a newer call", "replaced by a newer call"),
        ("two\nlines\r\u2028of it", "two lines of it"),
        ("why " * 200, ("why " * 200)[:199] + "…"),
    ],
)
def test_a_withdrawn_cards_footer_is_one_line_of_at_most_200_characters(
    note: str, footer: str
) -> None:
    # pi-roundtable 0.15: the reason as one line cut to 200, else "Withdrawn; nothing will run";
    # not cut only where the embed runs out of room.
    withdrawn = ApprovalOutcome(kind=OutcomeKind.WITHDRAWN, approval_id=IDENT, note=note)
    shown = card_embed(IDENT, request(), withdrawn).footer.text or ""
    assert shown == footer
    assert len(shown) <= 200 and "\n" not in shown


def test_sanitize_keeps_markdown_but_not_mentions_links_or_hidden_text() -> None:
    text = sanitize(f"## Heading\n- item {HOSTILE}\n```py\n<@1> [a](b)\n```\nmore `<@2>`")
    assert text.startswith("## Heading\n- item ")
    assert "\\<@\u200b123>" in text and "\\[here\\](https" in text
    assert "@\u200beveryone" in text and ":\u200b//" in text
    assert "\\u202e" in text and "\u202e" not in text
    assert "```py\n<@1> [a](b)\n```" in text  # code is shown as written
    assert "`<@\u200b2>`" in text
    assert fences(sanitize("```\nnever closed")) == 2


def test_long_text_is_split_under_the_limit_with_every_code_block_whole() -> None:
    block = "```python\n" + "\n".join(f"print({i})" for i in range(120)) + "\n```"
    prose = "\n".join(f"Line {i} of narration, long enough to matter." for i in range(60))
    text = "\n".join([prose, block, prose, block, "tail"])
    chunks = split_message(text)
    assert len(chunks) > 2
    for chunk in chunks:
        assert 0 < len(chunk) <= MESSAGE_CHARS
        assert fences(chunk) % 2 == 0
    # A block that fits a message is never cut: it moves whole to the next one.
    assert sum(chunk.count(block) for chunk in chunks) == 2
    assert "\n".join(chunks).replace("\n", "") == text.replace("\n", "")


def test_a_block_longer_than_a_message_is_cut_into_blocks_with_the_same_fence() -> None:
    block = "~~~diff\n" + "\n".join(f"+ added line {i}" for i in range(400)) + "\n~~~"
    chunks = split_message(f"intro\n{block}\noutro")
    assert len(chunks) >= 3
    for chunk in chunks:
        assert len(chunk) <= MESSAGE_CHARS
        assert fences(chunk) % 2 == 0
    inner = [chunk for chunk in chunks if "+ added" in chunk]
    assert all("~~~diff\n" in chunk and "\n~~~" in chunk for chunk in inner)
    lines = [line for chunk in inner for line in chunk.split("\n") if line.startswith("+")]
    assert lines == [f"+ added line {i}" for i in range(400)]


def test_a_line_longer_than_a_message_is_cut_without_parting_an_escape() -> None:
    text = sanitize("[" * 5000)
    chunks = split_message(text)
    assert all(len(chunk) <= MESSAGE_CHARS for chunk in chunks)
    assert all(not chunk.startswith("[") for chunk in chunks)  # every '[' keeps its '\'


def test_the_report_escapes_the_job_and_fences_the_agents_output() -> None:
    report = JobReport(
        number=3,
        repo="acme/api",
        task=f"do it {HOSTILE}",
        outcome=JobOutcome.INTEGRATED,
        commits=[CommitInfo(sha="a" * 40, subject=f"fix {HOSTILE}")],
        output="```\n@everyone ran ``` tests\n" + "ok\n" * 2000,
        output_cut=10,
        finished_at=datetime.now(UTC),
    )
    text = report_text(report)
    assert text.startswith("## Job 3 on `acme/api`: integrated")
    assert "@everyone" not in text and "<@123>" not in text
    chunks = split_message(text)
    assert all(len(chunk) <= MESSAGE_CHARS and fences(chunk) % 2 == 0 for chunk in chunks)


def test_progress_is_a_marked_embed_of_the_latest_narration() -> None:
    payload = progress_embed("x" * 5000 + " the end").to_dict()
    assert payload["footer"]["text"] == PROGRESS_FOOTER
    assert payload["description"].endswith("the end")
    assert len(payload["description"]) <= 1500


def test_progress_shows_the_agents_lines_fenced_and_inert_under_the_narration() -> None:
    payload = progress_embed("The agent works on branch worker/3…", [HOSTILE, "ok"]).to_dict()
    narration, block = payload["description"].split("\n", 1)
    assert narration == "The agent works on branch worker/3…"
    assert fences(block) == 2 and block.startswith("```text\n") and block.endswith("\nok\n```")
    assert "@everyone" not in block and "\u202e" not in block  # spelled out, no mention
    assert "```" not in block.removeprefix("```text\n").removesuffix("\n```")


def test_progress_keeps_the_latest_lines_that_fit_an_embed() -> None:
    lines = [f"line {index} " + "x" * 390 for index in range(20)]
    description = progress_embed("y" * 5000, lines).to_dict()["description"]
    assert len(description) <= DESCRIPTION_CHARS and fences(description) == 2
    assert description.rstrip("`").rstrip().endswith(lines[-1])
    assert "line 0 " not in description  # the oldest lines give way
