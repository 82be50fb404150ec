"""How much of a failed command's own words a failure quotes (CODEDESK_DIAGNOSTIC_CHARS).

Git's stderr can run to thousands of lines (every file a checkout would overwrite); a failure
quotes it scrubbed and cut to this many characters, keeping its start (what failed) and its
end (git's advice), so a report, a card and the history stay readable. gh's answers and an
agent CLI's own error text (its result's error, its "could not work" line) are quoted the same.
"""

from __future__ import annotations

from desk.scrub import DIAGNOSTIC_CHARS, scrub

_limit = [DIAGNOSTIC_CHARS]


def set_diagnostic_chars(chars: int) -> None:
    """The worker's setting, from its start on."""
    _limit[0] = chars


def quoted(text: str) -> str:
    """`text` scrubbed, then cut in its middle to the setting's characters, saying how many."""
    clean = scrub(text.strip())
    limit = _limit[0]
    if len(clean) <= limit:
        return clean
    head, tail = limit * 2 // 3, limit // 3
    cut = len(clean) - head - tail
    return f"{clean[:head]} […{cut} characters cut…] {clean[len(clean) - tail :]}"
