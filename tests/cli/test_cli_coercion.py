"""The CLI's own check of plain values agrees with typer's for every parameter of every command."""

from __future__ import annotations

from typing import Any

import pytest
import typer.main
from typer._click import Command, Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param
from typer.core import _TyperParameter

from surfaces.cli.app import app
from surfaces.cli.coercion import UNSURE, plain_first, plain_value

VALUES: list[Any] = [
    "5", "0", "1", "007", "x", "", "1.5", " 5", "5 ", "+5", "-3", "5_0", "٣", "1e3",
    "99999999999999999999", "plain", "claude", "PLAIN", "acme/api", "-", 3, 0, True, False,
]  # fmt: skip
"""Values as typer hands them to a check: argv strings, and defaults of any type."""


def parameters() -> list[tuple[str, Command, _TyperParameter]]:
    found = []

    def walk(command: Command, path: str) -> None:
        subcommands: dict[str, Command] = getattr(command, "commands", {})
        for name, sub in subcommands.items():
            walk(sub, f"{path} {name}")
        for param in command.params:
            if isinstance(param, _TyperParameter):
                found.append((f"{path} {param.name}", command, param))

    walk(typer.main.get_command(app), "codedesk")
    return found


def outcome(check: Any, value: Any, param: _TyperParameter, ctx: Context) -> tuple[str, Any]:
    try:
        made = check._coerce_value(value, param=param, ctx=ctx)
    except BadParameter as error:
        return "error", error.format_message()
    return type(made).__name__, made


@pytest.mark.parametrize(("where", "command", "param"), parameters(), ids=lambda x: str(x))
def test_plain_values_come_out_as_typer_makes_them(
    where: str, command: Command, param: _TyperParameter
) -> None:
    ctx = Context(command)
    descriptor = param.type_descriptor
    ours = plain_first()(
        parameter_info=descriptor.parameter_info,
        annotation=descriptor.annotation,
        descriptor=descriptor,
    )
    typers = build_runtime_param(descriptor)
    for value in VALUES:
        assert outcome(ours, value, param, ctx) == outcome(typers, value, param, ctx), (
            where,
            value,
        )


def test_the_plain_check_answers_for_plain_values_only() -> None:
    """Otherwise the agreement above would hold vacuously: everything left to typer."""
    by_name = {where: param for where, _, param in parameters()}
    number = by_name["codedesk show number"].type_descriptor
    assert plain_value(number, "12", None) == 12
    assert plain_value(number, "0", None) is UNSURE
    assert plain_value(number, "x", None) is UNSURE
    assert plain_value(by_name["codedesk task repo"].type_descriptor, "a/b", None) == "a/b"
    hold = by_name["codedesk hold output"].type_descriptor
    assert plain_value(hold, "claude", None).value == "claude"
    assert plain_value(hold, "Claude", None) is UNSURE
