"""Repository names (owner/repo) and the clone sources codedesk will hand to git."""

from __future__ import annotations

import re
from dataclasses import dataclass

from desk.errors import RemoteUrlError, RepoNameError
from desk.scrub import SCRUBBED, scrub

_PART = re.compile(r"[A-Za-z0-9._-]{1,100}")
_NAME_RULE = (
    "use letters, digits, '-', '_' and '.' (1-100 of them on each side of one '/'), "
    "and no leading dot in the owner."
)

ALLOWED_SCHEMES: frozenset[str] = frozenset({"https", "http", "ssh", "git", "file"})
"""URL schemes a clone source may use; anything else could start an arbitrary git helper."""

# git runs `git-remote-<transport>` for "<transport>::<address>" (ext:: runs any command).
_REMOTE_HELPER = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*::")
_SCHEME_NAME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DRIVE = re.compile(r"[A-Za-z]:[\\/]")
_PORT = re.compile(r"[0-9]*")
_MAX_SHOWN = 200


@dataclass(frozen=True)
class RepoName:
    """A checked owner/repo pair; build it with `parse_repo_name`."""

    owner: str
    name: str

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}"


def _quote(text: str) -> str:
    """Quote user input for a message, cut short so a huge input cannot flood it."""
    if len(text) > _MAX_SHOWN:
        return repr(text[:_MAX_SHOWN]) + "..."
    return repr(text)


def _part_problem(part: str, side: str) -> str | None:
    """Say what is wrong with one side of owner/repo, or None if nothing is."""
    if not part:
        return f"the {side} is empty"
    if not _PART.fullmatch(part):
        if len(part) > 100:
            return f"the {side} is longer than 100 characters"
        return f"the {side} has a character other than letters, digits, '-', '_' and '.'"
    if part in (".", ".."):
        return f"the {side} is {part!r}, which would name a directory, not a repository"
    if part.startswith("-"):
        return f"the {side} starts with '-', which git would read as an option"
    if side == "owner" and part.startswith("."):
        return "the owner starts with '.'"
    if part.lower().endswith(".lock"):
        return f"the {side} ends in '.lock', which git reserves for lock files"
    return None


def parse_repo_name(text: str) -> RepoName:
    """Read `owner/repo`, refusing anything that could escape a directory or confuse git.

    Each part is 1-100 letters, digits, '-', '_' or '.'. The owner may not start with '.';
    the repo may (GitHub has `.github` repositories), but neither part may be '.' or '..',
    start with '-', or end in '.lock'.

    Raises:
        RepoNameError: the text is not such a name; the message says what is allowed.
    """
    owner, slash, name = text.partition("/")
    problem: str | None
    if not text:
        problem = "it is empty"
    elif not slash:
        problem = "it has no '/' between owner and repo"
    elif "/" in name:
        problem = "it has more than one '/'"
    else:
        problem = _part_problem(owner, "owner") or _part_problem(name, "repo")
    if problem is not None:
        raise RepoNameError(
            f"Repository name {_quote(text)} is not owner/repo ({problem}): {_NAME_RULE}"
        )
    return RepoName(owner=owner, name=name)


def _shown(source: str) -> str:
    """The source as a message may show it: user info, query and fragment masked, then scrubbed."""
    scheme, sep, rest = source.partition("://")
    if sep and _SCHEME_NAME.fullmatch(scheme):
        cut = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
        rest, tail = rest[:cut], rest[cut:]
        if tail:
            tail = tail[0] + SCRUBBED
        # Mask up to the last '@' anywhere before the query: over-masking a message is harmless,
        # and it also hides a password that holds a '/'.
        at = rest.rfind("@")
        if at >= 0:
            rest = SCRUBBED + rest[at:]
        source = scheme + sep + rest + tail
    else:
        # scp-like "user:password@host:path": mask everything before the host. Before a
        # "://" that follows no scheme ("user:password@host:x://y") it is the same user info.
        at = (scheme if sep else source.split("/", 1)[0]).rfind("@")
        if at >= 0:
            source = SCRUBBED + source[at:]
    return _quote(scrub(source))


def _refuse(source: str, problem: str) -> RemoteUrlError:
    return RemoteUrlError(f"Clone source {_shown(source)} {problem}")


def _check_host(source: str, hostport: str, *, scheme: str) -> None:
    """Check the host[:port] of a URL (user info already removed)."""
    if hostport.startswith("["):
        end = hostport.find("]")
        host, port_part = (hostport, "") if end < 0 else (hostport[: end + 1], hostport[end + 1 :])
        if end < 0 or (port_part and not port_part.startswith(":")):
            raise _refuse(source, "has a malformed [IPv6] host: write it as [address]:port.")
    else:
        host, _, port = hostport.partition(":")
        port_part = ":" + port if ":" in hostport else ""
    if port_part and not _PORT.fullmatch(port_part[1:]):
        raise _refuse(
            source, "has a port that is not a number: write the host as host or host:port."
        )
    if not host and scheme != "file":
        raise _refuse(source, "has no host: write it like https://github.com/owner/repo.git.")
    if host.startswith("-"):
        raise _refuse(source, "has a host starting with '-', which ssh would read as an option.")


def _check_url(source: str) -> None:
    scheme, _, rest = source.partition("://")
    if scheme.lower() not in ALLOWED_SCHEMES:
        allowed = ", ".join(sorted(ALLOWED_SCHEMES))
        # Only a scheme's name is quoted: other text before "://" may be user info.
        named = (
            f"the scheme {_quote(scheme)}"
            if not scheme or _SCHEME_NAME.fullmatch(scheme)
            else "something other than a scheme before '://'"
        )
        raise _refuse(
            source,
            f"uses {named}, which codedesk does not allow: use one of "
            f"{allowed}, an scp-like user@host:path, or a local path.",
        )
    scheme = scheme.lower()
    if "?" in source or "#" in source:
        raise _refuse(
            source,
            "has a query ('?') or fragment ('#'): remove it; a clone source is the bare "
            "repository URL.",
        )
    authority = rest.split("/", 1)[0]
    userinfo, at, hostport = authority.rpartition("@")
    if at:
        if ":" in userinfo:
            raise _refuse(
                source,
                "has a password in its user info: remove it; use an ssh key or a git "
                "credential helper instead.",
            )
        if scheme != "ssh":
            raise _refuse(
                source,
                "has user info: remove it; tokens belong in a credential helper, not the URL.",
            )
        if not userinfo or userinfo.startswith("-"):
            raise _refuse(
                source, "has an empty user name or one starting with '-': write user@host."
            )
    _check_host(source, hostport, scheme=scheme)


def _is_scp_like(source: str) -> bool:
    """Tell `host:path` from a local path the way git does, minus Windows drive letters."""
    colon = source.find(":")
    if colon < 0:
        return False
    slash = source.find("/")
    if 0 <= slash < colon:
        return False
    # "C:\\repo" or "C:/repo" is a Windows drive, not a host called "C".
    return not _DRIVE.match(source)


def _check_scp_like(source: str) -> None:
    if source.startswith("["):
        end = source.find("]:")
        if end < 0:
            raise _refuse(source, "has a malformed [host]: write it as [host]:path.")
        target, path = source[1:end], source[end + 2 :]
    else:
        target, _, path = source.partition(":")
    user, at, host = target.rpartition("@")
    if at and not user:
        raise _refuse(source, "has an empty user name before '@': write user@host:path.")
    if not host:
        raise _refuse(
            source, "has no host before ':': write it like git@github.com:owner/repo.git."
        )
    if target.startswith("-") or host.startswith("-"):
        raise _refuse(
            source, "has a user or host starting with '-', which ssh would read as an option."
        )
    # "user:password@host:path" parses as host "user" with path "password@host:path"; a real
    # path rarely has '@' in its first segment, so refuse rather than send a password to ssh.
    if "@" in path.split("/", 1)[0]:
        raise _refuse(
            source,
            "looks like it has a password (user:password@host): remove it; use an ssh key.",
        )
    if path.startswith("-"):
        raise _refuse(source, "has a path starting with '-', which git would read as an option.")


def check_remote_url(url: str) -> str:
    """`check_clone_source`'s rules for the clone's origin, which a report reads and a push
    goes to: the same refusals, said of the remote rather than of a source to clone."""
    try:
        return check_clone_source(url)
    except RemoteUrlError as error:
        said = str(error).replace("Clone source", "The clone's origin URL", 1)
        raise RemoteUrlError(
            f"{said} Nothing was pushed; fix it in the clone with `git remote set-url origin URL`"
            " (and `--push` for a push URL), keeping credentials in a credential helper."
        ) from None


def check_clone_source(source: str) -> str:
    """Return `source` unchanged if codedesk will clone from it; else say why not.

    A source is a URL (`scheme://...`), an scp-like ssh form (`user@host:path`, `host:path`:
    a ':' before any '/', and not a drive letter like `C:`), or a local path, which is taken
    as it is (the activity resolves it). URLs may use https, http, ssh, git or file, with no
    query, no fragment and no password; only ssh URLs may name a user, since elsewhere user info
    is a token that belongs in a credential helper. A token of a shape `desk.scrub` knows
    anywhere in the source is refused too. Sources that git or ssh would read as an
    option (a leading '-') and remote-helper transports (`ext::...`) are refused.

    Raises:
        RemoteUrlError: the source is refused; the message shows it with user info, query and
            fragment replaced by '***', never the credential itself.
    """
    if not source:
        raise RemoteUrlError(
            "Clone source is empty: give a URL like https://github.com/owner/repo.git, "
            "git@github.com:owner/repo.git, or a local path."
        )
    if _CONTROL.search(source):
        raise _refuse(source, "has a control character (such as a newline): remove it.")
    if source.startswith("-"):
        raise _refuse(
            source, "starts with '-', which git would read as an option: give a URL or a path."
        )
    if _REMOTE_HELPER.match(source):
        raise _refuse(
            source,
            "uses a git remote-helper transport ('name::'), which can run commands: give an "
            "https, ssh or git URL, or a local path.",
        )
    if "://" in source:
        _check_url(source)
    elif _is_scp_like(source):
        _check_scp_like(source)
    if scrub(source) != source:
        raise _refuse(
            source,
            "holds a credential (a token in the URL or path), which would be kept in the "
            "shelf's history: give the plain URL and let a credential helper supply the token.",
        )
    return source


def clone_source_for(repo: RepoName, template: str) -> str:
    """Fill `{repo}` in `template` with `owner/repo` and check the result.

    Raises:
        RemoteUrlError: the template has no `{repo}`, or the filled source is refused by
            `check_clone_source`.
    """
    if "{repo}" not in template:
        raise RemoteUrlError(
            f"Clone source template {_shown(template)} has no {{repo}} placeholder: write it "
            "like https://github.com/{repo}.git."
        )
    return check_clone_source(template.replace("{repo}", str(repo)))
