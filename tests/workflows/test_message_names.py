"""The names one workflow sends another by are the names the receiver declares, unchanged.

Workflows reach each other by the names in desk/names.py, never by importing each other's
definitions; recorded histories carry those names, so none may change.
"""

from __future__ import annotations

import pytest
from temporalio import workflow

from desk import names
from workflows.desk.desk_entity import Desk
from workflows.job.coding_job import CodingJob
from workflows.repo.repo_entity import RepoEntity
from workflows.shipping.ship import Ship

HANDLERS: dict[type, dict[str, set[str]]] = {
    CodingJob: {
        "signals": {
            "admit",
            "modes_changed",
            "agent_worked",
            "integration_finished",
            "messages_delivered",
            "attempt_news",
            "attempt_verdict",
        },
        "updates": {"hold", "say", "agent_inbox", "withdraw_call", "finish", "review", "pick"},
        "queries": {"current"},
    },
    Desk: {
        "signals": {"job_ended", "job_suspends", "job_resumes"},
        "updates": {"admit", "configure", "place_repo", "switch_mode"},
        "queries": {"current"},
    },
    RepoEntity: {
        "signals": {"request_integration", "withdraw_integration", "request_push", "look_at_shelf"},
        "updates": {"change_report", "configure_setup"},
        "queries": {"current", "receipt"},
    },
    Ship: {"signals": {"push_finished", "superseded"}, "updates": {"asked"}, "queries": set()},
}
"""Each workflow's handlers as its recorded histories and its clients know them."""


@pytest.mark.parametrize("defined", list(HANDLERS), ids=lambda cls: cls.__name__)
def test_a_workflow_keeps_its_handlers_names(defined: type) -> None:
    definition = workflow._Definition.must_from_class(defined)
    found = {
        "signals": set(definition.signals) - {None},
        "updates": set(definition.updates) - {None},
        "queries": set(definition.queries) - {None},
    }
    assert found == HANDLERS[defined]


SENT = [
    (names.JOB_ADMIT_SIGNAL, CodingJob, "signals"),
    (names.JOB_MODES_CHANGED_SIGNAL, CodingJob, "signals"),
    (names.JOB_INTEGRATION_FINISHED_SIGNAL, CodingJob, "signals"),
    (names.JOB_AGENT_WORKED_SIGNAL, CodingJob, "signals"),
    (names.JOB_HOLD_UPDATE, CodingJob, "updates"),
    (names.JOB_SAY_UPDATE, CodingJob, "updates"),
    (names.JOB_REVIEW_UPDATE, CodingJob, "updates"),
    (names.JOB_AGENT_INBOX_UPDATE, CodingJob, "updates"),
    (names.JOB_MESSAGES_DELIVERED_SIGNAL, CodingJob, "signals"),
    (names.JOB_WITHDRAW_CALL_UPDATE, CodingJob, "updates"),
    (names.JOB_FINISH_UPDATE, CodingJob, "updates"),
    (names.JOB_STATE_QUERY, CodingJob, "queries"),
    (names.DESK_JOB_ENDED_SIGNAL, Desk, "signals"),
    (names.DESK_JOB_SUSPENDS_SIGNAL, Desk, "signals"),
    (names.DESK_JOB_RESUMES_SIGNAL, Desk, "signals"),
    (names.DESK_STATE_QUERY, Desk, "queries"),
    (names.REQUEST_INTEGRATION_SIGNAL, RepoEntity, "signals"),
    (names.WITHDRAW_INTEGRATION_SIGNAL, RepoEntity, "signals"),
    (names.REPO_REQUEST_PUSH_SIGNAL, RepoEntity, "signals"),
    (names.REPO_LOOK_AT_SHELF_SIGNAL, RepoEntity, "signals"),
    (names.REPO_STATE_QUERY, RepoEntity, "queries"),
    (names.SHIP_PUSH_FINISHED_SIGNAL, Ship, "signals"),
    (names.SHIP_SUPERSEDED_SIGNAL, Ship, "signals"),
]


@pytest.mark.parametrize(("name", "receiver", "kind"), SENT, ids=[sent[0] for sent in SENT])
def test_a_name_sent_by_is_one_the_receiver_declares(name: str, receiver: type, kind: str) -> None:
    assert name in HANDLERS[receiver][kind]
