"""How a job's messages reach each agent CLI, and the words the agent reads them in.

Each agent command has one seam (`seam_of`): Claude Code run with streaming input takes a
message on its standard input while it works (`--input-format stream-json`); a command agent
reads them from the file `CODEDESK_MESSAGES` names; codex, opencode and a Claude Code without
streaming input get them when their run ends, by resuming their session with the messages as
its prompt; a CLI whose session codedesk does not resume (aider, goose) runs again in the same
worktree with the task and the messages. Messages sent before the agent started are in its
first prompt.

Every message the agent reads starts with a header line that names it and carries a tag: a
keyed digest of the job, the message's number and its text (`message_tag`), under a key the
agent never sees. A run that resumes a session looks for the tags in the CLI's own session file
to deliver only the messages the session does not hold yet; the agent cannot write a tag for a
message it has not been given, so a header it forges suppresses nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import shlex
from collections.abc import Mapping, Sequence

from desk.agents.presets import preset_for
from desk.payloads.message_payloads import JobMessage, MessageSeam

TAG_HEX = 16
"""Hex digits of a message's tag: 64 bits an agent cannot guess."""
STREAM_JSON = "stream-json"
RESUMABLE = frozenset({"claude", "codex", "opencode"})
"""Preset programs whose session a run can resume with the messages as its prompt."""
SENDER_CHARS = 80
_NOT_NAME = re.compile(r"[\[\]\r\n\t]+")


def seam_of(argv: Sequence[str]) -> MessageSeam:
    """The way messages reach an agent started with `argv` while it runs, or when it ends."""
    if not argv:
        return MessageSeam.FILE
    program = argv[0].rsplit("/", 1)[-1]
    preset = preset_for(argv)
    if program == "claude" and "-p" in argv and takes_stream(argv):
        return MessageSeam.STDIN
    if preset is None or preset.built_in:
        return MessageSeam.FILE
    if preset.program in RESUMABLE:
        return MessageSeam.RESUME
    return MessageSeam.START_OVER


def command_seam(command: str) -> MessageSeam:
    """`seam_of` an agent command as the job was given it (a template, unsplit)."""
    try:
        return seam_of(shlex.split(command))
    except ValueError:
        return MessageSeam.FILE


def live(seam: MessageSeam) -> bool:
    """Whether the seam takes messages while the agent runs."""
    return seam in (MessageSeam.STDIN, MessageSeam.FILE)


def takes_stream(argv: Sequence[str]) -> bool:
    """Whether `argv` gives Claude Code its input as stream-json (the task on stdin)."""
    return _option(argv, "--input-format") == STREAM_JSON


def gives_stream(argv: Sequence[str]) -> bool:
    """Whether `argv` has Claude Code write its output as stream-json."""
    return _option(argv, "--output-format") == STREAM_JSON


def _option(argv: Sequence[str], name: str) -> str:
    for index, part in enumerate(argv):
        if part == name and index + 1 < len(argv):
            return argv[index + 1]
        if part.startswith(f"{name}="):
            return part.split("=", 1)[1]
    return ""


def message_tag(key: bytes, number: int, message: JobMessage) -> str:
    """The tag of message `message` of job `number` under the job's key `key`."""
    said = f"{number}\n{message.seq}\n{message.text}".encode("utf-8", "surrogatepass")
    return hmac.new(key, said, hashlib.sha256).hexdigest()[:TAG_HEX]


def sender(message: JobMessage) -> str:
    """Who sent `message`, as one line of plain text."""
    name = _NOT_NAME.sub(" ", message.by.name or message.by.id).strip()
    return name[:SENDER_CHARS] or "someone"


def header(message: JobMessage, tag: str) -> str:
    """The line the agent reads before a message: who sent it, its number and its tag."""
    return f"[codedesk message {message.seq} from {sender(message)}, tag {tag}]"


def message_text(message: JobMessage, tag: str) -> str:
    """A message as the agent reads it: its header, then its text."""
    return f"{header(message, tag)}\n{message.text}"


RESUME_FOR_MESSAGES = (
    "While you worked, the person who gave you this task sent the messages below (oldest"
    " first). Read them, do what they ask within your task, commit your work as before, and"
    " end your turn when you are done."
)
"""What a session resumed for messages reads before them."""
AFTER_THE_TASK = (
    "The person who gave you this task also sent these messages (oldest first); they come"
    " after the task and go before it where they differ:"
)
"""What a first prompt (or a run started over) reads between the task and the messages."""


def messages_prompt(messages: Sequence[JobMessage], tags: Mapping[int, str]) -> str:
    """The prompt of a session resumed with `messages`."""
    blocks = "\n\n".join(message_text(message, tags[message.seq]) for message in messages)
    return f"{RESUME_FOR_MESSAGES}\n\n{blocks}"


def task_with_messages(task: str, messages: Sequence[JobMessage], tags: Mapping[int, str]) -> str:
    """The task followed by `messages`, for a CLI's first prompt (or a run started over)."""
    if not messages:
        return task
    blocks = "\n\n".join(message_text(message, tags[message.seq]) for message in messages)
    return f"{task}\n\n{AFTER_THE_TASK}\n\n{blocks}"


def tags_found(text: str, tags: Mapping[int, str]) -> set[int]:
    """The numbers of the messages whose tag `text` (a session file) holds."""
    return {seq for seq, tag in tags.items() if f"tag {tag}]" in text}
