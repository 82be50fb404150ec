"""The Temporal server's settings: where it is, how to reach it, and the embedded one's ports."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic import Field, SecretStr, field_validator, model_validator

from desk.config.basics.defaults import (
    DEFAULT_NAMESPACE,
    DEFAULT_SERVER_SYNC,
    DEFAULT_TASK_QUEUE,
    NOT_BLANK,
    SERVER_SYNC_MODES,
    blank,
    one_of,
)
from desk.config.basics.section_base import SettingsSection


class ServerSettings(SettingsSection):
    """The Temporal server: its address and TLS, its namespace and task queue, and the ports of
    the embedded server and its web UI."""

    heading: ClassVar[str] = "The Temporal server"

    temporal_address: str = Field(
        default="",
        description="Temporal frontend host:port; empty means the embedded dev server.",
    )
    temporal_tls_ca: Path | None = Field(
        default=None,
        description="PEM file of the CA that signed the Temporal frontend's certificate (TLS on).",
    )
    temporal_tls_cert: Path | None = Field(
        default=None,
        description="PEM client certificate for mTLS to the Temporal frontend (with its key).",
    )
    temporal_tls_key: Path | None = Field(
        default=None, description="PEM private key of temporal_tls_cert."
    )
    temporal_tls_server_name: str = Field(
        default="", description="The name the frontend's certificate must carry (TLS's SNI)."
    )
    temporal_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="API key for the Temporal frontend (Temporal Cloud); TLS is on with it.",
    )
    namespace: str = Field(default=DEFAULT_NAMESPACE, description="Temporal namespace.")
    task_queue: str = Field(
        default=DEFAULT_TASK_QUEUE, description="Task queue of the codedesk worker."
    )
    port: int = Field(
        default=7233, ge=1, le=65535, description="Port of the embedded Temporal server."
    )
    ui_url: str = Field(
        default="",
        description="Base URL of the Temporal web UI for links; empty = the embedded server's UI.",
    )
    ui_port: int = Field(
        default=8233, ge=1, le=65535, description="Port of the embedded Temporal web UI."
    )
    server_sync: str = Field(
        default=DEFAULT_SERVER_SYNC,
        description=(
            "How the embedded server's SQLite file commits: normal (a crash of the server, a "
            "worker or the bot loses nothing; a power loss may lose the last moments, as git's "
            "own defaults do) or full (every commit synced to disk, slower)."
        ),
    )

    @field_validator(*NOT_BLANK)
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if blank(value):
            raise ValueError("must not be empty")
        return value

    @field_validator("server_sync")
    @classmethod
    def _sync_mode(cls, value: str) -> str:
        return one_of(value, SERVER_SYNC_MODES)

    @field_validator("temporal_tls_ca", "temporal_tls_cert", "temporal_tls_key")
    @classmethod
    def _a_readable_file(cls, value: Path | None) -> Path | None:
        if value is None:
            return None
        try:
            path = value.expanduser()
            found = path.is_file()
        except (OSError, RuntimeError):  # a name too long for the system, no home for a ~
            found = False
        if not found:
            raise ValueError("is not a file: name a PEM file the worker can read")
        return path

    @model_validator(mode="after")
    def _cert_with_its_key(self) -> ServerSettings:
        if (self.temporal_tls_cert is None) != (self.temporal_tls_key is None):
            raise ValueError(
                "temporal_tls_cert and temporal_tls_key (CODEDESK_TEMPORAL_TLS_CERT, "
                "CODEDESK_TEMPORAL_TLS_KEY) go together: set both for mTLS, or neither"
            )
        return self
