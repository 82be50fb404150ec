"""Property tests of the renderers: any value on a card or a report, within Discord's budgets.

Whatever a model or a job wrote, the Discord card and the report's markdown never raise, fit
Discord's limits (embed title, description, fields, footer, total; a message; a button's
custom id), cannot mention anyone, link anywhere or open markdown that swallows the rest, and
show no control or bidi character raw. The terminal card spells out every hidden character,
and the command a person approves from is the command, exactly.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import example, given
from hypothesis import strategies as st

from desk.holds.approvals import (
    ApprovalOutcome,
    ApprovalRequest,
    ApprovalState,
    Decision,
    HeldCall,
    HoldVerdict,
    OutcomeKind,
    Principal,
    approval_id,
)
from desk.payloads.jobs import CommitInfo, JobOutcome, JobReport
from surfaces.discord.interactions.custom_ids import CUSTOM_ID_CHARS, CardKey, parse
from surfaces.render.discord.card_text import ZWSP
from surfaces.render.discord.embeds import card_embed, progress_embed
from surfaces.render.discord.markdown import markdown
from surfaces.render.discord.message_text import MESSAGE_CHARS, sanitize, split_message
from surfaces.render.layout.approval_layout import approval_card as terminal_card
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain, visible

# Discord's limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits).
EMBED_TITLE, EMBED_DESCRIPTION, EMBED_FIELDS, FIELD_NAME, FIELD_VALUE = 256, 4096, 25, 256, 1024
EMBED_FOOTER, EMBED_TOTAL = 2048, 6000  # not imported: the test states them itself

HOSTILE = [
    "@everyone",
    "@here",
    "<@123456789012345678>",
    "<@&42>",
    "<#42>",
    "</deploy:1>",
    "<t:0:R>",
    "https://evil.example/x",
    "<https://evil.example>",
    "[click](https://evil.example)",
    "www.evil.example",
    "a@b.example",
    "```",
    "``",
    "`",
    "~~~",
    "**",
    "__",
    "||spoiler||",
    "# ",
    "> ",
    "- ",
    "1. ",
    "\\",
    "\n",
    "\r\n",
    "\r",
    "\t",
    "\x1b[31m",
    "\x00",
    "\x85",
    "\u200b",
    "\u202e",
    "\u2066",
    "\u2028",
    "\ufeff",
    "\U000e0041",
    "git push origin main",
    " ",
    "x" * 120,
]
texts = st.one_of(
    st.text(max_size=80),
    st.tuples(st.sampled_from(HOSTILE), st.integers(1, 700)).map(lambda t: t[0] * t[1]),
    st.lists(st.sampled_from(HOSTILE), max_size=8).map("".join),
    st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=5)), max_size=6).map("".join),
)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=10,
)
schemas = st.one_of(
    st.none(),
    st.dictionaries(
        texts,
        st.fixed_dictionaries(
            {}, optional={"title": texts, "enum": st.lists(texts, max_size=3), "const": texts}
        ),
        max_size=4,
    ).map(lambda props: {"type": "object", "properties": props}),
)

CONTROL_OR_BIDI = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
"""Shown raw nowhere on Discord: they hide text or reorder what a person reads."""
MENTION_START = re.compile(f"@[^{ZWSP}\\s]")
"""An '@' that could start a mention: one right before a word (a message may end in one)."""


def prose(markdown_text: str) -> str:
    """The text Discord reads as markdown: fenced blocks and code spans gone, escapes removed."""
    out: list[str] = []
    fence = ""  # the open fence's run (CommonMark: ``` or ~~~, closed by a run at least as long)
    for row in markdown_text.split("\n"):
        indent = len(row) - len(row.lstrip(" "))
        if fence:
            closing = row.strip()
            if indent <= 3 and set(closing) == {fence[0]} and len(closing) >= len(fence):
                fence = ""
            continue
        opened = re.match(r" {0,3}(`{3,}|~{3,})", row)
        if opened and not (opened[1][0] == "`" and "`" in row[opened.end() :]):
            fence = opened[1]
            continue
        i = 0
        while i < len(row):
            if row[i] == "\\" and i + 1 < len(row):
                i += 2
                continue
            if row[i] == "`":
                run = len(row[i:]) - len(row[i:].lstrip("`"))
                end = row.find("`" * run, i + run)
                while end >= 0 and row[end + run : end + run + 1] == "`":
                    end = row.find("`" * run, end + 1)
                if end >= 0:
                    i = end + run
                    continue
            out.append(row[i])
            i += 1
        out.append("\n")
    assert not fence, f"a fence was left open:\n{markdown_text}"
    return "".join(out)


def assert_inert(rendered: str) -> None:
    """No mention, link or masked link can form, and nothing hides or reorders text."""
    assert not CONTROL_OR_BIDI.search(rendered), rendered
    shown = prose(rendered)
    assert not MENTION_START.search(shown), rendered  # @everyone, e-mail autolinks
    assert "<" not in shown, rendered  # <@id>, <#id>, <@&id>, <t:…>, </cmd:id>, <https://…>
    assert "](" not in shown, rendered  # [text](url)
    assert "://" not in shown and "www." not in shown.lower(), rendered  # autolinks


@st.composite
def requests(draw: st.DrawFn) -> ApprovalRequest:
    tool = draw(st.one_of(st.sampled_from(["Bash", "Write", "WebFetch"]), texts))
    input = draw(st.dictionaries(texts, values, max_size=5))
    return ApprovalRequest(
        tool=tool,
        input=input,
        title=draw(texts),
        action=draw(texts),
        parameters=draw(schemas),
        scope=draw(st.sampled_from(["job-7", "push-acme/api", "x" * 80])),
        classes=draw(st.lists(st.sampled_from(["push", "destructive", "credential"]), max_size=3)),
    )


outcomes = st.one_of(
    st.none(),
    st.builds(
        ApprovalOutcome,
        kind=st.sampled_from(list(OutcomeKind)),
        approval_id=st.just("approval-job-7-0123456789abcdef"),
        by=st.one_of(st.none(), st.builds(Principal, id=texts, name=texts)),
        note=texts,
    ),
)


@given(requests(), outcomes)
@example(
    ApprovalRequest(tool="Bash", input={"command": "@everyone <@1> [x](https://e.x)"}, scope="j"),
    None,
)
@example(ApprovalRequest(tool="[x](https://e.x)" * 300, scope="j"), None)  # a tool name uncut
@example(  # a footer over the embed's total
    ApprovalRequest(tool="Bash", input={"c": "y" * 9000}, title="t" * 300, scope="j"),
    ApprovalOutcome(kind=OutcomeKind.DECLINED, approval_id="a", note="n" * 3000),
)
def test_an_approval_card_fits_discord_and_cannot_mention_or_link(
    request: ApprovalRequest, outcome: ApprovalOutcome | None
) -> None:
    ident = approval_id(request.scope, request.tool, request.input)
    embed = card_embed(ident, request, outcome)
    assert len(embed.title or "") <= EMBED_TITLE
    assert len(embed.description or "") <= EMBED_DESCRIPTION
    assert len(embed.fields) <= EMBED_FIELDS
    assert all(
        len(f.name or "") <= FIELD_NAME and len(f.value or "") <= FIELD_VALUE for f in embed.fields
    )
    assert len(embed.footer.text or "") <= EMBED_FOOTER
    assert len(embed) <= EMBED_TOTAL
    for part in (embed.title or "", embed.description or ""):
        assert_inert(part)
    footer = embed.footer.text or ""  # a footer renders no markdown and no links
    assert not CONTROL_OR_BIDI.search(footer) and not MENTION_START.search(footer), footer
    for embed_field in embed.fields:
        assert_inert(embed_field.value or "")
    for decision in Decision:
        custom = CardKey.of(ident).custom_id(decision)
        assert len(custom) <= CUSTOM_ID_CHARS
        parsed = parse(custom)
        assert parsed is not None and parsed[1].matches(ident)


@st.composite
def reports(draw: st.DrawFn) -> JobReport:
    return JobReport(
        number=draw(st.integers(1, 10**9)),
        repo=draw(st.sampled_from(["acme/api", "a/b"])),
        task=draw(texts),
        outcome=draw(st.sampled_from(list(JobOutcome))),
        reason=draw(texts),
        failure_category=draw(st.sampled_from(["", "exit", "signal"])),
        exit_code=draw(st.one_of(st.none(), st.integers(-255, 255))),
        branch=draw(texts),
        worktree=draw(texts),
        branch_kept=draw(st.booleans()),
        head=draw(texts),
        commits=draw(st.lists(st.builds(CommitInfo, sha=texts, subject=texts), max_size=4)),
        commits_omitted=draw(st.integers(0, 5)),
        uncommitted=draw(st.lists(texts, max_size=3)),
        conflict_files=draw(st.lists(texts, max_size=3)),
        output=draw(st.one_of(texts, st.text(max_size=5000))),
        output_cut=draw(st.integers(0, 10**6)),
        log_path=draw(texts),
        git_state=draw(texts),
        confinement=draw(st.sampled_from(["", "bwrap", "none"])),
        held_calls=draw(
            st.lists(
                st.builds(
                    HeldCall,
                    tool=texts,
                    summary=texts,
                    verdict=st.sampled_from(list(HoldVerdict)),
                    approval_id=texts,
                    note=texts,
                ),
                max_size=3,
            )
        ),
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        finished_at=datetime(2026, 1, 1, 0, 5, tzinfo=UTC),
    )


@given(reports())
@example(  # a cut inside the long name's code span turned the next name into a live link
    JobReport(
        number=1,
        repo="acme/api",
        outcome=JobOutcome.CONFLICT,
        conflict_files=["y" * 2100, "[click](https://evil.example)"],
    )
)
def test_a_report_in_discord_messages_fits_and_cannot_mention_or_link(report: JobReport) -> None:
    text = markdown(job_report(report))
    messages = split_message(text)
    assert messages and all(0 < len(message) <= MESSAGE_CHARS for message in messages)
    for message in messages:
        assert_inert(message)  # each message renders on its own: no fence left open


@given(st.lists(st.one_of(texts, st.text(max_size=3000)), max_size=4).map("\n".join))
@example("```python\n@everyone\n")
@example("`` @here `` <@1> ```")
def test_thread_text_keeps_its_shape_but_cannot_mention_or_link(text: str) -> None:
    embed = progress_embed(text)
    assert len(embed.description or "") <= EMBED_DESCRIPTION
    assert_inert(embed.description or "")
    for message in split_message(sanitize(text)):
        assert 0 < len(message) <= MESSAGE_CHARS
        assert_inert(message)


def state_of(request: ApprovalRequest) -> ApprovalState:
    ident = approval_id(request.scope, request.tool, request.input)
    return ApprovalState(approval_id=ident, request=request)


@given(requests(), st.integers(100, 5000))
def test_the_terminal_card_shows_every_character_of_the_command_that_will_run(
    request: ApprovalRequest, value_chars: int
) -> None:
    command = request.input.get("command")
    lines = plain(terminal_card(state_of(request), value_chars=value_chars))
    hidden = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")
    assert not any(hidden.search(row) for row in lines), lines
    if isinstance(command, str) and len(command) <= value_chars:
        shown = "\n".join(lines)
        for row in command.split("\n"):
            assert visible(row, keep_line_breaks=True) in shown, (row, lines)


def test_assert_inert_finds_what_it_looks_for() -> None:
    """The checker itself: each of these would mention, link or hide on Discord."""
    for live in ("@everyone", "<@1>", "[a](b)", "see https://x", "www.x.y", "a\u202eb", "\x1b"):
        try:
            assert_inert(live)
        except AssertionError:
            continue
        raise AssertionError(f"{live!r} passed as inert")
    assert_inert(f"@{ZWSP}everyone `<@1>` \\<@{ZWSP}1\\> \\[a\\]\\(b\\)\n```\nhttps://x\n```")
