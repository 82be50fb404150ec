"""The base of every model that crosses a process boundary, and its scrubbed text types."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, PlainSerializer

from desk.scrub import scrub, scrub_data

ScrubbedText = Annotated[str, AfterValidator(scrub), PlainSerializer(scrub, return_type=str)]
"""Text that came from outside (the agent, git, a person): scrubbed when a model is made and
again when it is serialized (after a `model_copy` or an assignment), so no credential of a
known shape reaches a workflow's input, result, state or history."""

ScrubbedData = Annotated[
    dict[str, Any],
    AfterValidator(scrub_data),
    PlainSerializer(scrub_data, return_type=dict[str, Any]),
]
"""A tool call's input: every string in it scrubbed, as `ScrubbedText`."""


class Payload(BaseModel):
    """Readers are tolerant: unknown fields are ignored, and new fields come with defaults.

    So an older and a newer worker, bot or hook can talk during an upgrade.
    """

    model_config = ConfigDict(extra="ignore")
