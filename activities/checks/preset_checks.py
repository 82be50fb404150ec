"""What `codedesk doctor` says about each agent preset: its program, installed version, advice."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace

from desk.agents.presets import AGENT_PRESETS, Preset

VERSION = re.compile(r"\d+(?:\.\d+)+")
VERSION_TIMEOUT = 30.0


@dataclass(frozen=True)
class PresetCheck:
    """One preset on this host: where its program is, its version, and what is wrong if any."""

    name: str
    program: str
    path: str | None
    version: str | None
    proven_version: str
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


def preset_checks(search_path: str | None = None) -> list[PresetCheck]:
    """Check every preset's program on `search_path` (default: this process's PATH)."""
    return [check_preset(preset, search_path) for preset in AGENT_PRESETS.values()]


def check_preset(preset: Preset, search_path: str | None = None) -> PresetCheck:
    """Find `preset`'s program and ask it for its version (`--version`).

    A built-in preset runs on this host's Python: it is there wherever codedesk is.
    """
    if preset.built_in:
        return PresetCheck(preset.name, preset.program, sys.executable, None, "")
    path = shutil.which(preset.program, path=search_path)
    found = PresetCheck(preset.name, preset.program, path, None, preset.proven_version)
    if path is None:
        return _with(found, f"{preset.program} is not on PATH: install it ({preset.package}).")
    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return _with(found, f"`{preset.program} --version` did not answer: {error}.")
    version = VERSION.search(done.stdout + done.stderr)
    if done.returncode != 0 or version is None:
        return _with(
            found, f"`{preset.program} --version` says no version (exit {done.returncode})."
        )
    found = replace(found, version=version.group())
    if not preset.proven_version:
        return _with(
            found,
            f"the {preset.name} preset is untested: {preset.notes or 'no version was proven'}.",
        )
    if _parts(version.group()) < _parts(preset.proven_version):
        return _with(
            found,
            f"{preset.program} {version.group()} is older than {preset.proven_version}, the "
            f"version the preset was proven with: upgrade it ({preset.package}).",
        )
    return found


def _with(check: PresetCheck, problem: str) -> PresetCheck:
    return replace(check, problem=problem)


def _parts(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))
