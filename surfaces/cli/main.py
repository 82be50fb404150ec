"""The `codedesk` console script: the top-level help at once, every other command line through
the app, and an exit that the SDK cannot turn into a crash.

Importing typer and the app's command modules costs more than the rest of Python's start-up, so
`codedesk`, `codedesk --help` and `codedesk -h` print the app's help as typer renders it for a
terminal of 80 columns or more (`surfaces.cli.help_page`, generated from the app) without
importing either. At a narrower terminal, where typer wraps the help otherwise, and for every
other command line, the app answers. tests/cli/test_help_page.py checks that both print the same.
"""

from __future__ import annotations

import os
import sys

from surfaces.cli import help_page

HELP = (["--help"], ["-h"])
"""The command lines that ask for the top-level help (an empty one shows it too, as an error)."""


def invoke(args: list[str]) -> int:
    """Run one command line through the app and return its exit code instead of exiting."""
    from surfaces.cli.app import app
    from surfaces.render.terminal.console import err

    try:
        app(args=args, prog_name="codedesk")
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        err.print(str(done.code))
        return 1
    return 0


def help_at_once(args: list[str]) -> int | None:
    """Print the top-level help as the app would and return its exit code, or None to leave the
    command line to the app (another command, or a terminal narrower than the stored help)."""
    if args not in ([], *HELP) or _help_width() != help_page.WIDTH:
        return None
    # As click does: asked for, the help goes to stdout; shown for want of a command, to stderr.
    (sys.stdout if args else sys.stderr).write(help_page.PAGE)
    return 0 if args else 2


def _help_width() -> int:
    """The width click wraps help to: the terminal's columns (as `shutil.get_terminal_size` reads
    them, without importing shutil) less 2, within 50 and 78."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        stdout = sys.__stdout__
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout else 0
        except (ValueError, OSError):
            columns = 0
    return max(min(columns or 80, 80) - 2, 50)


def main() -> None:
    """Entry point: flush, then leave with os._exit so interpreter teardown cannot crash us.

    The Temporal SDK sometimes aborts at interpreter exit (temporalio/sdk-python#300), which
    would turn a success into exit code 134; nothing after the command needs teardown.
    """
    args = sys.argv[1:]
    code = help_at_once(args)
    if code is None:
        code = invoke(args)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
