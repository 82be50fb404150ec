"""The base of every model that crosses a process boundary."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Payload(BaseModel):
    """Readers are tolerant: unknown fields are ignored, and new fields come with defaults.

    So an older and a newer worker, bot or hook can talk during an upgrade.
    """

    model_config = ConfigDict(extra="ignore")
