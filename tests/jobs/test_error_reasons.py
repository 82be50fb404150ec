"""Reasons people read carry the message, never an exception's class; refusals log as benign."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from temporalio.exceptions import ActivityError, ApplicationError

from desk.errors import CloneExistsError, RemoteUrlError
from surfaces.clients.desk_client import DeskClient
from workflows.reasons import reason_of

MESSAGE = "Repository acme/api is not on the shelf: add it with `codedesk repo add acme/api`."


def test_a_wrapped_application_error_reads_as_its_message() -> None:
    failure = ApplicationError(MESSAGE, type="CloneMissingError", non_retryable=True)
    assert str(failure).startswith("CloneMissingError: ")  # what leaked into reasons before
    wrapper = ActivityError(
        "Activity task failed",
        scheduled_event_id=5,
        started_event_id=6,
        identity="worker",
        activity_type="prepare_worktree",
        activity_id="1",
        retry_state=None,
    )
    wrapper.__cause__ = failure
    assert reason_of(wrapper) == MESSAGE
    assert reason_of(failure) == MESSAGE
    assert reason_of(ValueError("plain")) == "plain"
    assert reason_of(None) == ""


async def test_an_expected_refusal_is_its_message_and_logs_no_traceback(
    desk: DeskClient, origin: Path, caplog: pytest.LogCaptureFixture
) -> None:
    await desk.add_repo("acme/api", str(origin))
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="temporalio"):
        with pytest.raises(CloneExistsError) as refused:
            await desk.add_repo("acme/api", str(origin))
    assert "CloneExistsError" not in str(refused.value)
    assert "acme/api" in str(refused.value)
    failed = [
        r for r in caplog.records if r.getMessage().startswith("Completing activity as failed")
    ]
    assert failed, "the refusal was not seen by the worker at all"
    assert all(record.levelno <= logging.DEBUG for record in failed), [
        (record.levelname, record.getMessage()) for record in failed
    ]


async def test_a_users_mistake_is_one_line_in_the_workers_log(
    desk: DeskClient, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`repo add --from` a path that is not there: the worker's log says so in one line."""
    missing = tmp_path / "no-such-clone"
    with caplog.at_level(logging.INFO):
        with pytest.raises(RemoteUrlError):
            await desk.add_repo("me/toy", str(missing))
    shown = [r for r in caplog.records if r.levelno >= logging.INFO]
    assert not [r for r in shown if r.exc_info or r.exc_text], [r.getMessage() for r in shown]
    lines = [r.getMessage() for r in shown if str(missing) in r.getMessage()]
    assert lines == [
        f"Refused (RemoteUrlError): add_repo for shelf-add-me/toy: Clone source '{missing}' is "
        "neither a URL nor an existing path; check the path."
    ]
