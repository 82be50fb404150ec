"""Workflow modules compiled once per worker process, however many workflows the sandbox starts.

The workflow sandbox imports every workflow module afresh for each new workflow it runs (a job,
an outbox, an approval). Python normally reads those imports from bytecode on disk; where it
writes none (PYTHONDONTWRITEBYTECODE, an editable install), every new workflow compiled the
source of each module again: 30-40 ms of every job's first workflow task (issue 13). The
compiled code is kept here instead, keyed by file and modification time, so an edited module
is compiled again.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from collections.abc import Sequence
from types import CodeType, ModuleType
from typing import ClassVar

PACKAGE = "workflows"


class _KeptCodeLoader(importlib.machinery.SourceFileLoader):
    """Loads a workflow module's source once and hands out the same code afterwards."""

    kept: ClassVar[dict[tuple[str, int], CodeType]] = {}

    def get_code(self, fullname: str) -> CodeType:
        path = self.get_filename(fullname)
        key = (path, os.stat(path).st_mtime_ns)
        code = self.kept.get(key)
        if code is None:
            loaded = super().get_code(fullname)
            if loaded is None:  # only for a loader without source, which this one never is
                raise ImportError(f"No code for {fullname} at {path}.", name=fullname)
            code = self.kept[key] = loaded
        return code


class WorkflowModules:
    """A finder for the `workflows` package's modules that gives them the keeping loader."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != PACKAGE and not name.startswith(f"{PACKAGE}."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        loader = spec.loader if spec is not None else None
        if spec is not None and isinstance(loader, importlib.machinery.SourceFileLoader):
            spec.loader = _KeptCodeLoader(loader.name, loader.path)
        return spec


def keep_workflow_code() -> None:
    """From now on, compile each workflow module once in this process."""
    if not any(isinstance(finder, WorkflowModules) for finder in sys.meta_path):
        sys.meta_path.insert(0, WorkflowModules())
