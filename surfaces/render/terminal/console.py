"""The CLI's consoles, stdout and stderr: rich made on first use, so a command that prints
nothing (`--help`, a usage error, a piped listing) never imports rich."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


class LazyConsole:
    """A rich Console made on first use, so a command that prints nothing never imports rich."""

    def __init__(self, *, stderr: bool = False) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    @property
    def console(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self._stderr, highlight=False, soft_wrap=True)
        return self._console

    @property
    def is_terminal(self) -> bool:
        return self.console.is_terminal

    def print(self, *objects: Any, **options: Any) -> None:
        self.console.print(*objects, **options)


out = LazyConsole()
err = LazyConsole(stderr=True)
