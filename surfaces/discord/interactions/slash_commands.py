"""The slash commands: /task, /repos, /jobs, /job, /cancel, /report, /push, /approvals, /mode.

Only the bot's owners may use them: the tree's `interaction_check` refuses anyone else with
an ephemeral message before any command runs (and answers their autocomplete with nothing).
Every command defers first (Discord wants an answer within 3 seconds; the desk may take
longer) and answers with follow-ups, split under the message limit. `/task` answers where it
was asked and the job is followed there (`job_place`): in a thread of its own under the
answer in a text channel, in the thread, forum post or DM it was asked in; its progress, its
approval cards and its report are shown there. Where the bot cannot post, /task refuses
before a job starts.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord import app_commands
from temporalio.service import RPCError

from desk.agents.presets import PRESETS, preset_command
from desk.errors import DeskError
from desk.holds.approvals import SurfacePlace
from desk.policy.host import asked_budget, asked_spend_limit
from surfaces.clients.conversation.attempt_asks import OptionNames, attempts_asked
from surfaces.discord.common.access import REFUSAL
from surfaces.discord.common.delivery import NO_MENTIONS
from surfaces.discord.common.services import services_of
from surfaces.discord.interactions.buttons import card_view
from surfaces.discord.interactions.job_place import Follow, job_place
from surfaces.discord.interactions.mode_slash_command import mode_command
from surfaces.render.discord.embeds import card_embed
from surfaces.render.discord.message_text import code, cut, plain, split_message
from surfaces.render.discord.replies import (
    approvals_text,
    change_report_text,
    jobs_text,
    push_text,
    repos_text,
    status_text,
)
from surfaces.render.words.daily_limit_words import day_limit_reason

log = logging.getLogger(__name__)

CHOICES = 25
"""Discord shows at most 25 autocomplete choices."""
CHOICE_CHARS = 100
THREAD_NAME_CHARS = 100
JOBS_SHOWN = 25
CARDS_SHOWN = 5
OPTIONS = OptionNames("option agents", "option attempts", "option pick_first_passing")
"""How /task's refusals name its options for attempts."""
PUSH_WAIT = 3600.0
"""How long the bot waits, best effort, to tell the channel how a requested push ended."""


class CodedeskTree(app_commands.CommandTree[Any]):
    """The command tree: owners only, and errors answered as one-line reasons."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        if services_of(interaction.client).owners.allows(interaction.user):
            return True
        log.info("Refused %s (%s) a command: not an owner.", interaction.user.id, interaction.type)
        if interaction.type == discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        else:
            await interaction.response.send_message(
                REFUSAL, ephemeral=True, allowed_mentions=NO_MENTIONS
            )
        return False

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError, /
    ) -> None:
        cause = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        if isinstance(cause, DeskError):
            text = plain(str(cause))
        elif isinstance(cause, RPCError):
            text = f"The desk's Temporal server did not answer: {plain(cause.message)}"
        else:
            log.error("Command %s failed", interaction.command, exc_info=cause)
            text = "Something went wrong; the bot's log says what."
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
            else:
                await interaction.response.send_message(
                    text, ephemeral=True, allowed_mentions=NO_MENTIONS
                )
        except discord.HTTPException as failure:
            log.warning("Could not tell %s why a command failed: %s", interaction.user.id, failure)


async def reply(interaction: discord.Interaction[Any], text: str, **kwargs: Any) -> None:
    """Answer a deferred command with `text`, split into as many messages as it needs."""
    for chunk in split_message(text):
        await interaction.followup.send(chunk, allowed_mentions=NO_MENTIONS, **kwargs)


async def repo_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    """Repositories on the shelf whose name contains what was typed (at most 25)."""
    typed = current.strip().lower()
    names = await services_of(interaction.client).shelf_quickly()
    found = [name for name in names if typed in name.lower() and len(name) <= CHOICE_CHARS]
    return [app_commands.Choice(name=name, value=name) for name in found[:CHOICES]]


async def preset_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    """The agent presets whose name starts with what was typed."""
    typed = current.strip().lower()
    found = [name for name in sorted(PRESETS) if name.startswith(typed)]
    return [app_commands.Choice(name=name, value=name) for name in found[:CHOICES]]


@app_commands.command(name="task", description="Start a coding job; follow it where you ask.")
@app_commands.describe(
    repo="A repository on the shelf (owner/repo)",
    task="What the agent does",
    agent="A preset agent (default: the host's agent)",
    budget="Work-time budget such as 10m or 1h, up to the host's (default: the host's)",
    spend_limit="Most the agent may spend, in US dollars such as 2.50, up to the host's limit",
    review="Let the work wait for review before it lands (ask for changes in the job's thread)",
    agents="Several agents side by side, e.g. claude,codex: you pick one from a card",
    attempts="Several attempts of the one agent side by side (2 or more): you pick one",
    pick_first_passing="With attempts: the first whose check passes lands, the others stop",
)
@app_commands.autocomplete(repo=repo_choices, agent=preset_choices)
async def task_command(
    interaction: discord.Interaction[Any],
    repo: app_commands.Range[str, 3, 201],
    task: app_commands.Range[str, 1, 4000],
    agent: app_commands.Range[str, 1, 32] | None = None,
    budget: app_commands.Range[str, 1, 32] | None = None,
    spend_limit: app_commands.Range[str, 1, 32] | None = None,
    review: bool = False,
    agents: app_commands.Range[str, 1, 200] | None = None,
    attempts: int | None = None,
    pick_first_passing: bool = False,
) -> None:
    try:
        follow = job_place(interaction)
        command = preset_command(agent.strip()) if agent else None
        asked = asked_budget(budget) if budget else None
        limit = asked_spend_limit(spend_limit) if spend_limit else None
        tries = attempts_asked(
            agents,
            attempts,
            command or services_of(interaction.client).settings.agent_command,
            pick_first_passing=pick_first_passing,
            names=OPTIONS,
        )
    except DeskError as refused:  # before any job: a bad ask, or nobody would hear of it
        await interaction.response.send_message(
            plain(str(refused)), ephemeral=True, allowed_mentions=NO_MENTIONS
        )
        return
    await interaction.response.defer(thinking=True)
    services = services_of(interaction.client)
    name = repo.strip()
    if name not in await services.shelf(fresh=True):
        await reply(interaction, f"{code(name)} is not on the shelf: `/repos` lists what is.")
        return
    who = plain(interaction.user.display_name)
    said = f"{who} asked for a job on {code(name)}: {plain(cut(task, 300))}"
    message = await interaction.edit_original_response(content=said, allowed_mentions=NO_MENTIONS)
    thread = None
    if follow is Follow.NEW_THREAD:
        thread = await _open_thread(message, f"{name}: {task}")
    followed = thread.id if thread is not None else interaction.channel_id
    place = SurfacePlace(queue=services.queue, channel=str(followed)) if followed else None
    try:
        # The desk judges the budget and the spend limit by the host's policy: a looser one is
        # a PolicyError.
        admission = await services.desk.submit_job(
            name,
            task,
            agent_command=command,
            budget=asked,
            spend_limit=limit,
            review=review,
            attempts=tries,
            pick_first_passing=pick_first_passing,
            requester=f"discord:{interaction.user.id}",
            place=place,
            starter=f"discord:{interaction.user.id}",
            origin_channel=str(interaction.channel_id or ""),
        )
    except DeskError as error:
        await interaction.edit_original_response(
            content=f"{said}\nRefused: {plain(str(error))}", allowed_mentions=NO_MENTIONS
        )
        if thread is not None:
            await _quietly(thread.edit(archived=True), "archive the thread of a refused job")
        return
    number = admission.number
    if followed:  # messages written there from now on are the job's (thread_messages.py)
        services.threads.follow(
            followed, number, requester=f"discord:{interaction.user.id}", since=interaction.id
        )
    where = f"; follow it in {thread.mention}" if thread else "; follow it here"
    state = f"queued at #{admission.position}" if admission.position else "running"
    if admission.day_limit is not None:
        state += f": {plain(day_limit_reason(admission.day_limit, services.settings.time_zone))}"
    await interaction.edit_original_response(
        content=f"{said}\nJob **{number}** is {state}{where}.",
        allowed_mentions=NO_MENTIONS,
    )


async def _open_thread(message: discord.Message, name: str) -> discord.Thread | None:
    """A thread under the command's answer; None (the job is followed in the channel) when
    Discord refuses it."""
    try:
        return await message.create_thread(name=cut(" ".join(name.split()), THREAD_NAME_CHARS))
    except discord.HTTPException as error:
        log.warning("Could not open a thread for a job: %s", error)
        return None


async def _quietly(action: Any, what: str) -> None:
    try:
        await action
    except discord.HTTPException as error:
        log.warning("Could not %s: %s", what, error)


@app_commands.command(name="repos", description="List the repositories on the shelf.")
async def repos_command(interaction: discord.Interaction[Any]) -> None:
    await interaction.response.defer(thinking=True)
    clones = await services_of(interaction.client).desk.list_repos()
    await reply(interaction, repos_text(clones))


@app_commands.command(name="jobs", description="List the latest jobs and where they are.")
async def jobs_command(interaction: discord.Interaction[Any]) -> None:
    await interaction.response.defer(thinking=True)
    rows = await services_of(interaction.client).desk.jobs()
    await reply(interaction, jobs_text(rows[-JOBS_SHOWN:]))


@app_commands.command(name="job", description="Show a job: where it is, or its report.")
@app_commands.describe(number="The job's number")
async def job_command(
    interaction: discord.Interaction[Any], number: app_commands.Range[int, 1]
) -> None:
    await interaction.response.defer(thinking=True)
    services = services_of(interaction.client)
    state, job = await services.desk.status(number)
    await reply(interaction, status_text(state.name.lower(), job, services.settings.time_zone))


@app_commands.command(name="cancel", description="Cancel a job: its agent is stopped.")
@app_commands.describe(number="The job's number")
async def cancel_command(
    interaction: discord.Interaction[Any], number: app_commands.Range[int, 1]
) -> None:
    await interaction.response.defer(thinking=True)
    await services_of(interaction.client).desk.cancel(number)
    await reply(interaction, f"Job **{number}**: cancellation requested; its report will say so.")


@app_commands.command(name="report", description="What a push of a clone's HEAD would ship.")
@app_commands.describe(repo="A repository on the shelf (owner/repo)")
@app_commands.autocomplete(repo=repo_choices)
async def report_command(
    interaction: discord.Interaction[Any], repo: app_commands.Range[str, 3, 201]
) -> None:
    await interaction.response.defer(thinking=True)
    made = await services_of(interaction.client).shipping.change_report(repo.strip())
    await reply(interaction, change_report_text(made))


@app_commands.command(name="push", description="Push exactly the reported SHA, once approved.")
@app_commands.describe(repo="A repository on the shelf", sha="The full SHA /report named")
@app_commands.autocomplete(repo=repo_choices)
async def push_command(
    interaction: discord.Interaction[Any],
    repo: app_commands.Range[str, 3, 201],
    sha: app_commands.Range[str, 40, 40],
) -> None:
    await interaction.response.defer(thinking=True)
    services = services_of(interaction.client)
    place = SurfacePlace(queue=services.queue, channel=str(interaction.channel_id))
    finished = await services.shipping.finished_push(repo.strip(), sha)
    if finished is not None:
        await reply(interaction, push_text(finished))
        return
    handle, approval = await services.shipping.request_push(repo.strip(), sha, place=place)
    if approval:
        text = f"The push of {code(sha)} waits for an owner's approval: its card follows here."
    else:
        text = f"The host exempts {code(repo)}: the push runs without an owner's approval."
    await reply(interaction, text)
    channel = interaction.channel
    if isinstance(channel, discord.abc.Messageable):
        services.keep(asyncio.create_task(_tell_push(channel, handle)))


async def _tell_push(channel: discord.abc.Messageable, handle: Any) -> None:
    """Best effort: say how the push ended (a restarted bot does not; `/report` still tells)."""
    try:
        result = await asyncio.wait_for(handle.result(), PUSH_WAIT)
        await channel.send(push_text(result), allowed_mentions=NO_MENTIONS)
    except Exception as error:  # it is a courtesy: the push's own history is the record
        log.info("Not telling how push %s ended: %s", handle.id, error)


@app_commands.command(name="approvals", description="List open approvals, with cards to answer.")
async def approvals_command(interaction: discord.Interaction[Any]) -> None:
    await interaction.response.defer(thinking=True, ephemeral=True)
    states = await services_of(interaction.client).approvals.open_approvals()
    await reply(interaction, approvals_text(states, CARDS_SHOWN), ephemeral=True)
    for state in states[:CARDS_SHOWN]:
        await interaction.followup.send(
            embed=card_embed(state.approval_id, state.request),
            view=card_view(state.approval_id),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )


COMMANDS: tuple[app_commands.Command[Any, ..., None], ...] = (
    task_command,
    repos_command,
    jobs_command,
    job_command,
    cancel_command,
    report_command,
    push_command,
    approvals_command,
    mode_command,
)


def install(tree: app_commands.CommandTree[Any]) -> None:
    """Add every command to the tree (as global commands; `--sync` copies them to guilds)."""
    for command in COMMANDS:
        tree.add_command(command)
