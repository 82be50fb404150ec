"""The comparison card of a job of several attempts (issue 48) within Discord's limits: every
attempt keeps a row however many there are and however long their last words, a cut row is
noted, and the buttons fit Discord's five rows of five."""

from __future__ import annotations

from desk.names import ATTEMPT_LABELS
from desk.payloads.conversation.attempt_payloads import AttemptRow, Attempts, AttemptState
from desk.records.repo_setup import CheckStatus
from surfaces.discord.interactions.pick_buttons import PickButton, comparison_view
from surfaces.render.discord.comparison_card import comparison_embed
from surfaces.render.discord.embeds import DESCRIPTION_CHARS, EMBED_CHARS


def row(label: str, number: int, words: str = "done") -> AttemptRow:
    return AttemptRow(
        label=label,
        number=number,
        agent="claude",
        agent_command="claude -p",
        state=AttemptState.READY,
        check=CheckStatus.PASSED,
        stat="1 file changed, 1 insertion(+)",
        final_words=words,
    )


def test_every_attempt_has_a_row_and_a_long_one_is_cut_with_a_note() -> None:
    rows = [row(label, 10 + n, "w" * 5000) for n, label in enumerate(ATTEMPT_LABELS)]
    embed = comparison_embed(9, Attempts(rows=rows))
    description = embed.description or ""
    assert len(description) <= DESCRIPTION_CHARS and len(embed) <= EMBED_CHARS
    for n, label in enumerate(ATTEMPT_LABELS):
        assert f"{label}: job {10 + n}" in description
    assert "`codedesk show 9` shows them whole" in description
    assert "Attempts past the 24th have no button: `codedesk pick`." in description


def test_short_rows_are_whole_with_no_note() -> None:
    embed = comparison_embed(9, Attempts(rows=[row("a", 10), row("b", 11, "all tests pass")]))
    description = embed.description or ""
    assert "a: job 10" in description and "last words: all tests pass" in description
    assert "whole" not in description


def test_the_buttons_fit_five_rows_of_five_and_only_ready_work_may_be_picked() -> None:
    rows = [row(label, 10 + n) for n, label in enumerate(ATTEMPT_LABELS)]
    rows[1] = rows[1].model_copy(update={"state": AttemptState.ENDED})
    rows[2] = rows[2].model_copy(update={"check_blocks": True})
    view = comparison_view(9, rows)
    buttons = [item.item for item in view.children if isinstance(item, PickButton)]
    labels = {button.label: not button.disabled for button in buttons}
    assert len(view.children) == 25
    assert labels["Pick a"] and not labels["Pick b"] and not labels["Pick c"]
    assert labels["Discard all"] and "Pick z" not in labels
