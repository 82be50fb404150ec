"""Following a job's history (`codedesk task --wait`, `watch`): the server's long poll may
answer "current branch changed" when the workflow's transitions moved under it (an Update's
speculative workflow task dropped meanwhile; seen in CI as `task --wait` dying with that
RPCError). `follow` reads the history again then; these tests hold what it takes for that
failure, as the server sends it, and that anything else still fails."""

from __future__ import annotations

from google.protobuf.any_pb2 import Any as AnyProto
from temporalio.api.common.v1 import GrpcStatus
from temporalio.service import RPCError, RPCStatusCode

from surfaces.clients.desk_client import branch_changed

SERVER_WORDS = (
    "Current and request branch tokens, or current and request versioned transitions, don't match."
)


def server_error(message: str, detail: str) -> RPCError:
    """An RPCError as the SDK raises it from the server's gRPC status."""
    status = GrpcStatus(code=3, message=message)
    if detail:
        status.details.append(AnyProto(type_url=f"type.googleapis.com/{detail}"))
    return RPCError(message, RPCStatusCode.INVALID_ARGUMENT, status.SerializeToString())


def test_a_changed_branch_is_read_again() -> None:
    failure = "temporal.server.api.errordetails.v1.CurrentBranchChangedFailure"
    assert branch_changed(server_error(SERVER_WORDS, failure))
    assert branch_changed(server_error(SERVER_WORDS, ""))  # a server that names no detail


def test_any_other_refusal_still_fails() -> None:
    assert not branch_changed(server_error("workflow not found", ""))
    other = "temporal.api.errordetails.v1.NotFoundFailure"
    assert not branch_changed(server_error("Workflow execution not found.", other))
