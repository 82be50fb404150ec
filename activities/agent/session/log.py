"""Reading an agent's log back: the tail a report shows when the agent could not return it."""

from __future__ import annotations

from activities.shelf_paths import job_dir
from desk.config.settings import DeskSettings
from desk.scrub import scrub

AGENT_LOG = "agent.log"


def log_tail(settings: DeskSettings, number: int, chars: int) -> tuple[str, int, str]:
    """The last `chars` characters of job `number`'s agent log (scrubbed), how many were cut,
    and the log's path; empty when the agent never wrote one."""
    path = job_dir(settings, number) / AGENT_LOG
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "", 0, ""
    cut = max(0, len(text) - chars)
    return scrub(text[cut:]), cut, str(path)
