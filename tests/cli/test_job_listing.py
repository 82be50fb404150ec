"""The names a listing reads visibility by are the workflow definitions' own."""

from __future__ import annotations

from temporalio import workflow

from desk.names import APPROVAL_WORKFLOW_TYPE, DESK_STATE_QUERY, JOB_WORKFLOW_TYPE
from workflows.desk import desk_entity as desk_workflow
from workflows.job.coding_job import CodingJob
from workflows.shipping.approval import Approval


def test_names_are_the_definitions_names() -> None:
    assert workflow._Definition.must_from_class(CodingJob).name == JOB_WORKFLOW_TYPE
    assert workflow._Definition.must_from_class(Approval).name == APPROVAL_WORKFLOW_TYPE
    queries = workflow._Definition.must_from_class(desk_workflow.Desk).queries
    assert queries[DESK_STATE_QUERY].fn is desk_workflow.Desk.current
