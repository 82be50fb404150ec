"""One page of a listing: the newest entries, and how many more there are beyond them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """The first `len(items)` of `total` entries (newest first); `total` is counted separately."""

    items: list[T]
    total: int

    @property
    def more(self) -> int:
        """Entries left off this page (0 when it shows them all)."""
        return max(0, self.total - len(self.items))
