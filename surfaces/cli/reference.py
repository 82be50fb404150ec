"""The reference pages' generated parts, read off the CLI and the settings so they cannot drift,
and the top-level help that `codedesk --help` prints without loading the app.

`python -m surfaces.cli.reference [PAGE ...]` rewrites, in each page, every generated part
between its markers (`<!-- commands:start -->` … `<!-- commands:end -->`); with no page named,
the two pages of docs/reference/ and surfaces/cli/help_page.py. The tests fail while a page or
the help differs from what this module generates, or while a part is in no page.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperOption

from desk.config.settings import settings_table
from surfaces.cli.app import app

PAGES = (Path("docs/reference/commands.md"), Path("docs/reference/settings.md"))
"""The pages the parts live in, from the repository's top."""

HELP_PAGE = Path("surfaces/cli/help_page.py")
"""The module that holds the top-level help, from the repository's top."""

HELP_WIDTH = 78
"""The width click wraps help to at a terminal of 80 columns or more (its widest)."""


def command_rows() -> list[str]:
    """One markdown row per option of the app itself (`--version`), then one per command:
    usage with arguments and options, and its help."""
    group = typer.main.get_command(app)
    options = [param for param in group.params if isinstance(param, TyperOption)]
    own = [f"| `codedesk {option.opts[0]}` | {option.help} |" for option in options]
    rows = [f"| `{_usage(path, command)}` | {_summary(command)} |" for path, command in _walk()]
    return [*own, *rows]


def commands_table() -> str:
    return "\n".join(["| command | what it does |", "| --- | --- |", *command_rows()])


def settings_text() -> str:
    """A table per section of the settings, under the section's heading."""
    header = ["| name | environment variable | default | meaning |", "| --- | --- | --- | --- |"]
    tables = []
    for heading, rows in settings_table():
        lines = ["| `{}` | `{}` | `{}` | {} |".format(*row) for row in rows]
        tables.append("\n".join([f"## {heading}", "", *header, *lines]))
    return "\n\n".join(tables)


def command_details() -> str:
    """A section per command: its whole help, then each argument and option with its help."""
    sections = []
    for path, command in _walk():
        lines = [f"### `codedesk {' '.join(path)}`", ""]
        for paragraph in (command.help or "").strip().split("\n\n"):
            lines += [" ".join(paragraph.split()), ""]
        params = [p for p in command.params if _kind(p) != "option" or p.opts[0] != "--help"]
        if params:
            lines += ["| argument or option | what it is |", "| --- | --- |"]
            for param in params:
                lines.append(f"| `{_param_name(param)}` | {_param_help(param)} |")
            lines.append("")
        sections.append("\n".join(lines).rstrip())
    return "\n\n".join(sections)


PARTS: dict[str, Callable[[], str]] = {
    "commands": commands_table,
    "command-details": command_details,
    "settings": settings_text,
}
"""Each generated part by its marker name."""


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def parts_in(page: str) -> list[str]:
    """The names of the parts whose markers `page` has."""
    return [name for name in PARTS if all(marker in page for marker in markers(name))]


def with_tables(page: str) -> str:
    """The page with each generated part it has replaced between its markers."""
    for name in parts_in(page):
        start, end = markers(name)
        before, _, rest = page.partition(start)
        _, _, after = rest.partition(end)
        page = f"{before}{start}\n{PARTS[name]()}\n{end}{after}"
    return page


def _walk(group: Any = None, prefix: tuple[str, ...] = ()) -> Iterator[tuple[list[str], Any]]:
    """Each command (not group) of the app, with its path of names."""
    group = typer.main.get_command(app) if group is None else group
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from _walk(command, (*prefix, name))
        else:
            yield [*prefix, name], command


def _usage(path: list[str], command: Any) -> str:
    params = command.params
    arguments = [_param_name(p) for p in params if _kind(p) == "argument"]
    options = [f"[{p.opts[0]}]" for p in params if _kind(p) == "option" and p.opts[0] != "--help"]
    return " ".join(["codedesk", *path, *arguments, *options])


def _summary(command: Any) -> str:
    return str((command.help or "").strip().splitlines()[0])


def _param_name(param: Any) -> str:
    if _kind(param) == "argument":
        return str(param.metavar or param.name.upper())
    return ", ".join([*param.opts, *param.secondary_opts])


def _param_help(param: Any) -> str:
    text = " ".join((getattr(param, "help", None) or "").split()).replace("|", "\\|")
    if param.envvar:
        text += f" Environment: `{param.envvar}`."
    return text.strip()


def _kind(param: Any) -> str:
    return str(param.param_type_name)


def help_page_source() -> str:
    """The text of surfaces/cli/help_page.py: the app's top-level help as typer renders it at
    HELP_WIDTH, the way `codedesk --help` prints it."""
    group = typer.main.get_command(app)
    with group.make_context(
        "codedesk", [], resilient_parsing=True, terminal_width=HELP_WIDTH
    ) as context:
        page = context.get_help() + "\n"
    if '"""' in page:
        raise ValueError("the top-level help holds a triple quote: help_page.py cannot hold it")
    literal = page.replace("\\", "\\\\")
    return (
        '"""The top-level help of `codedesk`, as typer prints it at 80 columns or more.\n\n'
        "Generated from the app by `python -m surfaces.cli.reference`, never by hand:\n"
        "tests/project/test_readme.py fails while it differs from what the app prints.\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
        f"WIDTH = {HELP_WIDTH}\n"
        '"""The width the page is wrapped to."""\n\n'
        f'PAGE = """\\\n{literal}"""\n'
        '"""What `codedesk --help` prints."""\n'
    )


def main(arguments: list[str]) -> None:
    for page in [Path(argument) for argument in arguments] or list(PAGES):
        text = page.read_text()
        if not parts_in(text):
            wanted = ", ".join(markers(name)[0] for name in PARTS)
            raise SystemExit(f"{page} has no generated part: mark one with {wanted}")
        page.write_text(with_tables(text))
    if not arguments:
        HELP_PAGE.write_text(help_page_source())


if __name__ == "__main__":
    main(sys.argv[1:])
