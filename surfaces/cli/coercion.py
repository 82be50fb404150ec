"""Typer's checks of a command's values, without pydantic for the values that need none.

typer 0.29 checks every parameter's value through a pydantic TypeAdapter that it builds on first
use, even for a value that is missing; importing pydantic for that costs more than the rest of a
usage error or a listing. Here a missing value, a string, an integer written in plain digits
within its bounds and an exact choice of an enum pass without pydantic; every other value goes
to typer's own check, so each error a person sees is typer's, word for word.

Typer has no public seam for this (`parser=` or `click_type=` on each option would change
every declaration and put click's error texts where typer's were), so it is made in typer's
private modules. They are imported only when `install` runs, and only if they are there: with
another typer the CLI keeps typer's own checks, slower but never wrong, instead of failing at
its first import. pyproject.toml pins typer to the minor release this was proven with.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typer import core
    from typer._click import Context
    from typer._coercion import RuntimeParam, TypeDescriptor

DIGITS = re.compile(r"[0-9]{1,18}")
"""An integer typer would read the same way: ASCII digits only, no sign, space or underscore."""

UNSURE = object()
"""What `plain_value` answers for a value it leaves to typer's own check."""


def plain_value(descriptor: TypeDescriptor, value: Any, ctx: Context | None) -> Any:
    """The value typer would make of `value`, or UNSURE when only typer's check can say."""
    info, annotation = descriptor.parameter_info, descriptor.annotation
    if info.parser is not None or descriptor.file_annotation is not None:
        return UNSURE
    if annotation is str and isinstance(value, str):
        return value
    if annotation is bool and isinstance(value, bool):
        return value
    if annotation is int and not info.clamp:
        number = _integer(value)
        if number is None:
            return UNSURE
        low, high = info.min, info.max
        if (low is not None and number < low) or (high is not None and number > high):
            return UNSURE
        return number
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return _choice(annotation, value, info.case_sensitive, ctx)
    return UNSURE


def _integer(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and DIGITS.fullmatch(value):
        return int(value)
    return None


def _choice(annotation: type[Enum], value: Any, case_sensitive: bool, ctx: Context | None) -> Any:
    if isinstance(value, annotation):
        return value
    if not isinstance(value, str) or not case_sensitive:
        return UNSURE
    if ctx is not None and ctx.token_normalize_func is not None:
        return UNSURE
    for member in annotation:
        if str(member.value) == value:
            return member
    return UNSURE


@cache
def plain_first() -> Callable[..., RuntimeParam]:
    """The check to put before typer's (`PlainFirst`): built on first use, as a subclass of a
    class in typer's private modules; ImportError with a typer that has none."""
    from typer._coercion import RuntimeParam, build_runtime_param

    @dataclass(frozen=True)
    class PlainFirst(RuntimeParam):
        """A parameter's check: plain values here, the rest by typer's pydantic-based check."""

        descriptor: TypeDescriptor
        typers: list[RuntimeParam] = field(default_factory=list, compare=False)
        """Typer's own check, built the first time a value needs it (at most one)."""

        def _coerce_value(self, value: Any, param: core._TyperParameter, ctx: Context) -> Any:
            plain = plain_value(self.descriptor, value, ctx)
            if plain is not UNSURE:
                return plain
            if not self.typers:
                self.typers.append(build_runtime_param(self.descriptor))
            return self.typers[0]._coerce_value(value, param=param, ctx=ctx)

    return PlainFirst


def _runtime_param(self: core._TyperParameter) -> RuntimeParam:
    if self._runtime_param is None:
        descriptor = self.type_descriptor
        self._runtime_param = plain_first()(
            parameter_info=descriptor.parameter_info,
            annotation=descriptor.annotation,
            descriptor=descriptor,
        )
    return self._runtime_param


def install() -> bool:
    """Check plain values without pydantic in this process; False if typer has no such seam.

    Without the seam (another typer), typer's own checks stay: slower, never wrong;
    tests/cli/test_cli_imports.py fails then, so the loss is seen.
    """
    try:
        from typer import core

        plain_first()
    except ImportError:  # a typer without the private modules the seam is in
        return False
    seam = getattr(core, "_TyperParameter", None)
    if seam is None or not callable(getattr(seam, "get_runtime_param", None)):
        return False
    seam.get_runtime_param = _runtime_param
    return True
