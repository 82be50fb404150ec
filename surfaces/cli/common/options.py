"""A mistyped option is named, with the nearest real one, on every command of the CLI.

Typer says "No such option: --limt (Possible options: --limit)" only when click's own guess
finds one, and for `task`, whose text may start with '-' (it takes unknown options as text),
a misspelt `--agnet claude` became "Got unexpected extra argument(s) (--agnet claude)". Every
command and group of the app is made by `DeskTyper`, whose classes answer both the same way:
"No such option: --agnet (did you mean --agent?)", as a value's slip (`--agent claud`) is
answered with the values there are. The classes are typer's own with one method more; the
error is click's (typer vendors it in `typer._click`, pinned in pyproject.toml).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import typer
from typer._click.core import Command, Context
from typer._click.exceptions import NoSuchOption
from typer.core import TyperArgument, TyperCommand, TyperGroup
from typer.models import CommandFunctionType

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""Characters a usage error never prints as they are (as click escapes them)."""


def unknown_option(command: Command, ctx: Context, given: str) -> NoSuchOption:
    """The usage error for option `given`, naming the nearest of `command`'s options."""
    from desk.nearest import nearest

    name = given.partition("=")[0]
    near = nearest(name, _long_options(command, ctx)) if name.startswith("--") else None
    hint = f" (did you mean {near}?)" if near else ""
    return NoSuchOption(name, message=f"No such option: {_escaped(name)}{hint}", ctx=ctx)


def _escaped(text: str) -> str:
    return CONTROL.sub(lambda match: f"\\x{ord(match[0]):02x}", text)


def _long_options(command: Command, ctx: Context) -> list[str]:
    return [
        spelling
        for param in command.get_params(ctx)
        for spelling in [*param.opts, *param.secondary_opts]
        if spelling.startswith("--")
    ]


def _an_option(command: Command, ctx: Context, token: str) -> bool:
    """Whether `token` is written as an option (`--x`, `-x`) that `command` does not have."""
    name = token.partition("=")[0]
    written = name.startswith("--") and len(name) > 2 or re.fullmatch(r"-[A-Za-z]", name)
    known = {s for param in command.get_params(ctx) for s in (*param.opts, *param.secondary_opts)}
    return bool(written) and name not in known


def _parse(parse: Callable[[Context, list[str]], list[str]], ctx: Context, args: list[str]) -> Any:
    try:
        return parse(ctx, args)
    except NoSuchOption as error:
        raise unknown_option(ctx.command, ctx, error.option_name) from None


class NamedOptionsCommand(TyperCommand):
    """A command that names a mistyped option, even one a command takes as text (`task`)."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        allowed = ctx.allow_extra_args
        ctx.allow_extra_args = True  # the extra arguments are judged below
        try:
            rest: list[str] = _parse(super().parse_args, ctx, args)
        finally:
            ctx.allow_extra_args = allowed
        if rest and not allowed and not ctx.resilient_parsing:
            # With unknown options taken as arguments, a slip shows as one too many of them:
            # name the first argument written as an option.
            arguments = [
                value
                for param in self.get_params(ctx)
                if isinstance(param, TyperArgument)
                and isinstance(value := ctx.params.get(param.name or ""), str)
            ]
            for token in [*arguments, *rest]:
                if _an_option(self, ctx, token):
                    raise unknown_option(self, ctx, token)
            ctx.fail(f"Got unexpected extra argument(s) ({' '.join(map(_escaped, rest))})")
        return rest


class NamedOptionsGroup(TyperGroup):
    """A group (`codedesk`, `codedesk repo`) that names a mistyped option of its own."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        rest: list[str] = _parse(super().parse_args, ctx, args)
        return rest


class DeskTyper(typer.Typer):
    """A Typer app whose commands and groups name a mistyped option with the nearest one."""

    def __init__(self, **options: Any) -> None:
        super().__init__(cls=NamedOptionsGroup, **options)

    def command(
        self, name: str | None = None, **options: Any
    ) -> Callable[[CommandFunctionType], CommandFunctionType]:
        return super().command(name, cls=NamedOptionsCommand, **options)


JOB_NUMBER = typer.Argument(..., metavar="N", min=1, help="The job's number.")
"""The job-number argument every command about one job takes."""
