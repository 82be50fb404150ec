"""The Temporal service client alone, for commands that only read what the server knows.

`codedesk jobs` needs Temporal's visibility and one query, not the SDK's `Client` (its data
converter, workflow and activity modules): `temporalio.service` costs about a third less to
import, which is most of what a listing costs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workers.runtime import cannot_reach
from workers.transport import grpc_compression

if TYPE_CHECKING:
    from temporalio.service import WorkflowService


async def connect_service(address: str) -> WorkflowService:
    """The workflow service at `address`; a failure is a ServerError saying what to do."""
    from temporalio.service import ConnectConfig, ServiceClient

    try:
        config = ConnectConfig(target_host=address, grpc_compression=grpc_compression(address))
        client = await ServiceClient.connect(config)
    except Exception as error:  # the SDK raises bare RuntimeError for connection failures
        raise cannot_reach(address, error) from None
    return client.workflow_service
