"""Discord's limit on a file a bot attaches, in one place: the bot cuts to it, the stand-in
enforces it."""

from __future__ import annotations

ATTACHMENT_BYTES = 10 * 1024 * 1024
"""The most a file attached to a message may hold (Discord's limit for a server without
boosts, 10 MiB)."""
