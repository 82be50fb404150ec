"""Approval cards for Discord: the one layout (`surfaces.render.layout.approval_layout`) as
markdown, fitted.

The blocks are the terminal's, shaped by pi-roundtable 0.15's card rules (`SEED`: a lone `\r`,
U+2028, U+2029 and U+0085 are line breaks, and a call whose tool's schema lists no properties
is one JSON block); what is Discord's is the markdown (`surfaces.render.discord.markdown`, whose
escaping means nothing a model wrote can format the card, hide part of it, link anywhere or
mention anyone) and the budget an embed gives it: over budget, strings are cut to a common cap
(never below ``limits.value_chars``), then the last arguments are left out and named, then the
last files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from surfaces.render.blocks import count, line, ours
from surfaces.render.discord import card_text
from surfaces.render.discord.markdown import markdown
from surfaces.render.layout.approval_layout import (
    FILES,
    NO_ARGUMENTS,
    SEED,
    Call,
    Part,
    call_layout,
    entry_at,
    json_object,
)


@dataclass(frozen=True)
class CardLimits:
    """The budget a surface gives a card, in characters (code points).

    Attributes:
        total_chars: the whole card's length; an input that fits is shown whole.
        value_chars: no string value is cut shorter than this, so each keeps a readable start.
    """

    total_chars: int = 1500
    value_chars: int = 200

    def __post_init__(self) -> None:
        if self.total_chars < 1 or self.value_chars < 0:
            raise ValueError(
                f"Card limits {self.total_chars}/{self.value_chars} are not usable: "
                "total_chars must be at least 1 and value_chars at least 0."
            )


def approval_card(
    tool: str,
    input: Mapping[str, Any],
    *,
    action: str = "",
    parameters: Mapping[str, Any] | None = None,
    files: Sequence[str | os.PathLike[str]] = (),
    limits: CardLimits = CardLimits(),
) -> str:
    """One tool call for a person to approve, as markdown within ``limits``.

    The arguments of `surfaces.render.layout.approval_layout.call_layout`, and the surface's budget.
    """
    if isinstance(files, str | bytes):
        files = [files]
    layout = call_layout(
        tool, input, action=action, parameters=parameters, files=files, shapes=SEED
    )
    return _fit(_Card(layout), limits)


@dataclass
class _Drawn:
    """A part's markdown (or, in a JSON object, its entry's code), drawn at most once per cap,
    so fitting a card with a large uncuttable value (a long array of numbers) does not render
    it again for every trial."""

    part: Part
    entry: bool = False
    drawn: dict[int | None, str] = field(default_factory=dict)

    def at(self, cap: int | None) -> str:
        key = None if cap is None or cap >= self.part.longest else cap
        if key not in self.drawn:
            if self.entry:
                self.drawn[key] = card_text.code(entry_at(self.part, key))
            else:
                self.drawn[key] = markdown(self.part.draw(key))
        return self.drawn[key]


class _Card:
    """The layout's markdown by section; ``sections`` joins them for a cap and what is left out."""

    def __init__(self, layout: Call) -> None:
        self.question = markdown([layout.question])
        self.fixed = [_Drawn(part) for part in layout.fixed]
        self.json_object = layout.json_object
        self.fields = [_Drawn(part, entry=layout.json_object) for part in layout.fields]
        self.listed = [markdown([line(part.label)]) for part in layout.fields]
        self.no_arguments = markdown([NO_ARGUMENTS]) if layout.no_arguments else ""
        self.files = [markdown([file]) for file in layout.files]

    def sections(self, cap: int | None, drop: int, drop_files: int, notice: str) -> list[str]:
        out = [self.question, *(piece.at(cap) for piece in self.fixed)]
        shown = [piece.at(cap) for piece in self.fields[: len(self.fields) - drop]]
        if not self.json_object:
            out += shown
        elif shown or not drop:  # every entry left out: no empty object
            out.append(f"```json\n{json_object(shown)}\n```")
        if self.no_arguments:
            out.append(self.no_arguments)
        if notice:
            out.append(notice)
        if self.files:
            out.append(markdown([FILES]))
            out += self.files[: len(self.files) - drop_files]
            if drop_files:
                out.append(markdown([line(ours(f"… {count(drop_files, 'more file')} not shown"))]))
        return out

    def text(self, cap: int | None, drop: int, drop_files: int = 0, notice: str = "") -> str:
        return "\n".join(self.sections(cap, drop, drop_files, notice))

    def length(self, cap: int | None, drop: int, drop_files: int = 0, notice: str = "") -> int:
        sections = self.sections(cap, drop, drop_files, notice)
        return sum(map(len, sections)) + len(sections) - 1


def _fit(card: _Card, limits: CardLimits) -> str:
    """The card with the most shown that fits: cut strings, then drop fields, then files.

    Strings are cut to a common cap (water-filling): only strings longer than the cap are
    cut, so the longest are cut first, and the largest cap that fits keeps the most text.
    The dropped fields are named first; after that the cap is searched again, as dropping
    them may have made room for the others.
    """
    budget, floor = limits.total_chars, limits.value_chars
    longest = max((p.part.longest for p in (*card.fixed, *card.fields)), default=0)
    # Normalising CRLF can at most halve a string, so a longer one can never fit whole.
    if longest <= 2 * budget and card.length(None, 0) <= budget:
        return card.text(None, 0)
    n, n_files = len(card.fields), len(card.files)
    kept = [0]  # kept[i]: the first i fields' length at the floor, a lower bound
    for piece in card.fields:
        kept.append(kept[-1] + len(piece.at(floor)))
    plans = [(d, 0) for d in range(n + 1)] + [(n, f) for f in range(1, n_files + 1)]
    for drop, drop_files in plans:
        if kept[n - drop] > budget:
            continue
        rest = card.length(floor, drop, drop_files)
        notice = _notice(card.listed[n - drop :], budget - rest - 1) if drop else ""
        if notice is None or rest + len(notice) + bool(notice) > budget:
            continue
        low, high = floor, max(floor, min(longest, 2 * budget))
        while low < high:
            mid = (low + high + 1) // 2
            if card.length(mid, drop, drop_files, notice) <= budget:
                low = mid
            else:
                high = mid - 1
        return card.text(low, drop, drop_files, notice)
    # Best effort: the title and what cannot be cut or dropped exceed the budget alone.
    notice = f"… {count(n, 'more field')} not shown" if n else ""
    return card.text(floor, n, n_files, notice)


def _notice(dropped: list[str], room: int) -> str | None:
    """'… N more fields not shown: `a`, `b`', naming as many as fit in ``room``, or None."""
    text = f"… {count(len(dropped), 'more field')} not shown"
    full = f"{text}: {', '.join(dropped)}"
    if len(full) <= room or len(text) > room:
        return full if len(full) <= room else None
    # Too many to name in the budget: name the first ones, and say there are more.
    names: list[str] = []
    size = len(text) + len(": …")
    for listed in dropped:
        size += len(listed) + 2
        if size > room:
            break
        names.append(listed)
    return f"{text}: {', '.join([*names, '…'])}" if names else text
