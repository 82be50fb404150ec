"""Scrub what a worker or bot logs: messages and tracebacks quote commands, URLs and git's text."""

from __future__ import annotations

import logging

from desk.scrub import scrub


class ScrubLogRecords(logging.Filter):
    """A handler filter: the record's message, traceback and stack are scrubbed before output."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = scrub(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = scrub(record.stack_info)
        return True


def scrub_log_output() -> None:
    """Scrub every record this process's root handlers (or Python's last resort) print."""
    handlers = list(logging.getLogger().handlers)
    if logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        if not any(isinstance(f, ScrubLogRecords) for f in handler.filters):
            handler.addFilter(ScrubLogRecords())
