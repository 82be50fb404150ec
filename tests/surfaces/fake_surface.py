"""A surface that keeps what it shows in memory: the reference the contract suite checks."""

from __future__ import annotations

from dataclasses import dataclass, field

from desk.payloads.surface_contract import Surface
from desk.payloads.surfaces import (
    CardRef,
    CloseCard,
    PostCard,
    ThreadProgress,
    ThreadReport,
    ThreadText,
)
from surfaces.render.words.narration_words import narration_text, thread_text


@dataclass
class FakeCard:
    approval_id: str
    channel: str
    message: str
    open: bool = True
    footer: str = ""


@dataclass
class FakeSurface(Surface):
    """Implements `desk.payloads.surface_contract.Surface`; safe to run twice like every
    activity."""

    cards: dict[str, FakeCard] = field(default_factory=dict)
    posts: list[tuple[str, str]] = field(default_factory=list)
    progress: dict[str, str] = field(default_factory=dict)
    reports: list[tuple[str, int]] = field(default_factory=list)
    archived: set[str] = field(default_factory=set)

    async def post_card(self, card: PostCard) -> CardRef:
        shown = self.cards.get(card.approval_id)
        if shown is None:
            shown = FakeCard(card.approval_id, card.channel, f"m{len(self.cards) + 1}")
            self.cards[card.approval_id] = shown
            self.posts.append((card.channel, f"card {card.approval_id}"))
        return CardRef(channel=shown.channel, message=shown.message)

    async def close_card(self, close: CloseCard) -> None:
        card = self.cards[close.approval_id]
        card.open = False
        note = f" — {close.outcome.note}" if close.outcome.note else ""
        card.footer = f"{close.outcome.kind.value}{note}"

    async def post_text(self, text: ThreadText) -> None:
        self.posts.append((text.channel, thread_text(text)))

    async def set_progress(self, progress: ThreadProgress) -> None:
        self.progress[progress.channel] = narration_text(progress)

    async def post_report(self, report: ThreadReport) -> None:
        if (report.channel, report.report.number) not in self.reports:
            self.reports.append((report.channel, report.report.number))
            self.posts.append((report.channel, f"report {report.report.outcome.value}"))
        self.archived.add(report.channel)
