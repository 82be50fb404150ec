"""Host names: which machine holds a clone; the same character rules as a repository owner."""

from __future__ import annotations

import re
import socket

from desk.errors import HostError

_HOST = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9._-]+")
HOST_RULE = "use 1-100 letters, digits, '-', '_' and '.', not starting with '.' or '-'"


def check_host_name(name: str) -> str:
    """Return `name` if it is a usable host name, else raise HostError saying why."""
    if not _HOST.fullmatch(name) or name.startswith("-"):
        shown = repr(name[:60]) + ("..." if len(name) > 60 else "")
        raise HostError(f"Host name {shown} is not usable: {HOST_RULE}.")
    return name


def normalise_host_name(raw: str) -> str:
    """A machine's host name made usable: bad characters become '-', leading '.'/'-' go."""
    cleaned = _NOT_ALLOWED.sub("-", raw.split(".")[0] or raw).lstrip(".-")[:100]
    return cleaned or "host"


def machine_host_name() -> str:
    """This machine's host name, normalised to the host name rules."""
    return normalise_host_name(socket.gethostname())
