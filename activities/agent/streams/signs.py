"""The signs in a preset CLI's output that it could not work, though it exits 0, or that it waits
forever without working (`Preset.cannot_work`, `worked`, `gives_up`)."""

from __future__ import annotations

from activities.diagnostics import quoted
from desk.agents.presets import Preset


class Signs:
    """What the lines read so far say: why the agent could not work, and whether it gave up."""

    def __init__(self, preset: Preset | None) -> None:
        self.preset = preset
        self.failure: str | None = None
        self.give_up = False

    def read(self, line: str) -> None:
        """Take one line of the output."""
        preset = self.preset
        if preset is None or self.give_up:
            return
        gave_up = preset.sign_in(line, preset.gives_up)
        if gave_up is not None:
            self.failure, self.give_up = self._could_not_work(gave_up), True
        elif preset.sign_in(line, preset.worked) is not None:
            self.failure = None  # an earlier sign was a retry that worked
        elif (sign := preset.sign_in(line, preset.cannot_work)) is not None:
            self.failure = self._could_not_work(sign)

    def _could_not_work(self, sign: str) -> str:
        """The failure a sign gives: the CLI's words, scrubbed and cut to the setting
        (CODEDESK_DIAGNOSTIC_CHARS)."""
        assert self.preset is not None
        return f"{self.preset.program} could not work: {quoted(sign)}"
