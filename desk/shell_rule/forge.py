"""The shell rule for a forge and the web: `gh`, and `curl`/`wget` writes to a forge's API."""

from __future__ import annotations

import os
import re

from desk.shell_rule.findings import Findings, HoldClass, unresolved
from desk.shell_rule.shell_paths import UNRESOLVED, getopt, has_option, option_values

PUSH, DESTRUCTIVE = HoldClass.PUSH, HoldClass.DESTRUCTIVE
OUTSIDE, PRIVILEGED = HoldClass.OUTSIDE_WORKSPACE, HoldClass.PRIVILEGED

_FORGE = re.compile(
    r"^(?:[a-z]+://)?(?:[^/@]*@)?(?:[^/]*\.)?"
    r"(?:github|githubusercontent|gitlab|bitbucket|codeberg|gitea|forgejo|sr\.ht|sourcehut"
    r"|dev\.azure|visualstudio|gitee)\.|/api/v\d+/(?:repos|projects|user|orgs|groups)\b|/rest/api/",
    re.IGNORECASE,
)
_GH_GROUPS = frozenset(
    """alias api attestation auth browse cache co codespace completion config extension gist
    gpg-key help issue label org pr project release repo ruleset run search secret ssh-key
    status variable version workflow""".split()
)
_GH_READS = frozenset(
    """list ls view status diff checks watch download verify check get browse checkout clone
    set-default""".split()
)
_GH_DELETES = frozenset({"delete", "delete-asset", "archive", "remove"})
_CURL_SHORT = "AbcCdDeEFHKmorTuUwxXyYzQtP"
_CURL_LONG = frozenset(
    """--output --output-dir --dump-header --cookie-jar --trace --trace-ascii --libcurl
    --stderr --etag-save --request --data --data-raw --data-binary --data-urlencode --data-ascii
    --json --form --form-string --upload-file --url --config --header --user --user-agent
    --referer --cookie --max-time --connect-timeout --proxy --write-out --range --cert --key
    --cacert --resolve --connect-to --retry --limit-rate""".split()
)
_CURL_SENDS = ("-d", "-F", "-T", "--data", "--json", "--form", "--upload-file")
_WGET_SHORT = "oaeiBtOQTwPlUDRAXI"
_WGET_LONG = frozenset(
    """--output-document --output-file --append-output --execute --input-file --base --tries
    --directory-prefix --method --body-data --body-file --post-data --post-file --user-agent
    --header --timeout --wait --level --domains --reject --accept --exclude-directories
    --include-directories --user --password --load-cookies --save-cookies""".split()
)


def gh(args: list[str]) -> Findings:
    """What `gh ARGS` does: reads, writes to the forge (push), deletions, credentials."""
    words: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in ("-R", "--repo", "--hostname"):
            skip = True
        elif not a.startswith("-"):
            words.append(a)
    group, verb = (words + ["", ""])[:2]
    found = Findings()
    if not group or group in ("browse", "status", "search", "help", "version", "completion", "co"):
        return found
    if group not in _GH_GROUPS or UNRESOLVED.search(group):
        return unresolved()  # an alias of the owner's, or a name the shell makes
    if group == "api":
        return found.add(PUSH) if _gh_api_writes(args) else found
    if group == "auth":
        shows = verb == "status" and "--show-token" not in args and "-t" not in args
        return found if shows else found.add(PRIVILEGED)
    if group in ("config", "alias", "extension"):
        if verb == "exec":
            return unresolved()
        return found if verb in ("get", "list", "ls", "browse", "search") else found.add(OUTSIDE)
    if (group, verb) == ("repo", "clone") and len(words) > 2:
        default = os.path.basename(words[2].rstrip("/")).removesuffix(".git")
        return found.write(words[3] if len(words) > 3 else default)
    if verb in _GH_READS or not verb:
        return found
    if verb in _GH_DELETES:
        return found.add(PUSH, DESTRUCTIVE)
    return found.add(PUSH)


def forge_cli(args: list[str]) -> Findings:
    """GitLab's `glab` and Gitea's `tea`: reads pass, anything else changes the forge."""
    words = [a for a in args if not a.startswith("-")]
    verb = words[1] if len(words) > 1 else ""
    if not words or words[0] in ("help", "version", "auth") or verb in _GH_READS or not verb:
        return Findings(PRIVILEGED) if words[:1] == ["auth"] else Findings()
    if UNRESOLVED.search(" ".join(words[:2])):
        return unresolved()
    return Findings(PUSH, DESTRUCTIVE) if verb in _GH_DELETES else Findings(PUSH)


def _gh_api_writes(args: list[str]) -> bool:
    """`gh api` with a method other than GET, or a GraphQL mutation."""
    method, fields = None, []
    for k, a in enumerate(args):
        nxt = args[k + 1] if k + 1 < len(args) else ""
        if a in ("-X", "--method"):
            method = nxt
        elif a.startswith(("-X", "--method=")):
            method = a.partition("=")[2] if a.startswith("--") else a[2:]
        elif a in ("-f", "-F", "--field", "--raw-field", "--input"):
            fields.append(nxt)
        elif a.startswith(("--field=", "--raw-field=")):
            fields.append(a.partition("=")[2])
    if "graphql" in args:
        return any("mutation" in f for f in fields)
    return (method or ("POST" if fields else "GET")).upper() not in ("GET", "HEAD")


def curl(args: list[str]) -> Findings:
    """Files `curl` writes, and a write to a forge's API (a push by another door)."""
    opts, operands = getopt(args, _CURL_SHORT, _CURL_LONG)
    if has_option(opts, "-K", "--config"):
        return unresolved()  # its options come from a file
    found = Findings()
    out_dir = (option_values(opts, "--output-dir") or ["."])[-1]
    found.write(*(os.path.join(out_dir, p) for p in option_values(opts, "-o", "--output")))
    if has_option(opts, "-O", "--remote-name", "--remote-name-all", "-J"):
        found.write(os.path.join(out_dir, "_"))
    written = ("-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii")
    found.write(*(p for p in option_values(opts, *written, "--libcurl", "--stderr") if p != "-"))
    found.write(*option_values(opts, "--etag-save"))
    method = (option_values(opts, "-X", "--request") or [""])[-1].upper()
    sends = any(name.startswith(_CURL_SENDS) for name, _ in opts)
    urls = operands + option_values(opts, "--url")
    if (method not in ("", "GET", "HEAD") or sends) and _to_forge(urls):
        found.add(PUSH)
    return found


def wget(args: list[str]) -> Findings:
    """Files `wget` writes, and a write to a forge's API."""
    opts, operands = getopt(args, _WGET_SHORT, _WGET_LONG)
    if has_option(opts, "-e", "--execute", "-i", "--input-file"):
        return unresolved()
    found = Findings()
    documents = option_values(opts, "-O", "--output-document")
    found.write(*(p for p in documents if p != "-"))
    if not documents:
        prefix = (option_values(opts, "-P", "--directory-prefix") or ["."])[-1]
        found.write(os.path.join(prefix, "_"))
    logs = ("-o", "--output-file", "-a", "--append-output", "--save-cookies")
    found.write(*option_values(opts, *logs))
    method = (option_values(opts, "--method") or [""])[-1].upper()
    sends = has_option(opts, "--post-data", "--post-file", "--body-data", "--body-file")
    if (method not in ("", "GET", "HEAD") or sends) and _to_forge(operands):
        found.add(PUSH)
    return found


def httpie(args: list[str]) -> Findings:
    """HTTPie (`http`, `https`, `xh`): a method other than GET, or data items, to a forge."""
    operands = [a for a in args if not a.startswith("-")]
    method = operands[0].upper() if operands and operands[0].isalpha() else ""
    urls = operands[1:2] if method else operands[:1]
    items = operands[2:] if method else operands[1:]
    sends = any(re.search(r"^[^=:]*(=|:=|@)", a) and "==" not in a for a in items)
    if (method not in ("", "GET", "HEAD") or sends) and _to_forge(urls):
        return Findings(PUSH)
    return Findings()


def _to_forge(urls: list[str]) -> bool:
    """Whether a request goes to a forge's API, or to a URL the shell makes (it may)."""
    return any(_FORGE.search(url) or UNRESOLVED.search(url) for url in urls) or not urls
