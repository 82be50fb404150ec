"""The Temporal service client alone, for commands that only read what the server knows.

`codedesk jobs` needs Temporal's visibility and one query, not the SDK's `Client` (its data
converter, workflow and activity modules): `temporalio.service` costs about a third less to
import, which is most of what a listing costs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workers.temporal.runtime import cannot_reach
from workers.temporal.transport import grpc_compression, tls_config

if TYPE_CHECKING:
    from temporalio.service import WorkflowService

    from desk.config.settings import DeskSettings


async def connect_service(address: str, settings: DeskSettings | None = None) -> WorkflowService:
    """The workflow service at `address`; a failure is a ServerError saying what to do.

    `settings`, when they were read in full, give TLS to the frontend (see `tls_config`).
    """
    from temporalio.service import ConnectConfig, ServiceClient

    tls = tls_config(settings) if settings is not None else False
    api_key = settings.temporal_api_key.get_secret_value() if settings is not None else ""
    try:
        config = ConnectConfig(
            target_host=address,
            grpc_compression=grpc_compression(address),
            tls=tls,
            api_key=api_key or None,
        )
        client = await ServiceClient.connect(config)
    except Exception as error:  # the SDK raises bare RuntimeError for connection failures
        raise cannot_reach(address, error) from None
    return client.workflow_service
