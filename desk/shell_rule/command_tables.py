"""The shell rule's command tables: wrappers and what they run, owner tools, privileged tools."""

from __future__ import annotations

import os
import re

from desk.shell.lex import split_words
from desk.shell_rule.findings import Findings, HoldClass
from desk.shell_rule.shell_paths import UNRESOLVED, getopt, has_option, option_values

PUSH, DESTRUCTIVE = HoldClass.PUSH, HoldClass.DESTRUCTIVE
OUTSIDE, PRIVILEGED = HoldClass.OUTSIDE_WORKSPACE, HoldClass.PRIVILEGED

# wrapper -> (short options that take a value, long ones that do, operands before the command)
WRAPPERS: dict[str, tuple[str, frozenset[str], int]] = {
    "command": ("", frozenset(), 0),
    "builtin": ("", frozenset(), 0),
    "busybox": ("", frozenset(), 0),
    "exec": ("a", frozenset(), 0),
    "nohup": ("", frozenset(), 0),
    "setsid": ("", frozenset(), 0),
    "time": ("fo", frozenset({"--format", "--output"}), 0),
    "nice": ("n", frozenset({"--adjustment"}), 0),
    "ionice": ("cnpPu", frozenset({"--class", "--classdata", "--pid", "--pgid", "--uid"}), 0),
    "stdbuf": ("ioe", frozenset({"--input", "--output", "--error"}), 0),
    "timeout": ("sk", frozenset({"--signal", "--kill-after"}), 1),
    "taskset": ("", frozenset(), 1),
    "chrt": ("TPD", frozenset({"--sched-runtime", "--sched-period", "--sched-deadline"}), 1),
    "flock": ("Ewc", frozenset({"--conflict-exit-code", "--wait", "--timeout", "--command"}), 1),
    "env": ("uCS", frozenset({"--unset", "--chdir", "--split-string"}), 0),
    "xargs": (
        "IaEdLnPs",
        frozenset(
            "--arg-file --delimiter --max-args --max-procs --max-chars --process-slot-var".split()
        ),
        0,
    ),
    "sudo": (
        "ughpCDrtUT",
        frozenset(
            "--user --group --host --prompt --chdir --role --type --other-user --close-from"
            " --command-timeout".split()
        ),
        0,
    ),
    "doas": ("uC", frozenset(), 0),
    "pkexec": ("", frozenset({"--user"}), 0),
    "runuser": ("ugGs", frozenset({"--user", "--group", "--supp-group", "--shell"}), 0),
    "chroot": ("", frozenset({"--userspec", "--groups"}), 1),
    "unshare": ("SGRw", frozenset({"--setuid", "--setgid", "--root", "--wd"}), 0),
    "nsenter": ("tSGrw", frozenset({"--target", "--setuid", "--setgid", "--root", "--wd"}), 0),
    "setpriv": ("", frozenset({"--reuid", "--regid", "--groups", "--inh-caps"}), 0),
    "prlimit": ("p", frozenset({"--pid", "--output"}), 0),
    "strace": ("eoOpPsSuIXb", frozenset({"--output", "--trace", "--signal", "--user"}), 0),
    "ltrace": ("eoOpuasnlx", frozenset({"--output"}), 0),
    "faketime": ("f", frozenset(), 1),
    "unbuffer": ("", frozenset(), 0),
    "chronic": ("", frozenset(), 0),
    "caffeinate": ("tw", frozenset(), 0),
    "coproc": ("", frozenset(), 0),
}
_SHELL_NAMES = ("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "eval", "xargs")
ESCALATE = frozenset({"sudo", "doas", "pkexec", "runuser", "chroot", "nsenter", "setpriv"})
SCRIPT_RUNNERS = frozenset({"watch", "trap", "sg", "script", "parallel"})
_PRIVILEGED = frozenset(
    """su sudoedit visudo vipw vigr mount umount reboot shutdown poweroff halt init telinit
    modprobe insmod rmmod useradd userdel usermod groupadd groupdel passwd chpasswd setcap
    iptables ip6tables nft sysctl""".split()
)
_PACKAGES = frozenset("apt apt-get dnf yum pacman apk zypper snap".split())
_OWNER_READS = frozenset(
    {"", "jobs", "show", "watch", "logs", "approvals", "hold", "help", "--help", "-h"}
)


def unwrap(name: str, args: list[str], item: str = "`$xargs`") -> Findings:
    """The command a wrapper runs; where its options are unknown, guesses at each reading.

    `item` stands for what `xargs` reads: by default a word this cannot resolve.
    """
    short, long, before = WRAPPERS[name]
    found = Findings(*([PRIVILEGED] if name in ESCALATE else []))
    opts, rest = _leading_options(args, short, long)
    names = {o for o, _ in opts}
    if name == "command" and names & {"-v", "-V"}:
        return found
    if name in ("taskset", "chrt") and names & {"-p", "--pid", "-m", "--max"}:
        return found
    if name == "env":
        for script in option_values(opts, "-S", "--split-string"):
            rest = [*split_words(script), *rest]
    if name == "flock" and (scripts := option_values(opts, "-c", "--command")):
        found.scripts += scripts
        return found
    if name == "flock" and rest[1:2] in (["-c"], ["--command"]):
        found.scripts += rest[2:3]
        return found
    rest = rest[before:]
    if name == "coproc" and rest[1:2] == ["{"]:
        rest = rest[2:]
    if name == "xargs" and rest:
        rest = _xargs_command(opts, rest, item)
    if rest:
        found.commands.append(rest)
    # An option this table does not know may take a value: read each later word as a command.
    for k in range(1, len(args)):
        if args[k - 1].startswith("-") and args[k:] != rest:
            found.guesses.append(args[k:])
    return found


def _xargs_command(opts: list[tuple[str, str | None]], rest: list[str], item: str) -> list[str]:
    """The command `xargs` runs, with `item` for each word it reads (`-I`, `-i` or at the end)."""
    names = {o for o, _ in opts}
    repl = next(iter(option_values(opts, "-I")), "{}" if names & {"-i", "--replace"} else None)
    if rest[0] == repl or os.path.basename(rest[0]) in (*WRAPPERS, *_SHELL_NAMES):
        item = "`$xargs`"  # a listed path run as a program or a script: anything may run
    if repl is None:
        return [*rest, item]
    # Put inside a longer word, it may be part of a script: never resolved there.
    return [item if w == repl else w.replace(repl, "`$xargs`") for w in rest]


def _leading_options(
    args: list[str], short: str, long: frozenset[str]
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """A wrapper's options, up to its first operand, and the words from there on."""
    end = 0
    while end < len(args) and args[end].startswith("-") and args[end] != "-":
        if args[end] == "--":
            opts = getopt(args[:end], short, long)[0]
            return opts, args[end + 1 :]
        a = args[end]
        takes = (a in long) or (
            not a.startswith("--") and any(c in short for c in a[1:]) and a[-1] in short
        )
        end += 2 if takes else 1
    opts = getopt(args[:end], short, long)[0]
    return opts, args[end:]


def script_runner(name: str, args: list[str]) -> Findings:
    """Commands that run a string as shell text: `watch`, `trap`, `sg`, `script -c`, `parallel`."""
    found = Findings()
    if name == "watch":
        rest = _leading_options(args, "nq", frozenset({"--interval", "--equexit"}))[1]
        found.scripts.append(" ".join(rest))
    elif name == "trap":
        operands = getopt(args)[1]
        found.scripts += operands[:1]
    elif name == "sg":
        operands = getopt(args, "c")[1]
        found.scripts += option_values(getopt(args, "c")[0], "-c") or operands[1:2]
    elif name == "script":
        opts, operands = getopt(args, "cEIOBTm", frozenset({"--command", "--log-out"}))
        found.scripts += option_values(opts, "-c", "--command")
        found.write(*operands[:1], *option_values(opts, "-O", "-B", "--log-out"))
    elif name == "parallel":
        command = args[: args.index(":::")] if ":::" in args else args
        found.scripts.append(" ".join(a for a in command if not a.startswith("-")))
    return found


def owner_tool(name: str, args: list[str]) -> Findings | None:
    """`codedesk` commands that answer, ship, start or stop; `temporal`; privileged tools."""
    if name in ("codedesk", "temporal", "tctl"):
        words = [a for a in args if not a.startswith("-") or a in ("--help", "-h")]
        sub = words[0] if words else ""
        reads = _OWNER_READS if name == "codedesk" else {"", "help", "--help", "-h", "--version"}
        showing = words[:2] == ["repo", "list"] or words == ["mode"]  # a switch names a mode
        if sub in reads or (name == "codedesk" and showing):
            return Findings()
        return Findings(PRIVILEGED)
    if name in _PRIVILEGED:
        return Findings(PRIVILEGED)
    if name in _PACKAGES or name == "dpkg":
        verb = next((a for a in args if not a.startswith("-")), "")
        installs = has_option(getopt(args)[0], "-i", "--install", "-r", "--remove", "-P", "--purge")
        reads = {"", "list", "search", "show", "policy", "info", "showpkg", "depends"}
        return Findings(PRIVILEGED) if installs or (name != "dpkg" and verb not in reads) else None
    if name == "systemctl":
        verb = next((a for a in args if not a.startswith("-")), "")
        reads = {"status", "show", "cat", "help", "is-active", "is-enabled", "is-failed"}
        return None if verb in reads or verb.startswith("list-") else Findings(PRIVILEGED)
    if name == "crontab":
        flags = {o for o, _ in getopt(args, "u")[0]}
        if "-l" in flags:
            return Findings()
        return Findings(OUTSIDE, *([DESTRUCTIVE] if "-r" in flags else []))
    return _installer(name, args)


def _installer(name: str, args: list[str]) -> Findings | None:
    """Package installs that write outside the workspace: global, user or other prefixes."""
    opts, operands = getopt(args, "tp", frozenset({"--target", "--prefix", "--root", "--user"}))
    verb = operands[0] if operands else ""
    if (
        name in ("npm", "pnpm", "yarn")
        and has_option(opts, "-g", "--global")
        or (name == "yarn" and verb == "global")
    ):
        return Findings(OUTSIDE)
    if name in ("pip", "pip3") and verb == "install":
        if has_option(opts, "--user"):
            return Findings(OUTSIDE)
        return Findings().write(*option_values(opts, "-t", "--target", "--prefix", "--root"))
    if (name, verb) in (("cargo", "install"), ("go", "install"), ("gem", "install")):
        return Findings(OUTSIDE)
    return None


def python_module(args: list[str]) -> tuple[str, list[str]] | None:
    """The codedesk CLI run by a Python interpreter (`-m surfaces.cli`, a `codedesk` script)."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        a = args[i]
        if a in ("-m", "-c") or (a.startswith("-m") and len(a) > 2):
            module = a[2:] or (args[i + 1] if i + 1 < len(args) else "")
            rest = args[i + (1 if a[2:] else 2) :]
            if a == "-c":  # the CLI called from code
                return ("codedesk", [module]) if re.search("surfaces|codedesk", module) else None
            if module.startswith("surfaces.cli") or UNRESOLVED.search(module):
                return "codedesk", rest
            return None
        i += 2 if a in ("-W", "-X", "-Q") else 1
    if i < len(args) and os.path.basename(args[i]) == "codedesk":
        return "codedesk", args[i + 1 :]
    return None
