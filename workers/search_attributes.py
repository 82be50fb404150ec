"""codedesk's search attributes on the Temporal server it uses."""

from __future__ import annotations

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.client import Client
from temporalio.service import RPCError

from desk.names import SEARCH_ATTRIBUTES


async def ensure_search_attributes(client: Client) -> list[str]:
    """Register codedesk's search attributes where the server lacks them (a fresh cluster, or
    a database an older codedesk made); returns the names it registered."""
    listing = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=client.namespace)
    )
    missing = {
        key.name: IndexedValueType.ValueType(key.indexed_value_type)
        for key in SEARCH_ATTRIBUTES
        if key.name not in listing.custom_attributes
    }
    if not missing:
        return []
    try:
        await client.operator_service.add_search_attributes(
            AddSearchAttributesRequest(namespace=client.namespace, search_attributes=missing)
        )
    except RPCError as error:
        if "already" not in str(error).lower():
            raise
    return sorted(missing)
