"""Who may use the bot's commands: configured Discord user ids and, optionally, role ids."""

from __future__ import annotations

from dataclasses import dataclass

import discord

from desk.config.settings import DeskSettings
from desk.holds.approvals import Principal

REFUSAL = "You may not use codedesk here: only its configured owners can. Nothing was run."


@dataclass(frozen=True)
class Owners:
    """The bot's owners. Approvals have their own list (the request's); this gates commands."""

    user_ids: frozenset[int]
    role_ids: frozenset[int] = frozenset()

    @classmethod
    def from_settings(cls, settings: DeskSettings) -> Owners:
        return cls(
            user_ids=frozenset(int(user) for user in settings.discord_owner_ids),
            role_ids=frozenset(int(role) for role in settings.discord_owner_role_ids),
        )

    def allows(self, user: discord.User | discord.Member) -> bool:
        """Whether `user` is an owner, by id or (in a server) by one of their roles."""
        if user.id in self.user_ids:
            return True
        if self.role_ids and isinstance(user, discord.Member):
            return any(role.id in self.role_ids for role in user.roles)
        return False


def principal(user: discord.User | discord.Member) -> Principal:
    """The principal a Discord user answers approvals as: `discord:<user id>`."""
    return Principal(id=f"discord:{user.id}", name=user.name)
