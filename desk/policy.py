"""The shell rule: which hold classes a shell command an agent wants to run falls in.

This is a heuristic guard, not a sandbox. It reads the command's text the way a careful reviewer
would: it finds pushes hidden behind wrappers (`env`, `command`, `sudo`, `xargs`), `bash -c`,
`eval`, `&&`, `;`, pipes, subshells and command substitutions, and writes outside the workspace
through redirections and the common file tools. It cannot know what a script, a program, an
alias, a variable or a Makefile does when it runs, so a determined command can get past it. Give
agents credentials and file permissions under which such a command is harmless; this rule only
decides when a person is asked first. A path it cannot resolve (a variable, `~`, a substitution)
counts as outside the workspace.

The lexer is `desk.shell_lex`; where paths lead, and what the file tools write, `desk.policy_paths`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from enum import StrEnum

from desk.policy_paths import (
    Place,
    Workspace,
    is_system,
    realpath,
    short_flags,
    split_options,
    written_paths,
)
from desk.shell_lex import SimpleCommand, Token, simple_commands, split_words

# Bound here, not called through the module, so that tests can make the lexer fail.
from desk.shell_lex import flat_tokens as _flat_tokens
from desk.shell_lex import lex as _lex


class HoldClass(StrEnum):
    """Why a shell command waits for a person before it runs."""

    PUSH = "push"
    DESTRUCTIVE = "destructive"
    PRIVILEGED = "privileged"
    OUTSIDE_WORKSPACE = "outside_workspace"


def shell_hold_classes(command: str, workspace: str) -> frozenset[HoldClass]:
    """Return the hold classes of a shell command run in `workspace`.

    Relative paths are relative to the workspace (an absolute path). Never raises: text that does
    not parse (an unbalanced quote, a stray parenthesis) is analysed as far as it can be, and the
    rest is split on white space. Nesting deeper than any real command holds for every class.
    """
    try:
        scan = _Scan(Workspace(realpath(workspace)))
        try:
            scan.text(command, scan.ws.root, 0)
        except _TooDeepError:
            raise
        except Exception:  # A parser bug must not let a command through unread: read it plainly.
            scan.tokens(_flat_tokens(command), scan.ws.root, _MAX_DEPTH + 1)
        return frozenset(scan.found)
    except Exception:
        return frozenset(HoldClass)


_MAX_DEPTH = 8  # nesting (bash -c, $( ), eval) lexed in full; deeper text is split on white space
_GIVE_UP_DEPTH = 64
_WRITE_REDIRS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^]]*\])?\+?=")
_RESERVED = frozenset("if then else elif fi do done while until for case esac select ! { }".split())
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"})
_ESCALATE = frozenset({"sudo", "doas", "pkexec"})
_WRAPPERS: dict[str, frozenset[str]] = {  # command -> its options that take a separate value
    "command": frozenset(),
    "builtin": frozenset(),
    "busybox": frozenset(),
    "exec": frozenset({"-a"}),
    "nohup": frozenset(),
    "setsid": frozenset(),
    "time": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "watch": frozenset({"-n", "--interval"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "xargs": frozenset({"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--arg-file"}),
    "doas": frozenset({"-u", "-C"}),
    "pkexec": frozenset({"--user"}),
    "sudo": frozenset(
        "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --chdir --role --type"
        " --other-user --close-from --command-timeout".split()
    ),
}
_PUSH_VALUES = frozenset({"-o", "--push-option", "--repo", "--receive-pack", "--exec"})
_GIT_VALUES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"})


class _TooDeepError(Exception):
    """Nesting deeper than any honest command: hold it for everything."""


def _skip_options(args: list[str], values: frozenset[str]) -> list[str]:
    """The arguments after a wrapper's leading options: the wrapped command."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            return args[i + 1 :]
        i += 2 if args[i] in values else 1
    return args[i:]


def _unwrap(name: str, args: list[str]) -> list[str] | None:
    """The command a wrapper runs, or None when it runs none (`command -v git`)."""
    if name == "env":
        i = 0
        while i < len(args) and args[i].startswith("-"):
            a = args[i]
            if a in ("-S", "--split-string") or a.startswith(("-S", "--split-string=")):
                inline = a.partition("=")[2] if a.startswith("--") else a[2:]
                script = inline or (args[i + 1] if i + 1 < len(args) else "")
                return [*split_words(script), *args[i + (1 if inline else 2) :]]
            if a == "--":
                return args[i + 1 :]
            i += 2 if a in _WRAPPERS["env"] else 1
        return args[i:]
    rest = _skip_options(args, _WRAPPERS[name])
    used = args[: len(args) - len(rest)]
    if name == "command" and ("-v" in used or "-V" in used):
        return None
    if name == "timeout":
        return rest[1:]
    if name == "xargs" and rest:
        repl = "{}" if "-i" in used else None
        for k, a in enumerate(used):
            if a.startswith("-I"):
                repl = a[2:] or (used[k + 1] if k + 1 < len(used) else None)
        # What xargs adds comes from stdin, so it is a path this rule cannot resolve.
        return [w.replace(repl, "$xargs") for w in rest] if repl else [*rest, "$xargs"]
    return rest


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


@dataclass
class _Scan:
    ws: Workspace
    found: set[HoldClass] = field(default_factory=set)

    def text(self, text: str, cwd: str | None, depth: int) -> None:
        if depth > _GIVE_UP_DEPTH:
            raise _TooDeepError
        self.tokens(_lex(text) if depth <= _MAX_DEPTH else _flat_tokens(text), cwd, depth)

    def tokens(self, toks: list[Token], cwd: str | None, depth: int) -> None:
        stack = [cwd]  # the directory, per subshell level: `cd` in ( ) does not leak out
        piped: list[str] | None = None
        for cmd in simple_commands(toks):
            stack[-1] = self.simple(cmd, stack[-1], depth, piped)
            piped = cmd.argv if cmd.end in ("|", "|&") else None
            if cmd.end == "(":
                stack.append(stack[-1])
            elif cmd.end == ")" and len(stack) > 1:
                stack.pop()

    def simple(
        self, cmd: SimpleCommand, cwd: str | None, depth: int, piped: list[str] | None
    ) -> str | None:
        """Analyse one simple command; return the directory after it (`cd` changes it)."""
        stdin = None
        for op, tok in cmd.redirs:
            if op in _WRITE_REDIRS or (op == ">&" and not re.fullmatch(r"\d*-?", tok.value)):
                self.write(tok.value, cwd)
            elif op == "<<<":
                stdin = tok.value
            elif op in ("<<", "<<-"):
                stdin = tok.heredoc
        for tok in [*cmd.words, *(t for _, t in cmd.redirs)]:
            for sub in tok.subs:
                self.text(sub, cwd, depth + 1)
        if stdin is None and piped and os.path.basename(piped[0]) in ("echo", "printf"):
            # printf's format and each argument on a line of its own: `printf '%s\n' 'git push'`
            stdin = ("\n" if piped[0].endswith("printf") else " ").join(piped[1:])
        return self.command(cmd.argv, cwd, depth, stdin)

    def command(
        self, argv: list[str], cwd: str | None, depth: int, stdin: str | None
    ) -> str | None:
        while argv and (argv[0] in _RESERVED or _ASSIGN.match(argv[0])):
            argv = argv[1:]
        if not argv:
            return cwd
        name, args = os.path.basename(argv[0]), argv[1:]
        if name in _WRAPPERS:
            if name in _ESCALATE:
                self.found.add(HoldClass.PRIVILEGED)
            rest = _unwrap(name, args)
            return cwd if rest is None else self.command(rest, cwd, depth, stdin)
        if name in ("cd", "pushd"):
            return self.cd(args, cwd)
        if name == "popd":
            return None
        if name == "git" or name.startswith("git-"):
            self.git(args if name == "git" else [name[4:], *args], cwd, depth)
        elif name == "gh":
            self.gh(args)
        elif name in _SHELLS:
            self.shell(args, cwd, depth, stdin)
        elif name == "eval":
            self.text(" ".join(args), cwd, depth + 1)
        elif name == "su":
            self.found.add(HoldClass.PRIVILEGED)
            for k, a in enumerate(args):
                if a in ("-c", "--command") or a.startswith("--command="):
                    plain = depth > _MAX_DEPTH  # quotes are gone: the script is all that is left
                    script = a.partition("=")[2] or " ".join(args[k + 1 : None if plain else k + 2])
                    self.text(script, cwd, depth + 1)
        elif name in ("rm", "rmdir"):
            self.rm(name, args, cwd)
        elif name in ("chmod", "chown", "chgrp"):
            self.chmod(name, args, cwd)
        elif name == "find":
            self.find(args, cwd, depth)
        else:
            for path, follow in written_paths(name, args):
                self.write(path, cwd, follow=follow)
        return cwd

    def cd(self, args: list[str], cwd: str | None) -> str | None:
        """The directory after `cd`; None where it cannot be known (home, `-`, a variable)."""
        operands = [a for a in args if not a.startswith("-") or a == "-"]
        target = operands[0] if operands else "~"
        if target == "-" or "$" in target or "`" in target or target.startswith("~"):
            return None
        if cwd is None and not os.path.isabs(target):
            return None
        return os.path.normpath(os.path.join(cwd or "/", target))

    def git(self, args: list[str], cwd: str | None, depth: int) -> None:
        aliases: dict[str, str] = {}
        i = 0
        while i < len(args) and args[i].startswith("-"):
            if args[i] == "-c" and i + 1 < len(args):
                key, _, value = args[i + 1].partition("=")
                if key.lower().startswith("alias."):
                    aliases[key[6:]] = value
            i += 2 if args[i] in _GIT_VALUES else 1
        if i >= len(args):
            return
        sub, rest = args[i], args[i + 1 :]
        if sub in aliases:  # `git -c alias.p=push p`
            if aliases[sub].startswith("!"):
                self.text(" ".join([aliases[sub][1:], *rest]), cwd, depth + 1)
                return
            expanded = split_words(aliases[sub]) or [""]
            sub, rest = expanded[0], [*expanded[1:], *rest]
        opts, _ = split_options(rest, frozenset({"-e", "--exclude"}))
        short = short_flags(opts)
        if sub == "push":
            self.found.add(HoldClass.PUSH)
            if _push_destroys(rest):
                self.found.add(HoldClass.DESTRUCTIVE)
        elif sub in ("reset", "clean", "branch"):
            force = "--force" in opts or "f" in short
            if (
                (sub == "reset" and "--hard" in opts)
                or (sub == "clean" and force and not ("--dry-run" in opts or "n" in short))
                or (
                    sub == "branch"
                    and ("D" in short or force and ("--delete" in opts or "d" in short))
                )
            ):
                self.found.add(HoldClass.DESTRUCTIVE)
        elif sub == "submodule" and "foreach" in rest:
            script = [a for a in rest[rest.index("foreach") + 1 :] if not a.startswith("-")]
            self.text(" ".join(script), cwd, depth + 1)
        elif sub == "rebase":
            for k, a in enumerate(rest):
                if a in ("-x", "--exec") and k + 1 < len(rest):
                    self.text(rest[k + 1], cwd, depth + 1)
                elif a.startswith(("--exec=", "-x")) and a not in ("-x", "--exec="):
                    self.text(a.partition("=")[2] if a.startswith("--") else a[2:], cwd, depth + 1)

    def gh(self, args: list[str]) -> None:
        words: list[str] = []
        skip = False
        for a in args:
            if skip:
                skip = False
            elif a in ("-R", "--repo", "--hostname"):
                skip = True
            elif not a.startswith("-"):
                words.append(a)
        if words[:2] in (["pr", "merge"], ["release", "create"]) or (
            words[:1] == ["api"] and _gh_api_writes(args)
        ):
            self.found.add(HoldClass.PUSH)

    def shell(self, args: list[str], cwd: str | None, depth: int, stdin: str | None) -> None:
        """`bash -c SCRIPT`, or a shell reading a script from a pipe or a here-document."""
        i, has_c, script = 0, False, None
        while i < len(args):
            a = args[i]
            if a == "--":
                i += 1
                break
            if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                i += 1
            elif a.startswith("--command="):
                script = a.partition("=")[2]
            elif a == "--command" or (a[:1] == "-" and a[1:2] != "-" and "c" in a):
                has_c = True
            elif not (a.startswith(("-", "+")) and len(a) > 1):
                break
            i += 1
        operands = args[i:]
        if script is None and has_c and operands:
            # Read plainly, the quotes are gone, so the script is all the words that are left.
            script = operands[0] if depth <= _MAX_DEPTH else " ".join(operands)
        if script is None and not operands:
            script = stdin
        if script is not None:
            self.text(script, cwd, depth + 1)

    def rm(self, name: str, args: list[str], cwd: str | None) -> None:
        opts, targets = split_options(args, frozenset())
        forced = name == "rm" and any(
            o in ("--recursive", "--force") or (o[1] != "-" and set(o[1:]) & set("rRf"))
            for o in opts
        )
        for target in targets:
            # rm removes a symlink, not what it points to, unless a trailing slash follows it.
            place = self.ws.place(target, cwd, follow=target.endswith("/"))
            if forced and place != Place.INSIDE:
                self.found.add(HoldClass.DESTRUCTIVE)
            elif place == Place.OUTSIDE:
                self.found.add(HoldClass.OUTSIDE_WORKSPACE)

    def chmod(self, name: str, args: list[str], cwd: str | None) -> None:
        if name == "chmod":  # "-x" and "-rw" are modes, not options
            args = [a[1:] if re.fullmatch(r"-[rwxXst]+", a) else a for a in args]
        opts, operands = split_options(args, frozenset())
        targets = operands if any(o.startswith("--reference") for o in opts) else operands[1:]
        for target in targets:
            if self.ws.place(target, cwd) == Place.OUTSIDE:
                system = is_system(target, cwd)
                self.found.add(HoldClass.PRIVILEGED if system else HoldClass.OUTSIDE_WORKSPACE)

    def find(self, args: list[str], cwd: str | None, depth: int) -> None:
        i = 0
        while i < len(args) and args[i][:2] in ("-H", "-L", "-P", "-D", "-O"):
            i += 2 if args[i] == "-D" else 1
        starts: list[str] = []
        while i < len(args) and not args[i].startswith(("-", "(", "!", ")")):
            starts.append(args[i])
            i += 1
        starts, expr = starts or ["."], args[i:]
        if "-delete" in expr and any(self.ws.place(s, cwd) == Place.OUTSIDE for s in starts):
            self.found.add(HoldClass.DESTRUCTIVE)
        k = 0
        while k < len(expr):
            if expr[k] in ("-exec", "-execdir", "-ok", "-okdir"):
                end = k + 1
                while end < len(expr) and expr[end] not in (";", "+"):
                    end += 1
                for start in starts:  # {} is something found under the start
                    found = start.rstrip("/") + "/{}"
                    argv = [w.replace("{}", found) for w in expr[k + 1 : end]]
                    self.command(argv, cwd, depth + 1, None)
                k = end
            k += 1

    def write(self, path: str, cwd: str | None, *, follow: bool = True) -> None:
        if self.ws.writes_outside(path, cwd, follow=follow):
            self.found.add(HoldClass.OUTSIDE_WORKSPACE)
