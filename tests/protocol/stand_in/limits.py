"""Discord's limits on what a bot sends, as Discord enforces them: a refused body is 400 50035.

The numbers are Discord's documented ones (message content, embeds, components, thread names,
autocomplete choices, command definitions). A body over any of them is refused with the
error Discord gives ("Invalid Form Body"), naming the field, so a test sees the bot's send
fail exactly as it would against Discord.
"""

from __future__ import annotations

from typing import Any

from surfaces.render.discord.uploads import ATTACHMENT_BYTES
from tests.surfaces.fake_discord import DiscordError

CONTENT = 2000
EMBEDS = 10
EMBED_TOTAL = 6000
EMBED_FIELDS = 25
EMBED_TEXT = {"title": 256, "description": 4096}
FIELD_NAME, FIELD_VALUE = 256, 1024
FOOTER, AUTHOR = 2048, 256
ROWS, BUTTONS_PER_ROW = 5, 5
CUSTOM_ID, LABEL = 100, 80
THREAD_NAME = 100
CHOICES, CHOICE_NAME, CHOICE_VALUE = 25, 100, 100
COMMAND_NAME, COMMAND_DESCRIPTION, OPTIONS = 32, 100, 25
MODAL_TITLE, MODAL_ROWS, TEXT_INPUT, INPUT_LABEL = 45, 5, 4000, 45
TOO_LARGE = 40005

MESSAGE_FIELDS = ("content", "embeds", "components", "attachments", "sticker_ids", "poll")


def refuse(field: str, why: str) -> DiscordError:
    return DiscordError(400, 50035, f"Invalid Form Body: {field}: {why}")


def check_message(body: dict[str, Any], *, new: bool) -> None:
    """Refuse a message body (create, edit, interaction response) over Discord's limits."""
    content = body.get("content")
    if content is not None and len(str(content)) > CONTENT:
        raise refuse("content", f"Must be {CONTENT} or fewer in length.")
    if new and not any(body.get(key) for key in MESSAGE_FIELDS):
        raise DiscordError(400, 50006, "Cannot send an empty message")
    embeds = body.get("embeds") or []
    if len(embeds) > EMBEDS:
        raise refuse("embeds", f"Must be {EMBEDS} or fewer in length.")
    if sum(_embed_chars(embed) for embed in embeds) > EMBED_TOTAL:
        raise refuse("embeds", f"Embed size exceeds maximum size of {EMBED_TOTAL}")
    for index, embed in enumerate(embeds):
        _check_embed(index, embed)
    _check_components(body.get("components") or [])


def _embed_chars(embed: dict[str, Any]) -> int:
    fields = embed.get("fields") or []
    return (
        sum(len(embed.get(key) or "") for key in EMBED_TEXT)
        + len((embed.get("footer") or {}).get("text") or "")
        + len((embed.get("author") or {}).get("name") or "")
        + sum(len(f.get("name") or "") + len(f.get("value") or "") for f in fields)
    )


def _check_embed(index: int, embed: dict[str, Any]) -> None:
    for key, limit in EMBED_TEXT.items():
        if len(embed.get(key) or "") > limit:
            raise refuse(f"embeds.{index}.{key}", f"Must be {limit} or fewer in length.")
    if len((embed.get("footer") or {}).get("text") or "") > FOOTER:
        raise refuse(f"embeds.{index}.footer.text", f"Must be {FOOTER} or fewer in length.")
    if len((embed.get("author") or {}).get("name") or "") > AUTHOR:
        raise refuse(f"embeds.{index}.author.name", f"Must be {AUTHOR} or fewer in length.")
    fields = embed.get("fields") or []
    if len(fields) > EMBED_FIELDS:
        raise refuse(f"embeds.{index}.fields", f"Must be {EMBED_FIELDS} or fewer in length.")
    for number, field in enumerate(fields):
        where = f"embeds.{index}.fields.{number}"
        if not field.get("name") or len(field["name"]) > FIELD_NAME:
            raise refuse(f"{where}.name", f"Must be between 1 and {FIELD_NAME} in length.")
        if not field.get("value") or len(field["value"]) > FIELD_VALUE:
            raise refuse(f"{where}.value", f"Must be between 1 and {FIELD_VALUE} in length.")


def _check_components(rows: list[dict[str, Any]]) -> None:
    if len(rows) > ROWS:
        raise refuse("components", f"Must be {ROWS} or fewer in length.")
    seen: set[str] = set()
    for index, row in enumerate(rows):
        children = row.get("components") or []
        if row.get("type") != 1 or not 1 <= len(children) <= BUTTONS_PER_ROW:
            raise refuse(f"components.{index}", "An action row holds 1 to 5 components.")
        for number, child in enumerate(children):
            where = f"components.{index}.components.{number}"
            custom_id = child.get("custom_id")
            if custom_id is not None:
                if not 1 <= len(custom_id) <= CUSTOM_ID:
                    raise refuse(f"{where}.custom_id", f"Must be 1 to {CUSTOM_ID} in length.")
                if custom_id in seen:
                    raise refuse(f"{where}.custom_id", "Component custom id cannot be duplicated")
                seen.add(custom_id)
            if len(child.get("label") or "") > LABEL:
                raise refuse(f"{where}.label", f"Must be {LABEL} or fewer in length.")


def check_thread_name(body: dict[str, Any]) -> None:
    name = body.get("name")
    if name is not None and not 1 <= len(name) <= THREAD_NAME:
        raise refuse("name", f"Must be between 1 and {THREAD_NAME} in length.")


def check_choices(data: dict[str, Any]) -> None:
    """An autocomplete answer (callback type 8): at most 25 choices of at most 100 chars."""
    choices = data.get("choices") or []
    if len(choices) > CHOICES:
        raise refuse("data.choices", f"Must be {CHOICES} or fewer in length.")
    for index, choice in enumerate(choices):
        if not 1 <= len(choice.get("name") or "") <= CHOICE_NAME:
            raise refuse(f"data.choices.{index}.name", f"Must be 1 to {CHOICE_NAME} long.")
        if isinstance(choice.get("value"), str) and len(choice["value"]) > CHOICE_VALUE:
            raise refuse(f"data.choices.{index}.value", f"Must be {CHOICE_VALUE} or fewer.")


def check_commands(commands: list[dict[str, Any]]) -> None:
    """A command sync: names and descriptions within Discord's lengths, 25 options at most."""
    for index, command in enumerate(commands):
        name, description = command.get("name") or "", command.get("description") or ""
        if not 1 <= len(name) <= COMMAND_NAME or name != name.lower():
            raise refuse(f"{index}.name", "Command name is invalid")
        if len(description) > COMMAND_DESCRIPTION:
            raise refuse(f"{index}.description", f"Must be {COMMAND_DESCRIPTION} or fewer.")
        options = command.get("options") or []
        if len(options) > OPTIONS:
            raise refuse(f"{index}.options", f"Must be {OPTIONS} or fewer in length.")
        for number, option in enumerate(options):
            if len(option.get("description") or "") > COMMAND_DESCRIPTION:
                raise refuse(f"{index}.options.{number}.description", "Too long.")


def check_files(body: dict[str, Any]) -> None:
    """Refuse an upload with a file over Discord's limit: 413 40005, as Discord answers."""
    for _, data in body.get("_files") or []:
        if len(data) > ATTACHMENT_BYTES:
            raise DiscordError(413, TOO_LARGE, "Request entity too large")


def check_modal(data: dict[str, Any]) -> None:
    """A modal (callback type 9): a custom id, a title of at most 45 characters, 1 to 5 rows,
    each text input with a label of at most 45 and a length of at most 4,000."""
    if not 1 <= len(data.get("custom_id") or "") <= CUSTOM_ID:
        raise refuse("data.custom_id", f"Must be 1 to {CUSTOM_ID} in length.")
    if not 1 <= len(data.get("title") or "") <= MODAL_TITLE:
        raise refuse("data.title", f"Must be 1 to {MODAL_TITLE} in length.")
    rows = data.get("components") or []
    if not 1 <= len(rows) <= MODAL_ROWS:
        raise refuse("data.components", f"Must be 1 to {MODAL_ROWS} in length.")
    for index, row in enumerate(rows):
        for child in row.get("components") or [row.get("component") or {}]:
            where = f"data.components.{index}"
            if child.get("type") != 4:
                continue
            if len(child.get("label") or "") > INPUT_LABEL:
                raise refuse(f"{where}.label", f"Must be {INPUT_LABEL} or fewer in length.")
            if int(child.get("max_length") or 0) > TEXT_INPUT:
                raise refuse(f"{where}.max_length", f"Must be {TEXT_INPUT} or less.")
