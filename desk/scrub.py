"""Remove credentials from text before it reaches a workflow, a report, a card or a log."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SCRUBBED = "***"
DIAGNOSTIC_CHARS = 600
"""How much of a failed command's output a failure quotes by default (CODEDESK_DIAGNOSTIC_CHARS)."""
"""What a removed credential is replaced with."""

_LINE_BREAK = re.compile(r"(\r?\n)")
_SCHEME = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*\Z")


@dataclass(frozen=True)
class Shape:
    """One kind of credential: its name (for docs/security.md), the pattern and its replacement.

    Every pattern has a group "keep" (a recognisable prefix, kept so a reader still sees which
    kind of secret was there); the replacement swaps the rest of the match for `SCRUBBED`.
    """

    name: str
    pattern: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]
    triggers: tuple[str, ...]
    """Lower-case text one of which every match holds: without any, the pattern is not run."""


def _plain(match: re.Match[str]) -> str:
    return match.group("keep") + SCRUBBED


def _user_info(match: re.Match[str]) -> str:
    # ssh authenticates with keys: `ssh://git@host` names a user, and holds no secret.
    scheme = _SCHEME.search(match.string, max(0, match.start() - 16), match.start())
    if scheme is not None and scheme.group().lower() in ("ssh", "git+ssh", "ssh+git"):
        if ":" not in match.group("info"):
            return match.group(0)
    return match.group("keep") + SCRUBBED


def _pem(match: re.Match[str]) -> str:
    keep, end = match.group("keep"), match.group("end")
    body = match.group(0)[len(keep) :]
    if end is None and not body.strip(" \t\r\n"):
        return match.group(0)  # a BEGIN line and no key after it: nothing to remove
    # Keep the text's own line breaks: a real newline, or JSON's "\n" escape.
    newline = "\\n" if body.lstrip(" \t").startswith("\\") else "\n"
    return keep + newline + SCRUBBED + (newline + end if end else "")


def _token_end(body: str, length: int, shortest: int) -> int | None:
    """How much of `body` (runs of token characters between line breaks) is one token."""
    parts = _LINE_BREAK.split(body)
    first = parts[0]
    used, count = len(first), len(first)
    index = 2
    while count < length and index < len(parts):
        need = length - count
        if len(parts[index]) >= need:
            used += len(parts[index - 1]) + need
            count = length
            break
        count += len(parts[index])
        used += len(parts[index - 1]) + len(parts[index])
        index += 2
    if count < length or len(parts) == 1:
        return len(first) if len(first) >= shortest else None
    return used


def _fixed(length: int, shortest: int) -> Callable[[re.Match[str]], str]:
    """A token of a known length, which a terminal or a log may have wrapped over lines.

    The match is the prefix and runs of token characters separated by line breaks. When the
    runs add up to the token's length they are one token (the breaks inside it go too);
    otherwise only the first run is a token, if it is long enough.
    """

    def replace(match: re.Match[str]) -> str:
        shown: list[str] = []
        current: re.Match[str] | None = match
        while current is not None:
            body = current.group("body")
            end = _token_end(body, length, shortest)
            if end is None:
                shown.append(current.group(0))
                break
            shown.append(current.group("keep") + SCRUBBED)
            # The rest may hold another token of the same kind, on a line of its own.
            rest = body[end:]
            current = current.re.search(rest)
            shown.append(rest if current is None else rest[: current.start()])
        return "".join(shown)

    return replace


def _token(prefix: str, chars: str) -> re.Pattern[str]:
    """A prefix, then runs of token characters that line breaks may separate."""
    return re.compile(
        rf"(?<![A-Za-z0-9_])(?P<keep>{prefix})(?P<body>[{chars}]+(?:\r?\n[{chars}]+)*)"
    )


_PEM_KIND = r"(?:RSA |DSA |EC |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?"
_NEWLINE = r"(?:\r?\n|(?:\\r)?\\n)"
_PEM_LINE = (
    r"[ \t]*(?:(?:Proc-Type|DEK-Info):[ \t]*[A-Za-z0-9,.+/=-]*|[A-Za-z0-9+/=]+|\*\*\*)?[ \t]*"
)

SHAPES: tuple[Shape, ...] = (
    # "Authorization: Basic abc", also inside git's curl trace ("=> Send header: ...") and in
    # JSON-ish dumps ('"Authorization": "token x"'). The value ends at the line's end, a quote or
    # a shell operator, so nothing after it (the rest of a held command) is hidden. Order
    # matters: a header goes first, so a token inside it is not scrubbed twice.
    Shape(
        "`Authorization:` and `Proxy-Authorization:` header values",
        re.compile(
            r"""(?P<keep>\b(?:Proxy-)?Authorization["']?[ \t]*:[ \t]*["']?)"""
            r"""[^\s"'`;|&<>()$][^\r\n"'`;|&<>()$]*""",
            re.IGNORECASE,
        ),
        _plain,
        ("authorization",),
    ),
    # User info in any URL: scheme://user:password@host or scheme://token@host. The greedy run
    # stops at the last '@' before the path, so a password holding '@' is removed whole.
    Shape(
        "user info in URLs (`https://user:password@host`; an ssh URL's user name stays)",
        re.compile(
            r"(?P<keep>://)"
            r"""(?P<info>[^\s/?#@'"`<>]+(?:@[^\s/?#@'"`<>]+)*)(?=@)"""
        ),
        _user_info,
        ("://",),
    ),
    # A PEM private key block, over lines or with JSON's "\n" escapes between them (a service
    # account file), or flattened to one line. Only key-like lines count as its body, so no
    # command or prose after a BEGIN line is hidden; without its END line (a cut log) the
    # key-like lines after BEGIN go.
    Shape(
        "PEM private key blocks (`-----BEGIN ... PRIVATE KEY-----`), whole",
        re.compile(
            rf"(?P<keep>-----BEGIN (?P<kind>{_PEM_KIND})-----)"
            rf"(?:(?:[ \t]+[A-Za-z0-9+/=]+)+[ \t]+(?=-----END)"
            rf"|(?:{_NEWLINE}{_PEM_LINE}(?={_NEWLINE}|-----END|\Z))*)"
            rf"(?:{_NEWLINE}?[ \t]*(?P<end>-----END (?P=kind)-----))?"
        ),
        _pem,
        ("-----begin",),
    ),
    # "Bearer <token>" outside a header. A token must hold a digit or be 20+ characters, so
    # prose such as "a bearer token" or "Bearer authentication" is left alone.
    Shape(
        "`Bearer <token>`",
        re.compile(
            r"(?P<keep>\bBearer[ \t]+)"
            r"(?:(?=[A-Za-z._~+/-]*[0-9])[A-Za-z0-9._~+/-]{8,}|[A-Za-z0-9._~+/-]{20,})=*",
            re.IGNORECASE,
        ),
        _plain,
        ("bearer",),
    ),
    Shape(
        "GitHub classic tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`), also wrapped over lines",
        _token("gh[pousr]_", "A-Za-z0-9"),
        _fixed(36, 20),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    Shape(
        "GitHub fine-grained tokens (`github_pat_`), also wrapped over lines",
        _token("github_pat_", "A-Za-z0-9_"),
        _fixed(82, 20),
        ("github_pat_",),
    ),
    Shape(
        "GitLab tokens (`glpat-`, `gldt-`, `glrt-`, `glptt-`, `glcbt-`)",
        re.compile(
            r"(?<![A-Za-z0-9])(?P<keep>(?:glpat|gldt|glrt|glptt|glcbt)-)"
            r"[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*"
        ),
        _plain,
        ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-"),
    ),
    Shape(
        "Slack tokens (`xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`, `xapp-`)",
        re.compile(r"(?<![A-Za-z0-9])(?P<keep>xox[abprs]-|xapp-)[A-Za-z0-9-]{10,}"),
        _plain,
        ("xox", "xapp-"),
    ),
    Shape(
        "AWS access key ids (`AKIA`, `ASIA`, `ABIA`, `ACCA`), also wrapped over lines",
        _token("AKIA|ASIA|ABIA|ACCA", "A-Z0-9"),
        _fixed(16, 16),
        ("akia", "asia", "abia", "acca"),
    ),
    Shape(
        "AWS secret access keys and session tokens after their name "
        '(`aws_secret_access_key = ...`, `"SecretAccessKey": "..."`)',
        re.compile(
            r"(?P<keep>(?<![A-Za-z0-9])(?:aws_?)?(?:secret_?access_?key|session_?token)"
            r"""["']?[ \t]*[:=][ \t]*["']?)[A-Za-z0-9/+=]{16,}""",
            re.IGNORECASE,
        ),
        _plain,
        ("secret", "session"),
    ),
    Shape(
        "Anthropic keys (`sk-ant-`)",
        re.compile(r"(?<![A-Za-z0-9_-])(?P<keep>sk-ant-)[A-Za-z0-9_-]{20,}"),
        _plain,
        ("sk-ant-",),
    ),
    Shape(
        "OpenAI keys (`sk-proj-`, `sk-svcacct-`, `sk-admin-`, `sk-`)",
        re.compile(
            r"(?<![A-Za-z0-9_-])(?P<keep>sk-(?:proj-|svcacct-|admin-)?)(?!ant-)"
            r"(?=[A-Za-z_-]*[0-9])[A-Za-z0-9][A-Za-z0-9_-]{19,}"
        ),
        _plain,
        ("sk-",),
    ),
    Shape(
        "JSON Web Tokens (`eyJ....eyJ....`)",
        re.compile(
            r"(?<![A-Za-z0-9_-])(?P<keep>eyJ)[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"
        ),
        _plain,
        ("eyj",),
    ),
)
"""Every shape the scrubber knows, in the order they are applied."""


def scrub(text: str) -> str:
    """Return `text` with every credential of a known shape (`SHAPES`) replaced by `SCRUBBED`.

    Token prefixes are kept (`ghp_***`) so a reader knows what was there. Text without
    credentials comes back unchanged, byte for byte, and `scrub` is idempotent. It is a safety
    net, not a parser: a secret in a shape it does not know passes through, so credentials
    should never be put in tasks, commands or URLs to begin with.
    """
    lowered = text.lower()
    for shape in SHAPES:
        if any(trigger in lowered for trigger in shape.triggers):
            scrubbed = shape.pattern.sub(shape.replace, text)
            if scrubbed != text:
                text, lowered = scrubbed, scrubbed.lower()
    return text


def scrub_data(value: Any) -> Any:
    """`value` with every string in it scrubbed: dictionaries (keys too), lists and tuples."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {scrub_data(key): scrub_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(scrub_data(item) for item in value)
    return value


_OPEN_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_])(?P<prefix>gh[pousr]_|github_pat_|AKIA|ASIA|ABIA|ACCA)"
    r"(?P<body>[A-Za-z0-9_]*(?:\r?\n[A-Za-z0-9_]+){0,3})(?:\r?\n)?\Z"
)
_TOKEN_LENGTHS = {"github_pat_": 82, "AKIA": 16, "ASIA": 16, "ABIA": 16, "ACCA": 16}
"""Token lengths after the prefix (GitHub classic tokens: 36), for a wrapped token."""
_PEM_BEGIN = re.compile(rf"-----BEGIN {_PEM_KIND}-----")
_PEM_BODY_LINE = re.compile(
    r"[ \t]*(?:(?:Proc-Type|DEK-Info):[ \t]*[A-Za-z0-9,.+/=-]*|[A-Za-z0-9+/=]*)[ \t]*(?:\r?\n|\Z)"
)
_PEM_END = re.compile(rf"-----END {_PEM_KIND}-----")


def _still_open(token: re.Match[str]) -> bool:
    """Whether a token at the end of the text may go on in the text still to come."""
    length = _TOKEN_LENGTHS.get(token.group("prefix"), 36)
    return len(_LINE_BREAK.sub("", token.group("body"))) < length


class StreamScrubber:
    """Scrubs text that arrives line by line (an agent's output) for a log and a live tail.

    `feed` returns what is safe to show now. A line that ends in the start of a token a
    terminal may have wrapped, or an open private key block, is held back until the text
    that completes it arrives (at most `hold` characters; past that it is shown scrubbed, and
    the rest of a key block is dropped line by line until its END line).
    """

    def __init__(self, hold: int = 1 << 16) -> None:
        self.hold = hold
        self._pending = ""
        self._in_key = False

    def feed(self, text: str) -> str:
        """Add `text`; return the scrubbed text that nothing later can change."""
        if self._in_key:
            text = self._drop_key_lines(text)
        self._pending += text
        cut = self._safe_end()
        if len(self._pending) - cut > self.hold:
            cut = len(self._pending)
            self._in_key = self._key_open(self._pending)
        ready, self._pending = self._pending[:cut], self._pending[cut:]
        return scrub(ready)

    def flush(self) -> str:
        """Everything still held back, scrubbed (at the end of the output)."""
        ready, self._pending = self._pending, ""
        return scrub(ready)

    def _safe_end(self) -> int:
        """Where the text that may still change (an open token or key block) begins."""
        pending = self._pending
        end = len(pending)
        begins = list(_PEM_BEGIN.finditer(pending))
        if begins and self._key_open(pending[begins[-1].start() :]):
            end = pending.rfind("\n", 0, begins[-1].start()) + 1
        token = _OPEN_TOKEN.search(pending)
        if token is not None and _still_open(token):
            end = min(end, pending.rfind("\n", 0, token.start()) + 1)
        return end

    @staticmethod
    def _key_open(text: str) -> bool:
        """Whether a key block in `text` has begun and not ended."""
        begins = list(_PEM_BEGIN.finditer(text))
        if not begins:
            return False
        last = begins[-1]
        if _PEM_END.search(text, last.end()):
            return False
        rest = text[last.end() :]
        position = 0
        while position < len(rest):
            line = _PEM_BODY_LINE.match(rest, position)
            if line is None or line.end() == position:
                return False
            position = line.end()
        return True

    def _drop_key_lines(self, text: str) -> str:
        """Drop the key lines that follow a block shown before its END came; return the rest."""
        position = 0
        while position < len(text):
            if _PEM_END.match(text, position):
                break
            line = _PEM_BODY_LINE.match(text, position)
            if line is None or line.end() == position:
                break
            position = line.end()
        else:
            return ""
        self._in_key = False
        return text[position:]
