"""Remove credentials from diagnostic text before it reaches a report or a log."""

from __future__ import annotations

import re

SCRUBBED = "***"
"""What a removed credential is replaced with."""

# Each rule keeps a recognisable prefix (group "keep") and replaces the rest of the match, so a
# reader still sees which kind of secret was there. Order matters: a header value goes first, so
# a token inside it is not scrubbed twice into something odd.
_RULES: tuple[re.Pattern[str], ...] = (
    # "Authorization: Basic abc", also inside git's curl trace ("=> Send header: ...") and in
    # JSON-ish dumps ('"Authorization": "token x"'). The value runs to the end of the line.
    re.compile(
        r"""(?P<keep>\b(?:Proxy-)?Authorization["']?[ \t]*:[ \t]*)\S[^\r\n]*""",
        re.IGNORECASE,
    ),
    # User info in any URL: scheme://user:password@host or scheme://token@host. The greedy run
    # stops at the last '@' before the path, so a password holding '@' is removed whole.
    re.compile(r"""(?P<keep>://)[^\s/?#@'"`<>]+(?:@[^\s/?#@'"`<>]+)*(?=@)"""),
    # GitHub tokens: classic (ghp_ gho_ ghu_ ghs_ ghr_) and fine-grained (github_pat_).
    re.compile(r"(?<![A-Za-z0-9])(?P<keep>gh[pousr]_)[A-Za-z0-9]{20,}"),
    re.compile(r"(?<![A-Za-z0-9])(?P<keep>github_pat_)[A-Za-z0-9_]{20,}"),
    # GitLab personal, deploy, runner, project-trigger and CI-build tokens.
    re.compile(
        r"(?<![A-Za-z0-9])(?P<keep>(?:glpat|gldt|glrt|glptt|glcbt)-)"
        r"[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*"
    ),
    # Slack bot, user, app, refresh and legacy tokens.
    re.compile(r"(?<![A-Za-z0-9])(?P<keep>xox[abprs]-)[A-Za-z0-9-]{10,}"),
    # "Bearer <token>" outside a header. A token must hold a digit or be 20+ characters, so
    # prose such as "a bearer token" or "Bearer authentication" is left alone.
    re.compile(
        r"(?P<keep>\bBearer[ \t]+)"
        r"(?:(?=[A-Za-z._~+/-]*[0-9])[A-Za-z0-9._~+/-]{8,}|[A-Za-z0-9._~+/-]{20,})=*",
        re.IGNORECASE,
    ),
)


def _replace(match: re.Match[str]) -> str:
    return match.group("keep") + SCRUBBED


def scrub(text: str) -> str:
    """Return `text` with credentials replaced by `SCRUBBED`.

    Removes user info in URLs (`https://user:tok@host/x` becomes `https://***@host/x`),
    the values of `Authorization` and `Proxy-Authorization` headers (to the end of the line),
    GitHub (`ghp_` ... `github_pat_`), GitLab (`glpat-` ...) and Slack (`xoxb-` ...) tokens, and
    `Bearer <token>`. Token prefixes are kept (`ghp_***`) so a reader knows what was there.

    Text without credentials comes back unchanged, byte for byte, and `scrub` is idempotent.
    It is a safety net for diagnostics, not a parser: a secret in a shape it does not know
    passes through, so credentials should never be put in commands or URLs to begin with.
    """
    for rule in _RULES:
        text = rule.sub(_replace, text)
    return text
