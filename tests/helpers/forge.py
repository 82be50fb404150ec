"""A fake `gh` on PATH for the tests and the history recorder (programs/fake_gh.py)."""

from __future__ import annotations

import sys
from pathlib import Path

FAKE_GH = Path(__file__).parent / "programs" / "fake_gh.py"


def fake_gh(folder: Path) -> tuple[Path, Path]:
    """A folder holding an executable `gh` that runs the fake, and the fake's state folder."""
    state, bin_dir = folder / "gh-state", folder / "gh-bin"
    state.mkdir(parents=True)
    bin_dir.mkdir()
    wrapper = bin_dir / "gh"
    wrapper.write_text(
        f"#!/bin/sh\nFAKE_GH_STATE='{state}' exec '{sys.executable}' '{FAKE_GH}' \"$@\"\n"
    )
    wrapper.chmod(0o755)
    return bin_dir, state
