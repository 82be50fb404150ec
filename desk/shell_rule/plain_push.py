"""Which held pushes codedesk carries out itself: a plain push of the job's work to origin.

An agent in the sandbox has no credentials and no route to the origin, so an approved `git push`
run there cannot work. A push this module reads as plain (`git push origin HEAD:main`) is one
codedesk can do on the host instead, the safe way it pushes anyway. Anything it does not read
exactly (an option, another remote, a forced or deleting refspec, a wrapper, a shell operator,
an expansion) is not plain: it stays an ordinary held call. The standard library only, like the
rest of the rule, so the hook could import it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

REMOTE = "origin"
_SAFE_TEXT = re.compile(r"[A-Za-z0-9 ._/:-]+")
"""The only characters a plain push's command may hold: no quote, expansion or operator."""
_BRANCH = re.compile(r"[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*")
HEADS = "refs/heads/"


def plain_push(command: object, job_branch: str) -> str | None:
    """The origin branch a plain push of the job's work names, or None for any other command.

    Plain is exactly `git push origin SRC[:DST]`, SRC being `HEAD` or the job's branch (also as
    `refs/heads/...`) and DST a branch name (`main`, `refs/heads/main`); without DST the
    destination is the job's branch. `command` is the shell text or argument list of the call.
    """
    words = _words(command)
    if words is None or len(words) != 4 or words[:3] != ["git", "push", REMOTE]:
        return None
    source, colon, destination = words[3].partition(":")
    sources = {"HEAD", job_branch, HEADS + job_branch} if job_branch else {"HEAD"}
    if source not in sources:
        return None
    if not colon:
        destination = job_branch
    destination = destination.removeprefix(HEADS)
    return destination if _is_branch(destination) else None


def _words(command: object) -> list[str] | None:
    if isinstance(command, str):
        if not _SAFE_TEXT.fullmatch(command):
            return None
        return command.split()
    if isinstance(command, Sequence) and all(isinstance(word, str) for word in command):
        words = [str(word) for word in command]
        if all(_SAFE_TEXT.fullmatch(word) and " " not in word for word in words):
            return words
    return None


def _is_branch(name: str) -> bool:
    """A branch name git accepts and nothing can read as another ref or an option."""
    return bool(
        _BRANCH.fullmatch(name)
        and not name.startswith(("-", "refs/"))
        and ".." not in name
        and not name.endswith((".lock", "."))
        and name != "HEAD"
        and not any(part.startswith(".") for part in name.split("/"))
    )
