"""A job's conversation in its history: each message, what became of it, what reached the agent.

The `say` Update's input names its sender and text, its answer what became of the message, and
the `messages_delivered` signal which messages reached the agent; the agent's `agent_inbox`
long polls are plumbing, left out. Each returns None for an event it does not word.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import ValidationError
from temporalio.api.common.v1 import Payload
from temporalio.api.update.v1 import Outcome

from desk.names import (
    JOB_AGENT_INBOX_UPDATE,
    JOB_ATTEMPT_NEWS_SIGNAL,
    JOB_ATTEMPT_VERDICT_SIGNAL,
    JOB_MESSAGES_DELIVERED_SIGNAL,
    JOB_REVIEW_UPDATE,
    JOB_SAY_UPDATE,
)
from desk.payloads.conversation.attempt_payloads import AttemptNews, AttemptState
from desk.payloads.conversation.review_payloads import ReviewAnswer, ReviewAnswered
from desk.payloads.message_payloads import MessagesDelivered, SayAnswer, SayInput
from surfaces.render.words.message_words import delivered_line, said_line, say_answer


def _first(payloads: Sequence[Payload]) -> object:
    if not payloads:
        return None
    try:
        return json.loads(payloads[0].data)
    except ValueError:
        return None


def conversation_update(name: str, payloads: Sequence[Payload]) -> str | None:
    """An accepted Update of the conversation, in words ("" to leave it out)."""
    if name == JOB_AGENT_INBOX_UPDATE:
        return ""
    if name == JOB_REVIEW_UPDATE:
        try:
            answer = ReviewAnswer.model_validate(_first(payloads))
        except ValidationError:
            return "review answer (unreadable)"
        where = f" ({answer.surface})" if answer.surface else ""
        return f"review answered by {answer.by.name or answer.by.id}{where}: {answer.verdict}"
    if name != JOB_SAY_UPDATE:
        return None
    try:
        return said_line(SayInput.model_validate(_first(payloads)))
    except ValidationError:
        return "message (unreadable)"


def conversation_answer(name: str, outcome: Outcome) -> str | None:
    """A completed Update of the conversation, in words ("" to leave it out)."""
    if name == JOB_AGENT_INBOX_UPDATE:
        return ""
    if name == JOB_REVIEW_UPDATE:
        if outcome.HasField("failure"):
            return f"review answer refused: {outcome.failure.message}"
        try:
            taken = ReviewAnswered.model_validate(_first(outcome.success.payloads))
        except ValidationError:
            return "review answer taken"
        return f"review answer taken: job {taken.number} will {taken.verdict}"
    if name != JOB_SAY_UPDATE:
        return None
    if outcome.HasField("failure"):
        return f"message failed: {outcome.failure.message}"
    try:
        return say_answer(SayAnswer.model_validate(_first(outcome.success.payloads)))
    except ValidationError:
        return "message taken"


def conversation_signal(name: str, payloads: Sequence[Payload]) -> str | None:
    """A signal of the conversation, in words."""
    if name == JOB_ATTEMPT_NEWS_SIGNAL:
        return _attempt_news(_first(payloads))
    if name == JOB_ATTEMPT_VERDICT_SIGNAL:
        return _attempt_verdict(_first(payloads))
    if name != JOB_MESSAGES_DELIVERED_SIGNAL:
        return None
    try:
        return delivered_line(MessagesDelivered.model_validate(_first(payloads)))
    except ValidationError:
        return "messages reached the agent"


def _attempt_news(value: object) -> str:
    """`attempt b: ready for the pick (check passed; 1 file changed, 1 insertion(+))`."""
    try:
        news = AttemptNews.model_validate(value)
    except ValidationError:
        return "an attempt's news"
    said = f"attempt {news.label}: "
    if news.state == AttemptState.WORKING:
        return said + "working again"
    if news.state == AttemptState.ENDED:
        return said + f"ended {news.outcome or ''}".rstrip()
    facts = [f"check {news.check}" if news.check is not None else "no check"]
    if news.stat:
        facts.append(news.stat.strip())
    return said + f"ready for the pick ({'; '.join(facts)})"


def _attempt_verdict(value: object) -> str:
    """`the pick: integrate (by alice)` as the attempt heard it."""
    try:
        answer = ReviewAnswer.model_validate(value)
    except ValidationError:
        return "the pick's answer"
    return f"the pick: {answer.verdict} (by {answer.by.name or answer.by.id})"
