"""The one place a Temporal client is made: the pydantic data converter and address lookup."""

from __future__ import annotations

import dataclasses

from temporalio.api.failure.v1 import Failure
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import DataConverter, DefaultFailureConverter, PayloadConverter

from desk.config.settings import DeskSettings
from desk.scrub import scrub
from workers.temporal.runtime import cannot_reach, read_runtime, server_address
from workers.temporal.transport import grpc_compression, tls_config


class ScrubbingFailureConverter(DefaultFailureConverter):
    """Failures (an activity's error, a workflow's) are scrubbed before they are recorded.

    An error's text often quotes what failed (git's stderr, a URL, a command): this is the one
    place every failure this process sends to Temporal passes, causes included.
    """

    def to_failure(
        self, exception: BaseException, payload_converter: PayloadConverter, failure: Failure
    ) -> None:
        super().to_failure(exception, payload_converter, failure)
        part: Failure | None = failure
        while part is not None:
            part.message = scrub(part.message)
            part.stack_trace = scrub(part.stack_trace)
            part = part.cause if part.HasField("cause") else None


DATA_CONVERTER: DataConverter = dataclasses.replace(
    pydantic_data_converter, failure_converter_class=ScrubbingFailureConverter
)
"""Pydantic payloads, scrubbed failures: every client, worker and test connects with it."""


def resolve_address(settings: DeskSettings) -> str:
    """The configured Temporal address, else the one a running `codedesk up` recorded."""
    return server_address(settings.home, settings.temporal_address)


def ui_url(settings: DeskSettings) -> str:
    """The Temporal web UI's base URL, if one is known (empty otherwise)."""
    if settings.ui_url:
        return settings.ui_url
    record = read_runtime(settings.home)
    if record is not None:
        # A headless `up` records no UI: a link to the default UI port would lead nowhere.
        return record.ui_url
    if not settings.temporal_address:
        return f"http://127.0.0.1:{settings.ui_port}"
    return ""


def workflow_url(base: str, namespace: str, workflow_id: str) -> str:
    """The Temporal UI link to one workflow (empty when no UI is known)."""
    if not base:
        return ""
    return f"{base.rstrip('/')}/namespaces/{namespace}/workflows/{workflow_id}"


async def connect(settings: DeskSettings, address: str | None = None) -> Client:
    """Connect with the pydantic data converter; a failure is a ServerError saying what to do."""
    target = address or resolve_address(settings)
    tls = tls_config(settings)
    try:
        return await Client.connect(
            target,
            namespace=settings.namespace,
            data_converter=DATA_CONVERTER,
            grpc_compression=grpc_compression(target),
            tls=tls,
            api_key=settings.temporal_api_key.get_secret_value() or None,
        )
    except Exception as error:  # the SDK raises bare RuntimeError for connection failures
        raise cannot_reach(target, error) from None
