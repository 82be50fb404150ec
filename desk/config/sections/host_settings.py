"""This host's settings: its name, where codedesk keeps its files and clones, and how clones are
made and set up."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, field_validator, model_validator

from desk.config.basics.defaults import DEFAULT_HOME, blank, not_a_directory
from desk.config.basics.section_base import Duration, SettingsSection
from desk.errors import HostError
from desk.hosts import check_host_name, machine_host_name


class HostSettings(SettingsSection):
    """This worker's host: its home, its name, its shelf of clones, where a clone comes from and
    how long a clone's set-up and check may take."""

    heading: ClassVar[str] = "This host and its clones"

    home: Path = Field(
        default=Path(DEFAULT_HOME),
        description="Where codedesk keeps its server database, shelf, job logs and runtime file.",
    )
    host: str = Field(
        default_factory=machine_host_name,
        description="This worker's host name (its clones and job slots); default: the machine's.",
    )
    host_wait: Duration = Field(
        default=timedelta(minutes=1),
        description="How long a step waits for its host's worker before the job says it waits.",
    )
    git_heartbeat_timeout: Duration = Field(
        default=timedelta(seconds=10),
        description=(
            "How long a silent git step of a job (its worktree, integration, release, branch "
            "push) lives before a crashed worker's step is tried again; it heartbeats every "
            "third of it."
        ),
    )
    sticky_timeout: Duration = Field(
        default=timedelta(seconds=10),
        description=(
            "How long a workflow's next task waits for the worker that ran its last one before "
            "any worker takes it: after a worker crash its workflows go on after this."
        ),
    )
    shelf: Path | None = Field(
        default=None, description="Where clones live; default `<home>/shelf`."
    )
    clone_source: str = Field(
        default="https://github.com/{repo}.git",
        description="Where `repo add` clones from when no --from is given; `{repo}` is owner/repo.",
    )
    setup_timeout: Duration = Field(
        default=timedelta(minutes=15),
        description="How long a repository's worktree set-up command may run before the job fails.",
    )
    check_timeout: Duration = Field(
        default=timedelta(minutes=15),
        description="How long a repository's check may run before it counts as timed out.",
    )

    @field_validator("clone_source")
    @classmethod
    def _needs_repo_placeholder(cls, value: str) -> str:
        if "{repo}" not in value:
            raise ValueError("must contain {repo}, e.g. https://github.com/{repo}.git")
        return value

    @field_validator("host")
    @classmethod
    def _host_name(cls, value: str) -> str:
        try:
            return check_host_name(value)
        except HostError as error:
            raise ValueError(str(error)) from None

    @field_validator("home", "shelf", mode="before")
    @classmethod
    def _no_blank_path(cls, value: Any) -> Any:
        # Path("") is ".": an empty variable would silently put the server's database and the
        # shelf in whatever directory a command happens to run from.
        if isinstance(value, str) and blank(value):
            raise ValueError("must not be empty: name a directory, or unset it for the default")
        return value

    @field_validator("home", "shelf")
    @classmethod
    def _a_directory(cls, value: Path | None) -> Path | None:
        if value is not None and not_a_directory(value):
            raise ValueError(
                "is not a directory codedesk can use: name a directory (it is created if missing)"
            )
        return value

    @model_validator(mode="after")
    def _expand_paths(self) -> HostSettings:
        self.home = self.home.expanduser()
        self.shelf = (self.shelf or self.home / "shelf").expanduser()
        return self

    @property
    def shelf_dir(self) -> Path:
        """The shelf directory, always set after validation."""
        return self.shelf if self.shelf is not None else self.home / "shelf"

    @property
    def jobs_dir(self) -> Path:
        """Where each job keeps its agent log and receipts: `<home>/jobs/<n>/`."""
        return self.home / "jobs"
