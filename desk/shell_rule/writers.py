"""Which paths the common file tools write or remove: cp to unzip, one reader per tool."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from desk.shell_rule.findings import Findings, HoldClass
from desk.shell_rule.shell_paths import getopt, has_option, option_values

_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|[^/]*[^/\\]:(?!/?$)|[^/]*::)", re.IGNORECASE)
_COMPRESSORS = frozenset(
    "gzip gunzip bzip2 bunzip2 xz unxz lzma unlzma zstd unzstd lz4 lzip compress".split()
)
_TOUCH = ("dtr", frozenset({"--date", "--reference", "--time"}))
_RSYNC_VALUES = frozenset(
    "--rsh --rsync-path --filter --exclude --include --exclude-from --include-from --files-from"
    " --temp-dir --partial-dir --backup-dir --compare-dest --copy-dest --link-dest --log-file"
    " --password-file --chmod --chown --suffix --timeout --contimeout --port --sockopts"
    " --out-format --bwlimit --max-size --min-size --block-size --modify-window --info --debug"
    " --usermap --groupmap --write-batch --read-batch --only-write-batch --iconv --max-delete"
    " --skip-compress --outbuf --stop-after --stop-at --address --protocol --log-file-format"
    " --compress-choice --checksum-choice --remote-option --compress-level".split()
)
_TAR_VALUES = frozenset(
    "--file --directory --files-from --exclude-from --newer --after-date --blocking-factor"
    " --label --use-compress-program --to-command --info-script --new-volume-script"
    " --checkpoint-action --transform --xform --owner --group --mode --mtime --format"
    " --tape-length --record-size --index-file --listed-incremental --starting-file"
    " --volno-file --rsh-command --rmt-command --suffix --exclude --newer-mtime".split()
)
_TAR_OLD_VALUES = "fCbKNTVXLgFHI"
_PATCH_FILE = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$", re.M)
_FIND_NOT_TESTS = frozenset(
    "-delete -depth -d -xdev -mount -print -print0 -ignore_readdir_race -noleaf -maxdepth"
    " -mindepth -follow -daystart".split()
)


def remote(path: str) -> bool:
    """Whether an scp/rsync operand names another host (`host:path`, `rsync://...`)."""
    return bool(_REMOTE.match(path)) and not path.startswith(("./", "/"))


def _copy(name: str, args: list[str]) -> Findings:
    """cp, mv, install and ln write their destination; mv also removes its sources."""
    short = "tSmogC" if name == "install" else "tS"
    opts, operands = getopt(args, short, frozenset({"--target-directory", "--suffix", "--mode"}))
    targets = option_values(opts, "-t", "--target-directory")
    found = Findings()
    if name == "install" and has_option(opts, "-d", "--directory"):
        return found.write(*operands)
    sources = operands if targets else operands[:-1]
    dests = targets or (operands[-1:] if len(operands) > 1 else [])
    if name == "ln" and not dests and operands:
        dests = ["."]
    found.write(*dests)
    symbolic = has_option(opts, "-s", "--symbolic") and name in ("ln", "cp")
    if symbolic or has_option(opts, "--symbolic-link"):
        for dest in dests:
            for source in sources or operands:
                found.links.append((os.path.join(dest, os.path.basename(source)), source))
            if not targets and len(operands) == 2:
                found.links.append((dest, operands[0]))
    if name == "mv":  # moving a symlink moves the link, not what it points to
        found.write(*sources, follow=False)
    return found


def _operands(short: str, long: frozenset[str]) -> Callable[[str, list[str]], Findings]:
    def read(name: str, args: list[str]) -> Findings:
        return Findings().write(*getopt(args, short, long)[1])

    return read


def _rm(name: str, args: list[str]) -> Findings:
    opts, targets = getopt(args)
    found = Findings()
    forced = has_option(opts, "-r", "-R", "-f", "--recursive", "--force")
    for target in targets:
        # rm removes a symlink, not what it points to, unless a trailing slash follows it.
        follow = target.endswith("/")
        (found.removes if forced else found.writes).append((target, follow))
    return found


def _shred(name: str, args: list[str]) -> Findings:
    found = Findings()
    found.removes += [(path, True) for path in getopt(args, "ns", frozenset({"--size"}))[1]]
    return found


def _dd(name: str, args: list[str]) -> Findings:
    return Findings().write(*(a[3:] for a in args if a.startswith("of=")))


def _sed(name: str, args: list[str]) -> Findings:
    """The files `sed` edits in place (none without -i)."""
    in_place = has_script = False
    files: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            files += args[i + 1 + (not has_script) :]
            break
        if a.startswith("--"):
            in_place |= a.startswith("--in-place")
            has_script |= a.startswith(("--expression", "--file"))
            i += a in ("--expression", "--file", "--line-length")
        elif a.startswith("-") and a != "-":
            for k, ch in enumerate(a[1:], start=2):
                if ch == "i":  # whatever follows -i is its backup suffix
                    in_place = True
                    break
                if ch in "efl":
                    has_script |= ch != "l"
                    i += k == len(a)  # the value is the next argument
                    break
        elif has_script:
            files.append(a)
        else:
            has_script = True
        i += 1
    return Findings().write(*(files if in_place else []))


def _perl(name: str, args: list[str]) -> Findings:
    """`perl -i` and `ruby -i` edit the files after the script in place."""
    in_place = has_script = False
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] not in ("-", "--"):
        a = args[i]
        for k, ch in enumerate(a[1:], start=2):
            if ch == "i":  # the rest is the backup suffix: `-pie` is suffix "e", not a script
                in_place = True
                break
            if ch in "eE":
                has_script = True
                i += k == len(a)
                break
            if ch in "IMmxCdDFV":  # these take the rest of the word as their value
                break
        i += 1
    operands = args[i + (i < len(args) and args[i] == "--") :]
    files = operands if has_script else operands[1:]
    return Findings().write(*(files if in_place else []))


def _sort(name: str, args: list[str]) -> Findings:
    opts, _ = getopt(
        args,
        "kotST",
        frozenset(
            "--key --output --field-separator --temporary-directory --buffer-size --batch-size"
            " --compress-program --files0-from --parallel --random-source --sort".split()
        ),
    )
    found = Findings().write(*option_values(opts, "-o", "--output"))
    found.commands += [[p] for p in option_values(opts, "--compress-program")]
    return found


def _rsync_or_scp(name: str, args: list[str]) -> Findings:
    if name == "rsync":
        opts, operands = getopt(args, "eBfMT@", _RSYNC_VALUES)
    else:
        opts, operands = getopt(args, "cFiJlLoPSDX", frozenset())
    found = Findings()
    if len(operands) < 2:
        return found
    *sources, dest = operands
    if remote(dest):
        found.add(HoldClass.OUTSIDE_WORKSPACE)
    else:
        found.write(dest)
        if any(o.startswith("--delete") for o, _ in opts):
            found.removes.append((dest, True))
    if has_option(opts, "--remove-source-files"):
        found.write(*(s for s in sources if not remote(s)))
    found.write(*option_values(opts, "--log-file", "--write-batch", "--only-write-batch"))
    found.scripts += option_values(opts, "-e", "--rsh", "-S")
    return found


def _tar(name: str, args: list[str]) -> Findings:
    if args and not args[0].startswith("-"):  # old style: `tar xvf FILE`, values in order
        first: list[str] = []
        rest = args[1:]
        for letter in args[0]:
            first.append("-" + letter)
            if letter in _TAR_OLD_VALUES and rest:
                first.append(rest.pop(0))
        args = [*first, *rest]
    opts, _ = getopt(args, _TAR_OLD_VALUES, _TAR_VALUES)
    found = Findings()
    names = {o for o, _ in opts}
    if names & {"-x", "--extract", "--get"}:
        dirs = option_values(opts, "-C", "--directory") or ["."]
        found.write(*(os.path.join(d, "_") for d in dirs))
        if names & {"-P", "--absolute-names"}:
            found.write("/")
    if names & {"-c", "-r", "-u", "-A", "--create", "--append", "--update", "--catenate"}:
        found.write(*(f for f in option_values(opts, "-f", "--file") if f != "-"))
    found.write(*option_values(opts, "-g", "--listed-incremental", "--index-file", "--volno-file"))
    found.scripts += option_values(opts, "-I", "--use-compress-program", "--to-command")
    found.scripts += option_values(opts, "-F", "--info-script", "--new-volume-script")
    for action in option_values(opts, "--checkpoint-action"):
        if action.startswith("exec="):
            found.scripts.append(action[5:])
    return found


def _unzip(name: str, args: list[str]) -> Findings:
    flags = "".join(a[1:] for a in args if a.startswith("-") and a != "-d")
    if set(flags) & set("lptvzZ"):  # list, pipe, test: nothing written
        return Findings()
    dirs = [args[k + 1] for k, a in enumerate(args[:-1]) if a == "-d"]
    dirs += [a[2:] for a in args if a.startswith("-d") and len(a) > 2]
    found = Findings().write(*(os.path.join(d, "_") for d in dirs or ["."]))
    if ":" in flags:  # `-:` lets members with `../` write anywhere
        found.write("/")
    return found


def _zip(name: str, args: list[str]) -> Findings:
    opts, operands = getopt(args, "bnOPtx", frozenset({"--out", "--temp-path", "--password"}))
    return Findings().write(*operands[:1], *option_values(opts, "-O", "--out"))


def _compress(name: str, args: list[str]) -> Findings:
    opts, operands = getopt(args, "oSTL", frozenset({"--suffix", "--threads"}))
    if has_option(opts, "-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list"):
        return Findings()
    return Findings().write(*operands, *option_values(opts, "-o"))


def _awk(name: str, args: list[str]) -> Findings:
    """`gawk -i inplace` edits the files after its program."""
    opts, operands = getopt(args, "fvFiebEl", frozenset({"--file", "--include", "--source"}))
    if "inplace" not in option_values(opts, "-i", "--include"):
        return Findings()
    has_program = has_option(opts, "-f", "--file", "-e", "--source", "-E")
    return Findings().write(*(operands if has_program else operands[1:]))


def _editor(name: str, args: list[str]) -> Findings:
    """Editors write the files they open; a command given to run may run anything."""
    opts, operands = getopt(args, "cStTuiwWsr", frozenset({"--cmd", "--eval"}))
    found = Findings().write(*(a for a in operands if not a.startswith("+")))
    commands = [*option_values(opts, "-c", "--cmd", "--eval"), *(a for a in args if a[:1] == "+")]
    found.unresolved = any("!" in c or "system" in c or "shell" in c for c in commands)
    return found


def patched_files(patch: str | None) -> Findings:
    """The files a Codex patch (`*** Update File: PATH`) adds, changes, deletes or moves to."""
    if patch is None or "\0" in patch:  # no patch, or one a program makes: paths unknown
        return Findings().write("$patch")
    found = Findings()
    for m in _PATCH_FILE.finditer(patch):
        found.write(m.group(2).strip(), follow=m.group(1) != "Delete")
    return found


def _chmod(name: str, args: list[str]) -> Findings:
    if name == "chmod":  # "-x" and "-rw" are modes, not options
        args = [a[1:] if re.fullmatch(r"-[rwxXst]+", a) else a for a in args]
    opts, operands = getopt(args)
    found = Findings()
    found.modes += operands if any(o.startswith("--reference") for o, _ in opts) else operands[1:]
    return found


def _find(name: str, args: list[str]) -> Findings:
    i = 0
    while i < len(args) and args[i][:2] in ("-H", "-L", "-P", "-D", "-O"):
        i += 2 if args[i] == "-D" else 1
    starts: list[str] = []
    while i < len(args) and not args[i].startswith(("-", "(", "!", ")")):
        starts.append(args[i])
        i += 1
    starts, expr = starts or ["."], args[i:]
    found = Findings()
    if "-delete" in expr:  # it deletes what it finds under each start (all of it, unfiltered)
        filtered = any(a.startswith("-") and a not in _FIND_NOT_TESTS for a in expr)
        found.removes += [(s if not filtered else s.rstrip("/") + "/_", False) for s in starts]
    k = 0
    while k < len(expr):
        if expr[k] in ("-fprint", "-fprint0", "-fprintf", "-fls") and k + 1 < len(expr):
            found.write(expr[k + 1])
        if expr[k] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = k + 1
            while end < len(expr) and expr[end] not in (";", "+"):
                end += 1
            for start in starts:  # {} is something found under the start
                path = start.rstrip("/") + "/{}"
                found.commands.append([w.replace("{}", path) for w in expr[k + 1 : end]])
            k = end
        k += 1
    return found


_READERS: dict[str, Callable[[str, list[str]], Findings]] = (
    {
        "cp": _copy,
        "mv": _copy,
        "install": _copy,
        "ln": _copy,
        "touch": _operands(*_TOUCH),
        "mkdir": _operands("m", frozenset({"--mode", "--context"})),
        "truncate": _operands("sr", frozenset({"--size", "--reference"})),
        "tee": _operands("", frozenset()),
        "rmdir": _operands("", frozenset()),
        "unlink": _rm,
        "rm": _rm,
        "shred": _shred,
        "dd": _dd,
        "sed": _sed,
        "perl": _perl,
        "ruby": _perl,
        "sort": _sort,
        "rsync": _rsync_or_scp,
        "scp": _rsync_or_scp,
        "tar": _tar,
        "unzip": _unzip,
        "zip": _zip,
        "chmod": _chmod,
        "chown": _chmod,
        "chgrp": _chmod,
        "find": _find,
        "awk": _awk,
        "gawk": _awk,
    }
    | {name: _editor for name in ("ed", "ex", "vi", "vim", "nvim", "nano", "emacs")}
    | {name: _compress for name in _COMPRESSORS}
)


def file_tool(name: str, args: list[str]) -> Findings | None:
    """What a file tool writes and removes, or None when `name` is not one of them."""
    reader = _READERS.get(name)
    return None if reader is None else reader(name, args)
