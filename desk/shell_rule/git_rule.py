"""The shell rule for git: pushes, history it destroys, repositories and files it writes."""

from __future__ import annotations

import os
import re

from desk.shell.lex import split_words
from desk.shell_rule.findings import Findings, HoldClass, unresolved
from desk.shell_rule.shell_paths import UNRESOLVED, getopt, has_option, option_values

PUSH, DESTRUCTIVE = HoldClass.PUSH, HoldClass.DESTRUCTIVE
OUTSIDE, PRIVILEGED = HoldClass.OUTSIDE_WORKSPACE, HoldClass.PRIVILEGED

_GLOBAL_VALUES = frozenset(
    "-C -c --git-dir --work-tree --namespace --config-env --super-prefix --attr-source".split()
)
_PUSH_VALUES = frozenset({"-o", "--push-option", "--repo", "--receive-pack", "--exec"})
_COMMAND_KEY = re.compile(
    r"core\.(pager|editor|sshcommand|fsmonitor|askpass|alternaterefscommand|gitproxy)"
    r"|pager\..+|sequence\.editor|diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver"
    r"|filter\..+\.(clean|smudge|process)|credential\.(.+\.)?helper|gpg(\..+)?\.program"
    r"|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|proxy)|sendemail\..+"
    r"|alias\..+"
)
_COMMAND_ENV = frozenset(
    "GIT_SSH_COMMAND GIT_SSH GIT_PAGER GIT_EDITOR GIT_SEQUENCE_EDITOR GIT_ASKPASS"
    " GIT_EXTERNAL_DIFF GIT_PROXY_COMMAND PAGER EDITOR VISUAL SSH_ASKPASS".split()
)
_INCLUDES = re.compile(r"include\.path|includeif\..+|core\.hookspath")
_UNREADABLE_ENV = re.compile(r"GIT_CONFIG_(PARAMETERS|COUNT|KEY_\d+|VALUE_\d+)|GIT_EXEC_PATH")
_SENDS = frozenset({"push", "send-pack", "http-push", "send-email", "imap-send"})
_LOCAL = frozenset(
    """add am annotate apply backfill blame branch bugreport bundle cat-file check-attr
    check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool
    clean clone column commit commit-graph commit-tree config count-objects describe diagnose
    diff diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack
    filter-branch for-each-ref format-patch fsck gc get-tar-commit-id grep hash-object help hook
    index-pack init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo
    mailsplit maintenance merge merge-base merge-file merge-index merge-tree mergetool mktag mktree
    multi-pack-index mv name-rev notes pack-objects pack-refs patch-id prune prune-packed pull
    range-diff read-tree rebase reflog remote repack replace replay request-pull rerere reset
    restore rev-list rev-parse revert rm shortlog show show-branch show-index show-ref
    sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag
    unpack-file unpack-objects update-index update-ref update-server-info upload-archive
    upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree
    write-tree bisect archive credential lfs svn p4 cvsexportcommit receive-pack""".split()
)
_READS = frozenset(
    """status log diff show blame grep ls-files ls-tree ls-remote rev-parse rev-list cat-file
    describe shortlog show-ref show-branch for-each-ref merge-base name-rev whatchanged version
    help var check-ignore check-attr check-mailmap check-ref-format count-objects diff-tree
    diff-index diff-files verify-commit verify-tag verify-pack cherry range-diff annotate
    get-tar-commit-id patch-id request-pull stripspace column interpret-trailers""".split()
)
_OUTPUT_DIFFS = frozenset(
    "diff log show format-patch diff-tree diff-index diff-files range-diff whatchanged".split()
)


def git(args: list[str], env: dict[str, str]) -> Findings:
    """What `git ARGS` does, run with these environment assignments."""
    found = Findings()
    config: dict[str, str | None] = {}
    repo = ""
    for name, value in env.items():
        if name in _COMMAND_ENV:
            found.scripts.append(value)
        elif name in ("GIT_DIR", "GIT_WORK_TREE"):
            found.repos.append(value)
        elif _UNREADABLE_ENV.fullmatch(name):
            found.unresolved = True
    i = 0
    while i < len(args) and args[i].startswith("-"):
        a, nxt = args[i], args[i + 1] if i + 1 < len(args) else ""
        name, eq, inline = a.partition("=")
        value = inline if eq else nxt
        if name == "-C":
            repo = os.path.join(repo, value)
        elif name == "-c":
            key, _, setting = value.partition("=")
            config[key.lower()] = setting
        elif name == "--config-env":
            config[value.partition("=")[0].lower()] = None  # its value is in a variable
        elif name in ("--git-dir", "--work-tree"):
            found.repos.append(value)
        elif name == "--exec-path" and eq:
            return unresolved()
        i += 1 if eq or a not in _GLOBAL_VALUES else 2
    if repo or not found.repos:  # the repository in the directory git runs in, by default
        found.repos.append(repo or ".")
    for key, given in config.items():
        if _INCLUDES.fullmatch(key) and given != "/dev/null":
            found.unresolved = True  # another config file, or hooks: what runs cannot be known
        elif _COMMAND_KEY.fullmatch(key) and not key.startswith("alias."):
            if given is None:
                found.unresolved = True
            else:
                found.scripts.append(given.removeprefix("!"))
    if i >= len(args):
        return found
    sub, rest = args[i], args[i + 1 :]
    if "alias." + sub.lower() in config:  # `git -c alias.p=push p`
        alias = config["alias." + sub.lower()]
        if alias is None:
            return found.merge(unresolved())
        if alias.startswith("!"):
            found.scripts.append(" ".join([alias[1:], *rest]))
            return found
        expanded = split_words(alias) or [""]
        sub, rest = expanded[0], [*expanded[1:], *rest]
    # A transport that runs a command, and the program run on the other side of a local remote.
    found.scripts += [a[5:] for a in rest if a.startswith("ext::")]
    for k, a in enumerate(rest):
        if a.startswith(("--upload-pack=", "--receive-pack=", "--exec=")):
            found.scripts.append(a.partition("=")[2])
        elif a in ("--upload-pack", "--receive-pack") and k + 1 < len(rest):
            found.scripts.append(rest[k + 1])
    if sub in _SENDS or sub in _READS:
        found.repos = []  # another repository is read, or pushed from: that is not a write
    if sub in _SENDS:
        found.add(PUSH)
        if sub in ("push", "send-pack") and _push_destroys(rest):
            found.add(DESTRUCTIVE)
        return found
    if UNRESOLVED.search(sub) or re.search(r"[*?[]", sub) or sub not in _LOCAL:
        return found.merge(unresolved())  # an alias from a config file, or a name the shell makes
    return found.merge(_subcommand(sub, rest))


def _push_destroys(args: list[str]) -> bool:
    """A push that forces (or deletes, mirrors, prunes) remote refs."""
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in _PUSH_VALUES:
            skip = True
        elif a.startswith("--"):
            if a in ("--force", "--mirror", "--delete", "--prune") or a.startswith(
                "--force-with-lease"
            ):
                return True
        elif a.startswith("-") and set(a[1:]) & {"f", "d"}:
            return True
        elif a.startswith(("+", ":")):  # a forced refspec, or a deletion
            return True
    return False


def _subcommand(sub: str, rest: list[str]) -> Findings:
    opts, operands = getopt(rest, "", frozenset({"--output"}))
    flags = {name for name, _ in opts}
    verb = operands[0] if operands else ""
    found = Findings()
    if sub in _OUTPUT_DIFFS:
        found.write(*option_values(opts, "--output"))
    if sub == "format-patch":
        out = getopt(rest, "o", frozenset({"--output-directory"}))[0]
        found.write(*(os.path.join(d, "_") for d in option_values(out, "-o", "--output-directory")))
    elif sub == "reset" and "--hard" in flags:
        found.add(DESTRUCTIVE)
    elif sub == "clean" and flags & {"-f", "--force"} and not flags & {"-n", "--dry-run"}:
        found.add(DESTRUCTIVE)
    elif sub == "branch":
        forced = flags & {"-f", "--force"}
        deletes = flags & {"-d", "--delete"}
        if flags & {"-D", "-M", "-C"} or (forced and (deletes or operands)):
            found.add(DESTRUCTIVE)
        elif flags & {"-m", "--move"} and len(operands) > 1:
            found.add(DESTRUCTIVE)  # renames a branch that may not be this job's
    elif sub == "tag" and flags & {"-d", "--delete", "-f", "--force"}:
        found.add(DESTRUCTIVE)
    elif (sub, verb) in (("stash", "drop"), ("stash", "clear"), ("reflog", "expire")) or (
        sub in ("update-ref", "filter-branch", "replace") or (sub, verb) == ("reflog", "delete")
    ):
        found.add(DESTRUCTIVE)
    elif sub in ("credential", "credential-store", "credential-cache"):
        found.add(PRIVILEGED)  # it hands out, stores or forgets the owner's credentials
    elif sub == "svn" and verb in ("dcommit", "commit-diff", "branch", "tag", "set-tree"):
        found.add(PUSH)
    elif (sub, verb) in (("p4", "submit"), ("lfs", "push")) or sub == "cvsexportcommit":
        found.add(PUSH)
    elif sub == "receive-pack":
        found.repos += operands[:1]
    else:
        found.merge(_writers(sub, rest, opts, operands))
    return found


def _writers(
    sub: str, rest: list[str], opts: list[tuple[str, str | None]], operands: list[str]
) -> Findings:
    found = Findings()
    verb = operands[0] if operands else ""
    if sub == "clone":
        clone_opts, clone_operands = getopt(
            rest,
            "obuc",
            frozenset(
                "--origin --branch --upload-pack --template --reference --reference-if-able"
                " --separate-git-dir --depth --shallow-since --shallow-exclude --config"
                " --server-option --jobs --filter --bundle-uri --ref-format --revision".split()
            ),
        )
        if clone_operands:
            source = clone_operands[0].rstrip("/")
            default = os.path.basename(source).removesuffix(".git") or "_"
            found.write(*(clone_operands[1:2] or [default]))
        found.write(*option_values(clone_opts, "--separate-git-dir"))
        found.scripts += option_values(clone_opts, "-u", "--upload-pack")
    elif sub == "init":
        found.write(*operands[:1], *option_values(opts, "--separate-git-dir"))
    elif sub == "worktree":
        wt_opts, wt_operands = getopt(rest, "bB", frozenset({"--reason"}))
        if verb == "add" and len(wt_operands) > 1:
            found.write(wt_operands[1])
        elif verb in ("remove", "move"):
            found.removes += [(path, True) for path in wt_operands[1:2]]
            found.write(*wt_operands[2:3])
    elif sub == "archive":
        found.write(*option_values(getopt(rest, "o", frozenset({"--output"}))[0], "-o", "--output"))
    elif sub == "bundle" and verb == "create" and operands[1:2] != ["-"]:
        found.write(*operands[1:2])
    elif sub == "checkout-index":
        found.write(*(p + "_" for p in option_values(opts, "--prefix")))
    elif sub == "config":
        found.merge(_config(rest))
    elif sub == "remote" and verb in ("add", "rename", "remove", "rm", "set-url", "set-branches"):
        found.add(OUTSIDE)  # the clone's remotes are shared with every job and the owner
    elif sub == "submodule" and "foreach" in rest:
        script = [a for a in rest[rest.index("foreach") + 1 :] if not a.startswith("-")]
        found.scripts.append(" ".join(script))
    elif sub == "bisect" and verb == "run":
        found.commands.append(rest[rest.index("run") + 1 :])
    elif sub in ("rebase", "difftool", "grep"):
        found.scripts += _exec_values(sub, rest)
    return found


def _exec_values(sub: str, rest: list[str]) -> list[str]:
    """The commands `rebase --exec`, `difftool --extcmd` and `grep --open-files-in-pager` run."""
    short, long = {"rebase": ("x", "--exec"), "difftool": ("x", "--extcmd")}.get(
        sub, ("O", "--open-files-in-pager")
    )
    scripts = []
    for k, a in enumerate(rest):
        if a in ("-" + short, long) and sub != "grep" and k + 1 < len(rest):
            scripts.append(rest[k + 1])
        elif a.startswith(long + "="):
            scripts.append(a.partition("=")[2])
        elif a.startswith("-" + short) and len(a) > 2:
            scripts.append(a[2:])
    return scripts


def _config(rest: list[str]) -> Findings:
    """`git config` writes: to the owner's files, or keys that change what git later runs."""
    opts, operands = getopt(rest, "f", frozenset({"--file", "--blob", "--type", "--default"}))
    flags = {name for name, _ in opts}
    verb = operands[0] if operands else ""
    if verb in ("get", "list"):
        return Findings()
    if verb in ("set", "unset", "rename-section", "remove-section", "edit", "replace-all"):
        writes, key = True, operands[1] if len(operands) > 1 else ""
    else:
        reads = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list"}
        reads |= {"--get-color", "--get-colorbool"}
        writers = {"--unset", "--unset-all", "--add", "--replace-all", "--rename-section"}
        writers |= {"--remove-section", "-e", "--edit"}
        writes = bool(flags & writers) or (not flags & reads and len(operands) > 1)
        key = verb
    found = Findings()
    if not writes:
        return found
    if flags & {"--global", "--system"}:
        return found.add(OUTSIDE)
    files = option_values(opts, "-f", "--file")
    found.write(*files)
    if not files and (_COMMAND_KEY.fullmatch(key.lower()) or _INCLUDES.fullmatch(key.lower())):
        found.add(OUTSIDE)  # the clone's config: it changes what every job's git runs
    if has_option(opts, "-e", "--edit") or verb == "edit":
        found.add(OUTSIDE)
    return found
