"""A codex run ended for a held call, resumed once a person answered (issue 45), without a server:
the resumed thread's prompt says the answer (approved: run it again, once; declined, withdrawn:
do not retry), the job's messages after it; a thread that is gone starts afresh with the task."""

from __future__ import annotations

import shlex
from datetime import UTC, datetime
from pathlib import Path

import pytest

from activities.agent.session.opening import AFRESH, AFTER_SUSPENSION, Start, opening
from activities.agent.session.session import resumable_codex
from desk.agents.held import STOPPED, held_prompt
from desk.agents.presets import PRESETS
from desk.holds.approvals import HoldAnswer, HoldVerdict, HoldWhy, Principal
from desk.payloads.jobs import RunAgentInput
from desk.payloads.message_payloads import JobMessage, MessageSeam
from surfaces.render.words.hold_answers import answer_words

THREAD = "019a0b7c-2f4e-7a1d-8c3b-5d2a1b0c9e8f"
CODEX = [part for part in shlex.split(PRESETS["codex"]) if part != "{task}"] + ["add notes"]
ACTION = "Run: git reset --hard"
APPROVED = HoldAnswer(verdict=HoldVerdict.APPROVED, why=HoldWhy.APPROVED, by="alice")
DECLINED = HoldAnswer(
    verdict=HoldVerdict.DECLINED, why=HoldWhy.DECLINED, by="bob", note="not on main"
)


def kept_thread(home: Path) -> Path:
    day = home / ".codex" / "sessions" / "2026" / "12" / "06"
    day.mkdir(parents=True)
    (day / f"rollout-2026-12-06T08-00-00-{THREAD}.jsonl").write_text("{}\n")
    return home


def resumed(home: Path, answer: HoldAnswer, *messages: JobMessage) -> Start:
    request = RunAgentInput(
        number=7,
        repo="acme/api",
        task="add notes",
        agent_command=PRESETS["codex"],
        worktree="/w",
        message_run=2,
        resume_session=THREAD,
        held_answer=answer,
        held_action=ACTION,
    )
    tags = {message.seq: "cd" * 8 for message in messages}
    return Start(request, 1, 2, THREAD, home, MessageSeam.RESUME, list(messages), tags)


def test_the_preset_is_a_codex_command_whose_thread_can_be_resumed() -> None:
    assert resumable_codex(CODEX)
    assert not resumable_codex([*CODEX[:-2], "--cd", "/w", "--", "add notes"])


def test_an_approval_resumes_codexs_thread_telling_it_to_run_the_call_again(
    tmp_path: Path,
) -> None:
    opened = opening(CODEX, resumed(kept_thread(tmp_path), APPROVED))
    assert opened.argv[:3] == ["codex", "exec", "resume"] and THREAD in opened.argv
    assert (opened.start, opened.resumed, opened.interrupted) == (AFTER_SUSPENSION, True, False)
    prompt = opened.argv[-1]
    assert prompt.startswith(STOPPED) and "add notes" not in prompt
    assert f"`{ACTION}` was approved by alice: run it again" in prompt, prompt
    assert opened.messages == [] and opened.seam is None


def test_a_decline_says_do_not_retry_and_the_messages_come_after_it(tmp_path: Path) -> None:
    said = JobMessage(
        seq=1, text="also the changelog", by=Principal(id="alice"), at=datetime.now(UTC)
    )
    opened = opening(CODEX, resumed(kept_thread(tmp_path), DECLINED, said))
    prompt = opened.argv[-1]
    assert "was declined by bob (not on main): do not retry it" in prompt, prompt
    assert prompt.index("declined") < prompt.index("also the changelog"), prompt
    assert [m.seq for m in opened.messages] == [1] and opened.seam == MessageSeam.RESUME


def test_a_thread_that_is_gone_starts_afresh_with_the_task(tmp_path: Path) -> None:
    opened = opening(CODEX, resumed(tmp_path, APPROVED))
    assert (opened.argv, opened.start, opened.resumed) == (CODEX, AFRESH, False)


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (HoldAnswer(verdict=HoldVerdict.WITHDRAWN, why=HoldWhy.WITHDRAWN), "was withdrawn: do not"),
        (HoldAnswer(verdict=HoldVerdict.EXPIRED, why=HoldWhy.EXPIRED), "was expired: do not"),
        (
            HoldAnswer(
                verdict=HoldVerdict.SHIP_REQUESTED,
                why=HoldWhy.SHIP_REQUESTED,
                by="alice",
                branch="main",
            ),
            "codedesk will push your commits to main itself. Do not run it",
        ),
    ],
)
def test_every_answer_is_told_in_words(answer: HoldAnswer, words: str) -> None:
    assert words in held_prompt(ACTION, answer)


def test_the_hook_tells_an_agent_that_cannot_defer_to_stop() -> None:
    said = answer_words({"verdict": "deferred", "approval_id": "approval-1"})
    assert "held for a person (approval-1)" in said and "end your turn" in said, said
