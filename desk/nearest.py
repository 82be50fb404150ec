"""The name a person most likely meant: the nearest of the right names to a mistyped one.

One measure for every slip codedesk answers with a suggestion (a setting's name, a command's
option, a repository on the shelf): difflib's ratio, above its default cutoff.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def nearest(name: str, names: Iterable[str]) -> str | None:
    """The one of `names` closest to `name`, if any is close; None otherwise."""
    matches = difflib.get_close_matches(name, list(names), n=1)
    return matches[0] if matches else None
