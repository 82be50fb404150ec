"""The shell rule: which hold classes a shell command an agent wants to run falls in.

This is a heuristic guard in front of the sandbox, not instead of it. It reads the command's
text the way a careful reviewer would: it finds pushes hidden behind wrappers, `bash -c`, `eval`,
here-documents, pipes into a shell, `&&`, `;`, subshells, substitutions, quoting and brace
expansion, and writes outside the workspace through redirections and the common file tools.
Where it cannot tell what a command will run or touch (a program or git subcommand the shell
makes from a variable or a glob, an alias from a config file, a shell fed from a program, a path
in a variable), it holds the call: for every class when the program itself is unknown, as
`outside_workspace` for a path. What a script, a Makefile or an interpreter does inside is not
seen. The standard library only: the agent's hook imports this on every tool call.

The lexer is `desk.shell.lex` (words: `desk.shell.words`); paths `desk.shell_rule.shell_paths`;
pipes `desk.shell_rule.pipes`; the tables `desk.shell_rule.command_tables`,
`desk.shell_rule.writers`, `desk.shell_rule.git_rule` and `desk.shell_rule.forge`; what they
report `desk.shell_rule.findings`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

# `lex` and `flat_tokens` are bound here, not called through their module, so that tests can
# make the lexer fail.
from desk.shell.lex import SimpleCommand, Token, flat_tokens, lex, simple_commands
from desk.shell_rule.command_tables import (
    SCRIPT_RUNNERS,
    WRAPPERS,
    owner_tool,
    python_module,
    script_runner,
    unwrap,
)
from desk.shell_rule.findings import Findings, HoldClass
from desk.shell_rule.forge import curl, forge_cli, gh, httpie, wget
from desk.shell_rule.git_rule import git
from desk.shell_rule.pipes import INSIDE_PATHS, UNKNOWN, lists_inside, output
from desk.shell_rule.shell_paths import UNRESOLVED, Place, Workspace, getopt, is_system, realpath
from desk.shell_rule.writers import file_tool, patched_files

__all__ = [
    "HoldClass",
    "argv_hold_classes",
    "argv_reaches_outside",
    "shell_hold_classes",
    "shell_reaches_outside",
]


def shell_hold_classes(
    command: str, workspace: str, cwd: str | None = None
) -> frozenset[HoldClass]:
    """Return the hold classes of a shell command run in `workspace`.

    Relative paths are relative to `cwd` (default: the workspace, an absolute path; a relative
    `cwd` is relative to the workspace). Never raises: text that does
    not parse (an unbalanced quote, a stray parenthesis) is analysed as far as it can be, and the
    rest is split on white space. Nesting deeper than any real command, or a workspace that is
    not an absolute path, holds for every class.
    """
    if not os.path.isabs(workspace):  # relative to what? Not a question to guess at
        return frozenset(HoldClass)
    try:
        scan = ShellScan(Workspace(realpath(workspace)))
        start = os.path.join(scan.ws.root, cwd or "")
        try:
            scan.text(command, start, 0)
        except TooDeepError:
            raise
        except Exception:  # A parser bug must not let a command through unread: read it plainly.
            scan.tokens(flat_tokens(command), start, _MAX_DEPTH + 1)
        return scan.classes()
    except Exception:
        return frozenset(HoldClass)


def shell_reaches_outside(command: str, workspace: str, cwd: str | None = None) -> bool:
    """Whether a shell command writes, removes or changes a path outside `workspace` (or one
    it cannot place, such as `~/x`), as far as the rule reads it: what an agent's sandbox,
    which binds only the workspace writable, cannot do on the host. Never raises: a command
    it cannot read is not said to reach out (its hold classes hold it)."""
    if not os.path.isabs(workspace):
        return False
    try:
        scan = ShellScan(Workspace(realpath(workspace)))
        scan.text(command, os.path.join(scan.ws.root, cwd or ""), 0)
    except Exception:
        return False
    return scan.reaches


def argv_reaches_outside(argv: Sequence[object], workspace: str, cwd: str | None = None) -> bool:
    """`shell_reaches_outside` for a command given as an argument list (Codex's `command`)."""
    if not argv or not all(isinstance(word, str) for word in argv) or not os.path.isabs(workspace):
        return False
    try:
        scan = ShellScan(Workspace(realpath(workspace)))
        scan.command([str(word) for word in argv], os.path.join(scan.ws.root, cwd or ""), 0, None)
    except Exception:
        return False
    return scan.reaches


def argv_hold_classes(
    argv: Sequence[object], workspace: str, cwd: str | None = None
) -> frozenset[HoldClass]:
    """Return the hold classes of a command given as an argument list (Codex's `command`).

    An argument list whose program is a shell with `-c` runs its script (`["bash", "-lc",
    "git push"]`); any other is the command itself, with no shell in between. An empty list, or
    one with anything but strings in it, is not a command this can read: held for every class.
    """
    if not argv or not all(isinstance(word, str) for word in argv) or not os.path.isabs(workspace):
        return frozenset(HoldClass)
    try:
        scan = ShellScan(Workspace(realpath(workspace)))
        start = os.path.join(scan.ws.root, cwd or "")
        scan.command([str(word) for word in argv], start, 0, None)
        return scan.classes()
    except Exception:
        return frozenset(HoldClass)


_MAX_DEPTH = 8  # nesting (bash -c, $( ), eval) lexed in full; deeper text is split on white space
_GIVE_UP_DEPTH = 64
_MAX_COMMANDS = 4000  # commands read for one call, guesses included; past it, hold for everything
_MAX_DIRS = 4  # directories a command may run in (a `cd` that may fail); past it, unknown
_ALIAS = re.compile(r"([^=\s/$`]+)=")
_STDIN = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
_WRITE_REDIRS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[[^]]*\])?\+?=")
_RESERVED = frozenset(
    "if then else elif fi do done while until for case esac select ! { } [[".split()
)
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "source", "."})
_PLAIN = frozenset(
    """echo printf cat ls grep egrep fgrep rg ag ack head tail wc uniq cut tr tree stat file
    which type whereis whatis apropos man info help tldr diff cmp comm jq yq awk gawk true false
    test [ basename dirname realpath readlink date sleep pwd id whoami uname hostname printenv
    du df free ps pgrep nproc seq yes column fold fmt nl paste join md5sum sha1sum sha256sum
    base64 xxd od hexdump strings tac rev less more exit return shift wait jobs read unset
    hash complete local declare typeset readonly export""".split()
)
_HANDLED = """git gh curl wget rm rmdir unlink shred cp mv ln install touch mkdir truncate tee dd
    sed perl ruby sort rsync scp tar unzip zip chmod chown chgrp find eval su codedesk temporal
    tctl crontab python python3 systemctl hub glab tea"""
_KNOWN = frozenset(_HANDLED.split()) | WRAPPERS.keys() | _SHELLS | SCRIPT_RUNNERS
"""Programs an unknown program may be wrapping: its arguments from one of these on are read."""


class TooDeepError(Exception):
    """Nesting deeper than any honest command: hold it for everything."""


class ShellScan:
    """One reading of one call: what it was found to do, and what it could not resolve."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.found: set[HoldClass] = set()
        self.reaches = False  # it writes, removes or changes a path outside the workspace
        self.unresolved = False
        self.errexit = False
        self.commands_read = 0
        self.exported: dict[str, str] = {}
        self.streams: dict[str, str] = {}  # process substitution -> what it outputs
        self.aliases: dict[str, str] = {}
        self.output = UNKNOWN  # what the last command wrote to a pipe

    def classes(self) -> frozenset[HoldClass]:
        return frozenset(HoldClass) if self.unresolved else frozenset(self.found)

    def text(self, text: str, cwd: str | None, depth: int) -> None:
        if depth > _GIVE_UP_DEPTH:
            raise TooDeepError
        errexit = self.errexit  # `bash -c 'set -e'` does not set it for the caller
        self.tokens(lex(text) if depth <= _MAX_DEPTH else flat_tokens(text), cwd, depth)
        self.errexit = errexit

    def tokens(self, toks: list[Token], cwd: str | None, depth: int) -> None:
        """Read each command in the directories it may run in; `cd` that may fail keeps both."""
        here: frozenset[str | None] = frozenset([cwd])
        fallback: frozenset[str | None] = frozenset()
        saved: list[tuple[frozenset[str | None], frozenset[str | None], bool]] = []
        piped: str | None = None
        end = ";"
        for cmd in simple_commands(toks):
            after = frozenset(self.simple(cmd, c, depth, piped) for c in here)
            failed = here if after == here or not self.errexit else frozenset()
            if end == "||" and cmd.argv[:1] in (["exit"], ["return"]):
                after = failed = frozenset()  # `cd x || exit`: nothing runs where cd failed
            piped = self.output if cmd.end in ("|", "|&") else None
            end = cmd.end
            if end == "&&":
                here, fallback = after, fallback | failed
            elif end == "||":
                here, fallback = failed, fallback | after
            elif end == "(":  # a subshell: its `cd` and `set -e` stay in it
                saved.append((here, fallback, self.errexit))
                fallback = frozenset()
            elif end == ")" and saved:
                here, fallback, self.errexit = saved.pop()
            elif end not in ("|", "|&", "&"):
                here, fallback = after | failed | fallback, frozenset()
            if not here:
                here = frozenset([cwd])
            if len(here) > _MAX_DIRS:
                here = frozenset([None])

    def simple(
        self, cmd: SimpleCommand, cwd: str | None, depth: int, piped: str | None
    ) -> str | None:
        """Analyse one simple command; return the directory after it (`cd` changes it)."""
        stdin = piped
        for tok in [*cmd.words, *(t for _, t in cmd.redirs)]:
            for sub in tok.subs:
                self.text(sub, cwd, depth + 1)
            if tok.process:
                tok.value = f"\0stream{len(self.streams)}"
                self.streams[tok.value] = self._output_of(tok.subs[0])
        for op, tok in cmd.redirs:
            if op in _WRITE_REDIRS or (op == ">&" and not re.fullmatch(r"\d*-?", tok.value)):
                self.write(tok.value, cwd)
            elif op == "<<<":
                stdin = tok.value
            elif op in ("<<", "<<-"):
                stdin = tok.heredoc
            elif op == "<":
                stdin = self.streams.get(tok.value, "")  # a file: a script as `bash FILE` reads
            elif op == "<&" and tok.value != "-":
                stdin = UNKNOWN  # another descriptor: whatever was put there
        argv = cmd.argv
        self.output = INSIDE_PATHS if lists_inside(self.ws, argv, cwd) else output(argv, stdin)
        return self.command(argv, cwd, depth, stdin)

    def _output_of(self, text: str) -> str:
        """What a substituted command writes: known for `echo` and `printf`, else unknown."""
        commands = list(simple_commands(lex(text)))
        if len(commands) == 1:
            return output(commands[0].argv, None)
        return UNKNOWN

    def command(
        self,
        argv: list[str],
        cwd: str | None,
        depth: int,
        stdin: str | None,
        env: dict[str, str] | None = None,
    ) -> str | None:
        self.commands_read += 1
        if self.commands_read > _MAX_COMMANDS or depth > _GIVE_UP_DEPTH:
            raise TooDeepError
        env = dict(env or {})
        while argv and (argv[0] in _RESERVED or _ASSIGN.match(argv[0])):
            if m := _ASSIGN.match(argv[0]):
                env[m.group(1)] = argv[0][m.end() :]
            argv = argv[1:]
        if not argv:
            self.exported.update(env)  # `X=1` alone sets it for the rest of the command
            return cwd
        program, args = argv[0], argv[1:]
        if program in self.aliases:  # an alias the same command defined; not within itself
            value = self.aliases.pop(program)
            try:
                self.text(" ".join([value, *args]), cwd, depth + 1)
            finally:
                self.aliases[program] = value
            return cwd
        name = os.path.basename(program)
        if program not in ("[", "[[") and (
            UNRESOLVED.search(program) or re.search(r"[*?[{]", program)
        ):
            self.unresolved = True  # the shell makes the program's name: it may be anything
            return cwd
        if name in WRAPPERS:
            item = "xargs-item" if stdin == INSIDE_PATHS else "`$xargs`"
            self.apply(unwrap(name, args, item), cwd, depth, stdin, env)
            return cwd
        if name in ("cd", "pushd"):
            searched = "CDPATH" in env or "CDPATH" in self.exported
            return None if searched else self.cd(args, cwd)
        if name == "popd":
            return None
        if name == "set":
            options = args[: args.index("--")] if "--" in args else args
            self.errexit |= "errexit" in options or any(
                re.fullmatch(r"-[a-zA-Z]*e[a-zA-Z]*", a) for a in options
            )
        elif name == "alias":
            self.aliases |= {m[1]: a[m.end() :] for a in args if (m := _ALIAS.match(a))}
        elif name in ("export", "declare", "typeset", "local", "readonly"):
            self.exported.update(
                {m.group(1): a[m.end() :] for a in args if (m := _ASSIGN.match(a))}
            )
        elif name in ("git", "hub") or name.startswith("git-"):
            git_args = args if name in ("git", "hub") else [name[4:], *args]  # `git-push ARGS`
            self.apply(git(git_args, {**self.exported, **env}), cwd, depth, stdin)
        elif name in _SHELLS:
            self.shell(name, args, cwd, depth, stdin)
        elif name == "eval":
            self.text(" ".join(args), cwd, depth + 1)
        elif name == "su":
            self.found.add(HoldClass.PRIVILEGED)
            opts, _ = getopt(args, "cslg", frozenset({"--command", "--shell", "--login"}))
            for script in (v for o, v in opts if o in ("-c", "--command") and v):
                self.text(script, cwd, depth + 1)
        elif name in ("python", "python3") or re.fullmatch(r"python3\.\d+", name):
            if (cli := python_module(args)) is not None:
                self.command([cli[0], *cli[1]], cwd, depth + 1, stdin)
        elif name in ("apply_patch", "applypatch"):  # Codex's patch tool, run as a command
            self.apply(patched_files(args[0] if args else stdin), cwd, depth, stdin)
        elif name in SCRIPT_RUNNERS:
            self.apply(script_runner(name, args), cwd, depth, stdin)
        elif (found := file_tool(name, args) or owner_tool(name, args)) is not None:
            self.apply(found, cwd, depth, stdin)
        elif name in ("curl", "wget", "http", "https", "xh"):
            web = curl if name == "curl" else wget if name == "wget" else httpie
            self.apply(web(args), cwd, depth, stdin)
        elif name in ("gh", "glab", "tea"):
            self.apply(gh(args) if name == "gh" else forge_cli(args), cwd, depth, stdin)
        elif name not in _PLAIN:
            # A program this does not know may run its arguments (an unknown wrapper).
            guesses = Findings()
            guesses.guesses += [
                args[k:] for k, a in enumerate(args) if os.path.basename(a) in _KNOWN
            ]
            self.apply(guesses, cwd, depth, stdin)
        return cwd

    def apply(
        self,
        found: Findings,
        cwd: str | None,
        depth: int,
        stdin: str | None,
        env: dict[str, str] | None = None,
    ) -> None:
        """Weigh what a command table found: place its paths, read what it runs."""
        self.found |= found.classes
        # A table's own `outside_workspace` (a global install, the clone's config) reaches out.
        self.reaches |= HoldClass.OUTSIDE_WORKSPACE in found.classes
        self.unresolved |= found.unresolved
        for path, follow in found.writes:
            self.write(path, cwd, follow=follow)
        for path, follow in found.removes:
            place = self.ws.place(path, cwd, follow=follow)
            if place != Place.INSIDE:
                self.found.add(HoldClass.DESTRUCTIVE)
            self.reaches |= place == Place.OUTSIDE
        for link, target in found.links:  # after its own writes: the link is made by them
            self.ws.made_link(link, target, cwd)
        for path in found.modes:
            if self.ws.place(path, cwd) == Place.OUTSIDE:
                system = is_system(path, cwd)
                self.found.add(HoldClass.PRIVILEGED if system else HoldClass.OUTSIDE_WORKSPACE)
                self.reaches = True
        for repo in found.repos:
            if self.ws.place(repo, cwd) == Place.OUTSIDE:
                self.found.add(HoldClass.OUTSIDE_WORKSPACE)
                self.reaches = True
        for script in found.scripts:
            self.text(script, cwd, depth + 1)
        for argv in found.commands:
            self.command(argv, cwd, depth + 1, stdin, env)
        for argv in found.guesses:
            guess = ShellScan(self.ws)
            guess.commands_read = self.commands_read
            guess.command(argv, cwd, depth + 1, stdin, env)
            self.found |= guess.found
            self.reaches |= guess.reaches
            self.commands_read = guess.commands_read

    def cd(self, args: list[str], cwd: str | None) -> str | None:
        """The directory after `cd`; None where it cannot be known (home, `-`, a variable)."""
        operands = [a for a in args if not a.startswith("-") or a == "-"]
        target = operands[0] if operands else "~"
        if target == "-" or UNRESOLVED.search(target):
            return None
        if cwd is None and not os.path.isabs(target):
            return None
        return os.path.normpath(os.path.join(cwd or "/", target))

    def shell(
        self, name: str, args: list[str], cwd: str | None, depth: int, stdin: str | None
    ) -> None:
        """`bash -c SCRIPT`, or a shell reading a script from a pipe, a here-document or `<( )`."""
        i, has_c, has_s, script = 0, False, False, None
        while i < len(args) and name not in ("source", "."):
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
            has_s |= a[:1] == "-" and a[1:2] != "-" and "s" in a  # `-s`: the script is stdin
            i += 1
        operands = args[i:]
        if script is None and has_c and operands:
            # Read plainly, the quotes are gone, so the script is all the words that are left.
            script = operands[0] if depth <= _MAX_DEPTH else " ".join(operands)
        elif script is None and operands and operands[0] not in _STDIN and not has_s:
            script = self.streams.get(operands[0])  # a file is not read: `<( )` is
        elif script is None:
            script = stdin
        if script in (UNKNOWN, INSIDE_PATHS):
            self.unresolved = True  # a shell fed by a program: what it runs cannot be known
        elif script is not None:
            self.text(script, cwd, depth + 1)

    def write(self, path: str, cwd: str | None, *, follow: bool = True) -> None:
        if self.ws.writes_outside(path, cwd, follow=follow):
            self.found.add(HoldClass.OUTSIDE_WORKSPACE)
            self.reaches = True
