"""`codedesk --help` prints the app's top-level help without loading typer or the app, and
prints exactly what the app would at any terminal width.

Each case runs the real console script and, beside it, the app itself (`invoke`, which never
takes the shortcut) in the same environment, and compares what each printed and its exit code.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from surfaces.cli import help_page
from tests.helpers.cli_helpers import CODEDESK, cli_env, profiled, shown

THROUGH_THE_APP = "import sys; from surfaces.cli.main import invoke; sys.exit(invoke(sys.argv[1:]))"
"""The same command line answered by the typer app, as it was before the shortcut."""

NEVER = ("typer", "surfaces.cli.app", "surfaces.cli.commands", "rich", "pydantic", "temporalio")
"""What the shortcut never loads: the command modules, typer (and click with it) and worse."""


def both(args: list[str], home: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], ...]:
    """`codedesk ARGS` (with the import profiler on) and the app's answer to the same ARGS."""
    values = cli_env(CODEDESK_HOME=str(home))
    values.pop("COLUMNS", None)
    values.update(env)
    script = subprocess.run(
        [CODEDESK, *args],
        env={**values, "PYTHONPROFILEIMPORTTIME": "1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    app = subprocess.run(
        [sys.executable, "-c", THROUGH_THE_APP, *args],
        env=values,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return script, app


def without_profile(stderr: str) -> str:
    return "".join(
        line for line in stderr.splitlines(keepends=True) if not line.startswith("import time:")
    )


@pytest.mark.parametrize(
    ("args", "code", "columns"),
    [
        (["--help"], 0, None),
        (["-h"], 0, None),
        ([], 2, None),
        (["--help"], 0, "80"),
        (["--help"], 0, "200"),
    ],
    ids=["help", "h", "no-command", "80-columns", "200-columns"],
)
def test_help_is_the_apps_without_loading_it(
    args: list[str], code: int, columns: str | None, tmp_path: Path
) -> None:
    script, app = both(args, tmp_path, **({"COLUMNS": columns} if columns else {}))
    assert (script.returncode, app.returncode) == (code, code), (shown(script), shown(app))
    assert script.stdout == app.stdout, (script.stdout, app.stdout)
    assert without_profile(script.stderr) == app.stderr, (script.stderr, app.stderr)
    assert help_page.PAGE in (app.stdout if args else app.stderr), shown(app)
    modules = profiled(script.stderr)
    assert "surfaces.cli.help_page" in modules, "the import profiler saw no help page"
    loaded = sorted(name for name in modules if name.startswith(NEVER))
    assert not loaded, loaded


def test_a_narrow_terminal_gets_the_apps_own_wrapping(tmp_path: Path) -> None:
    """Below 80 columns typer wraps the help to the terminal: the app answers, not the page."""
    script, app = both(["--help"], tmp_path, COLUMNS="60")
    assert script.returncode == app.returncode == 0, (shown(script), shown(app))
    assert script.stdout == app.stdout, (script.stdout, app.stdout)
    assert script.stdout != help_page.PAGE
    assert max(len(line) for line in script.stdout.splitlines()) <= 58, script.stdout
    assert "typer" in profiled(script.stderr)
