"""`DiscordSurface`: the `Surface` protocol over a discord.py client (cards, threads, reports).

Its methods run as activities on the bot's task queue (`activities.surface.SurfaceActivities`)
and are safe to run twice: a card already in the channel is found again by its buttons' custom
id, a report by its heading, the progress message by its footer, and every send carries a
stable nonce. Failures follow `delivery.py`: retryable ones raise (Temporal retries the
activity), others are logged and the method returns, so a chat message never fails a job. A
card that could not be posted is returned with an empty message id, and closing it is a no-op.
Every send and edit turns mentions off.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import discord
from temporalio.client import Client

from desk.errors import JobNotFoundError
from desk.holds.approvals import Decision
from desk.names import job_number
from desk.payloads.conversation.attempt_payloads import Attempts
from desk.payloads.conversation.review_payloads import ReviewRound
from desk.payloads.surface_contract import Surface
from desk.payloads.surfaces import (
    CardRef,
    CloseCard,
    PostCard,
    ThreadProgress,
    ThreadReport,
    ThreadText,
)
from desk.records.narration import Narration
from surfaces.clients.desk_client import DeskClient
from surfaces.discord.agent_texts import AgentTexts
from surfaces.discord.agent_watch import DEFAULT_LIMITS, AgentWatch, LineLimits
from surfaces.discord.common.closed_threads import ClosedThreads, direct_note
from surfaces.discord.common.delivery import (
    NO_MENTIONS,
    closed_to_me,
    give_up,
    nonce,
    reopened,
    retryable,
)
from surfaces.discord.common.thread_book import ThreadBook
from surfaces.discord.comparison_cards import ComparisonCards
from surfaces.discord.interactions.buttons import card_view
from surfaces.discord.interactions.custom_ids import CardKey
from surfaces.discord.progress_boards import ProgressBoards
from surfaces.discord.review.review_cards import ReviewCards
from surfaces.render.discord.embeds import card_embed
from surfaces.render.discord.message_text import sanitize, split_message
from surfaces.render.discord.replies import report_text
from surfaces.render.words.narration_words import narration_text, thread_text

log = logging.getLogger(__name__)


class DiscordSurface(Surface):
    """Implements `desk.payloads.surface_contract.Surface` for one logged-in discord.py client."""

    def __init__(
        self,
        client: discord.Client,
        *,
        progress_interval: float = 5.0,
        history_limit: int = 50,
        temporal: Client | None = None,
        agent_lines: LineLimits = DEFAULT_LIMITS,
        time_zone: str = "",
        threads: ThreadBook | None = None,
        desk: DeskClient | None = None,
        comparisons: ComparisonCards | None = None,
    ) -> None:
        self.client = client
        self.comparisons = comparisons
        """Posts a job's comparison card when its attempts are all in (None: no card)."""
        self.reviews = ReviewCards(client, desk, self._find) if desk is not None else None
        """A job's review card (none without a desk to read the job and its diff from)."""
        self.threads = threads
        """Which job each place follows: the outbox's activities write it down too."""
        self.time_zone = time_zone
        self.history_limit = history_limit
        self.closed = ClosedThreads()
        self.progress = ProgressBoards(
            client, interval=progress_interval, history_limit=history_limit, closed=self.closed
        )
        self.agents = AgentWatch(
            temporal,
            self.progress,
            interval=progress_interval,
            limits=agent_lines,
            texts=AgentTexts(client, history_limit=history_limit),
        )

    async def post_card(self, card: PostCard) -> CardRef:
        none = CardRef(channel=card.channel, message="")
        channel_id = _channel_id(card.channel)
        if channel_id is None:
            return none
        channel = self.client.get_partial_messageable(channel_id)
        key = CardKey.of(card.approval_id)
        wanted = {key.custom_id(decision) for decision in Decision}
        try:
            found = await self._find(channel, lambda message: bool(_custom_ids(message) & wanted))
            if found is None:
                message = await channel.send(
                    embed=card_embed(card.approval_id, card.request),
                    view=card_view(card.approval_id),
                    nonce=nonce("card", card.approval_id, card.channel),
                    allowed_mentions=NO_MENTIONS,
                )
                found = message.id
        except discord.HTTPException as error:
            give_up(error, f"post the card of {card.approval_id} in {card.channel}")
            return none
        return CardRef(channel=card.channel, message=str(found))

    async def close_card(self, close: CloseCard) -> None:
        channel_id = _channel_id(close.card.channel)
        if channel_id is None or not close.card.message.isdigit():
            return  # never posted: nothing to close
        message = self.client.get_partial_messageable(channel_id).get_partial_message(
            int(close.card.message)
        )
        embed = card_embed(close.approval_id, close.request, close.outcome)
        view = card_view(close.approval_id, disabled=True)

        async def edit() -> None:
            await message.edit(embed=embed, view=view, allowed_mentions=NO_MENTIONS)

        try:
            await reopened(self.client, channel_id, edit, self.closed)
        except discord.HTTPException as error:
            give_up(error, f"close the card of {close.approval_id}")

    async def post_text(self, text: ThreadText) -> None:
        channel_id = _channel_id(text.channel)
        if channel_id is None:
            return
        if text.job:
            self._follows(channel_id, text.job)
        channel = self.client.get_partial_messageable(channel_id)
        try:
            for index, chunk in enumerate(split_message(sanitize(thread_text(text)))):
                await channel.send(
                    chunk,
                    nonce=nonce("text", text.channel, text.text, str(index)),
                    allowed_mentions=NO_MENTIONS,
                )
        except discord.HTTPException as error:
            give_up(error, f"post text in {text.channel}")

    async def set_progress(self, progress: ThreadProgress) -> None:
        channel_id = _channel_id(progress.channel)
        if channel_id is not None:
            if progress.agent_of:
                try:
                    self._follows(channel_id, job_number(progress.agent_of))
                except JobNotFoundError:
                    pass  # not a job's id: nothing to write down
            await self.agents.narrate(channel_id, narration_text(progress), progress.agent_of)
            if progress.job:
                await self._review_card(channel_id, progress)
            if progress.narration == Narration.COMPARING:
                await self._comparison(channel_id, progress.job)

    async def _review_card(self, channel_id: int, progress: ThreadProgress) -> None:
        """A job waiting for review gets its card; one revising has its last card closed."""
        reviews, number = self.reviews, progress.job
        if reviews is None or progress.narration not in (Narration.REVIEW, Narration.REVISING):
            return
        try:
            if progress.narration == Narration.REVIEW:
                await reviews.post(channel_id, number)
            else:
                _, status = await reviews.desk.status(number)
                await reviews.close_answered(channel_id, number, status.review_rounds)
        except Exception:
            log.exception("Job %s's review card in %s could not be shown", number, channel_id)

    async def _close_reviewed(
        self, channel_id: int, number: int, rounds: list[ReviewRound]
    ) -> None:
        """The report closes the job's last review card (answered from anywhere)."""
        if self.reviews is None or not rounds:
            return
        try:
            await self.reviews.close_answered(channel_id, number, rounds)
        except Exception:
            log.exception("Job %s's review card in %s could not be closed", number, channel_id)

    async def _close_attempts_cards(self, channel_id: int, number: int, attempts: Attempts) -> None:
        """The job of attempts reported: its comparison card closes, and so does the review
        card of a pick asked for review (its attempt reports to no thread of its own)."""
        if self.comparisons is not None:
            await self.comparisons.close(channel_id, number, attempts)
        picked = attempts.picked_row()
        if self.reviews is None or picked is None:
            return
        try:
            _, status = await self.reviews.desk.status(picked.number)
        except Exception:
            log.exception("Attempt job %s's review rounds could not be read", picked.number)
            return
        rounds = status.report.review_rounds if status.report else status.review_rounds
        await self._close_reviewed(channel_id, picked.number, rounds)

    async def _comparison(self, channel_id: int, number: int) -> None:
        """The comparison card of the job the narration names, under the narration."""
        if self.comparisons is not None and number:
            await self.comparisons.show(channel_id, number)

    async def post_report(self, report: ThreadReport) -> None:
        channel_id = _channel_id(report.channel)
        if channel_id is None:
            return
        self.agents.stop(channel_id)
        await self.progress.settle(channel_id)
        number = report.report.number
        await self._close_reviewed(channel_id, number, report.report.review_rounds)
        if report.report.attempts is not None:
            await self._close_attempts_cards(channel_id, number, report.report.attempts)
        if self.threads is not None:
            self.threads.ended(channel_id, number)
        text = report_text(report.report, self.time_zone)
        note = self.closed.note_of(channel_id)
        try:
            try:
                await self._report_in(channel_id, number, "\n\n".join(filter(None, [text, note])))
            except discord.HTTPException as error:
                if not closed_to_me(error):
                    raise
                await self._report_to_requester(channel_id, report, text)
                self.closed.forget(channel_id)
                return
            self.closed.forget(channel_id)
            thread = await self._thread(channel_id)
            me = self.client.user
            if thread is not None and me is not None and thread.owner_id == me.id:
                if not thread.archived:  # its job is over: the thread the bot opened rests
                    await thread.edit(archived=True)
        except discord.HTTPException as error:
            give_up(error, f"post the report of job {number}")

    async def _report_in(self, channel_id: int, number: int, text: str) -> None:
        """Post the report in the channel, unless it is among its last messages already."""
        channel = self.client.get_partial_messageable(channel_id)
        heading = f"## Job {number} on "
        posted = await self._find(
            channel, lambda message: (message.content or "").startswith(heading)
        )
        if posted is not None:
            return
        for index, chunk in enumerate(split_message(text)):
            await channel.send(
                chunk,
                nonce=nonce("report", str(channel_id), str(number), str(index)),
                allowed_mentions=NO_MENTIONS,
            )

    async def _report_to_requester(self, channel_id: int, told: ThreadReport, text: str) -> None:
        """The report of a thread closed to the bot, in the requester's direct messages, saying
        why; never in another channel. Where they cannot be reached, nothing is shown and the
        log says why."""
        number = told.report.number
        user = _discord_user(told.requester)
        if user is None:
            log.warning(
                "Job %s's report was not shown: its thread %s is closed to the bot, and the job "
                "names no Discord requester whose direct messages could take it (a report never "
                "goes to another channel); `codedesk show %s` has it.",
                number,
                channel_id,
                number,
            )
            return
        try:
            opened = await self.client.http.start_private_message(user)
            direct = int(opened["id"])
            await self._report_in(direct, number, f"{text}\n\n{direct_note(channel_id)}")
        except discord.HTTPException as error:
            if retryable(error):
                raise
            log.warning(
                "Job %s's report was not shown: its thread %s is closed to the bot, and the "
                "direct messages of its requester (%s) refused it too (%s %s: %s); a report never "
                "goes to another channel; `codedesk show %s` has it.",
                number,
                channel_id,
                told.requester,
                error.status,
                error.code,
                error.text,
                number,
            )
            return
        log.warning(
            "Job %s's thread %s is closed to the bot: its report went to its requester's direct "
            "messages.",
            number,
            channel_id,
        )

    def _follows(self, channel_id: int, number: int) -> None:
        """Write down that the place follows job `number` (a job an earlier bot started)."""
        if self.threads is not None:
            self.threads.follow(channel_id, number)

    def close(self) -> None:
        """Stop following agents (the bot closes)."""
        self.agents.close()

    async def _find(
        self,
        channel: discord.PartialMessageable,
        wanted: Callable[[discord.Message], bool],
    ) -> int | None:
        """A message of this bot among the channel's last ones that is `wanted`."""
        me = self.client.user
        if me is None:
            return None
        try:
            async for message in channel.history(limit=self.history_limit):
                if message.author.id == me.id and wanted(message):
                    return message.id
        except discord.HTTPException as error:
            give_up(error, f"read the history of {channel.id}")
        return None

    async def _thread(self, channel_id: int) -> discord.Thread | None:
        try:
            channel = await self.client.fetch_channel(channel_id)
        except discord.NotFound:
            return None
        return channel if isinstance(channel, discord.Thread) else None


def _discord_user(principal: str) -> int | None:
    """The Discord user id of a principal (`discord:<user id>`), or None for anyone else."""
    user = principal.removeprefix("discord:")
    return int(user) if principal.startswith("discord:") and user.isdigit() else None


def _channel_id(channel: str) -> int | None:
    if channel.isdigit():
        return int(channel)
    log.warning("Channel %r is not a Discord channel id; nothing was shown there.", channel)
    return None


def _custom_ids(message: discord.Message) -> set[str]:
    ids: set[str] = set()
    for row in message.components:
        for child in getattr(row, "children", []):
            custom_id = getattr(child, "custom_id", None)
            if isinstance(custom_id, str):
                ids.add(custom_id)
    return ids
