"""The standing instructions: each preset's way of taking them, the owner's replacement and the
parts it may not drop, and a job whose agent had them says which in its report."""

from __future__ import annotations

import json
import os
import shlex
import tomllib
from pathlib import Path

import pytest
from temporalio.client import Client

from activities.agent.run import AgentActivities
from activities.agent.setup.agent_instructions import (
    give_instructions,
    load_instructions,
    toml_string,
)
from activities.shelf_paths import clone_path
from desk.agents.presets import AGENT_PRESETS, INSTRUCTIONS_PLACEHOLDERS
from desk.agents.standing_instructions import (
    BUILT_IN,
    BUILT_IN_NAME,
    MAX_INSTRUCTIONS_BYTES,
    REQUIRED_PARTS,
    missing_parts,
    owner_instructions,
)
from desk.config.settings import DeskSettings
from desk.errors import InstructionsError
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain
from tests.helpers.cli_helpers import assert_refused, run_cli, settings_env
from tests.helpers.repos import git

REPO = "acme/api"
OWNER_RULES = "Our house rules.\n\n" + "\n".join(
    # Reflowed and in another case: only the words count.
    " ".join(part.sentence.upper().split(" ")).replace(" THE ", "\n  the ", 1)
    for part in REQUIRED_PARTS
)


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    path = tmp_path / "owner" / "rules.md"
    path.parent.mkdir()
    path.write_text(OWNER_RULES)
    return path


@pytest.fixture
def settings(settings: DeskSettings, rules: Path) -> DeskSettings:
    """The owner replaces codedesk's instructions with their own file, and passes opencode's
    variables to the agent."""
    agent_env = [*settings.agent_env, "OPENCODE_*"]
    return settings.model_copy(update={"agent_instructions": rules, "agent_env": agent_env})


def test_each_preset_hands_the_instructions_over_its_own_way(tmp_path: Path) -> None:
    text = BUILT_IN.text
    given = {
        name: give_instructions(shlex.split(preset.command), preset.env, BUILT_IN, tmp_path)
        for name, preset in AGENT_PRESETS.items()
    }
    assert f"--append-system-prompt={text}" in given["claude"].argv
    codex = given["codex"].argv
    options = [codex[at + 1] for at, part in enumerate(codex) if part == "-c"]
    [option] = [part for part in options if part.startswith("developer_instructions=")]
    assert tomllib.loads(option)["developer_instructions"] == text
    aider_file = next(p for p in given["aider"].argv if p.startswith("--read="))
    assert Path(aider_file.removeprefix("--read=")).read_text() == text
    config = json.loads(given["opencode"].env["OPENCODE_CONFIG_CONTENT"])
    assert [Path(path).read_text() for path in config["instructions"]] == [text]
    for name, hand in given.items():
        assert not any(m in p for p in hand.argv for m in INSTRUCTIONS_PLACEHOLDERS), name
        if name in ("goose", "demo"):  # untested, or no model: it gets none, and says so
            assert hand.used is None and hand.files == ()
            continue
        assert hand.used is not None and hand.used.name == BUILT_IN_NAME, name
        assert hand.used.digest == BUILT_IN.digest and len(hand.used.digest) == 71
        assert AGENT_PRESETS[name].instructions_in, name
        # Beside the hook settings in the job's folder, never in the worktree.
        assert all(path.parent == tmp_path for path in hand.files), name


def test_a_command_without_a_placeholder_gets_no_instructions_and_no_files(tmp_path: Path) -> None:
    given = give_instructions(["my-agent", "--", "{task}"], (), BUILT_IN, tmp_path / "job")
    assert given.argv == ["my-agent", "--", "{task}"] and given.used is None
    assert not (tmp_path / "job").exists()


def test_a_text_or_task_that_spells_a_placeholder_stays_as_it_is(tmp_path: Path) -> None:
    spelled = "{task} {instructions_file} {instructions}"
    rules = owner_instructions("rules.md", f"{OWNER_RULES}\n{spelled}\n", "here")
    argv = ["agent", "--rules={instructions}", "--", "{task}"]
    given = give_instructions(argv, (), rules, tmp_path, task=spelled)
    assert given.argv == ["agent", f"--rules={rules.text}", "--", spelled]


@pytest.mark.parametrize(
    "text",
    ['say "hi" \\ there', "tab\tand\r\nbreaks\x00\x1f\x7f", "ünï 😀 {x} [a] = 'q'", ""],
)
def test_the_toml_form_reads_back_as_the_text(text: str) -> None:
    assert tomllib.loads(f"developer_instructions={toml_string(text)}") == {
        "developer_instructions": text
    }


def test_the_built_in_text_has_every_required_part_and_a_version() -> None:
    assert missing_parts(BUILT_IN.text) == []
    assert BUILT_IN_NAME == "codedesk v1" and "version 1" in BUILT_IN.text
    for word in ("CLAUDE.md", "AGENTS.md", "CONTRIBUTING", "checks", "commit conventions"):
        assert word in BUILT_IN.text, word


def test_a_replacement_without_required_parts_is_refused_naming_each() -> None:
    kept = [part for part in REQUIRED_PARTS if part.name not in ("commit", "refusals")]
    text = "Be nice.\n" + "\n".join(part.sentence for part in kept)
    with pytest.raises(InstructionsError) as refused:
        owner_instructions("rules.md", text, "'/etc/rules.md'")
    message = str(refused.value)
    assert "'/etc/rules.md' (CODEDESK_AGENT_INSTRUCTIONS)" in message
    for part in REQUIRED_PARTS:
        named = f'{part.name} ("{part.sentence}"' in message
        assert named == (part not in kept), part.name
    assert "unset CODEDESK_AGENT_INSTRUCTIONS" in message
    accepted = owner_instructions("rules.md", OWNER_RULES, "here")
    assert accepted.name == "owner's rules.md" and accepted.text == OWNER_RULES


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "cannot be read (No such file or directory)"),
        (b"  \n", "are empty"),
        (b"\xff\xfe rules", "cannot be read (it is not UTF-8 text)"),
        (OWNER_RULES.encode() + b"x" * MAX_INSTRUCTIONS_BYTES, "more than the 32768"),
        (b"Just do it.", "lack parts codedesk's guards rely on: worktree"),
    ],
)
def test_an_unusable_owner_file_is_refused(
    settings: DeskSettings, rules: Path, content: bytes | None, said: str
) -> None:
    if content is None:
        rules.unlink()
    else:
        rules.write_bytes(content)
    with pytest.raises(InstructionsError, match=said.replace("(", r"\(").replace(")", r"\)")):
        load_instructions(settings)


async def test_a_worker_with_unusable_instructions_does_not_start(
    settings: DeskSettings, client: Client, rules: Path
) -> None:
    rules.write_text("Do what you like.\n")
    with pytest.raises(InstructionsError, match="lack parts"):
        AgentActivities(settings, client)


async def test_a_job_on_a_host_whose_instructions_broke_is_refused_at_admission(
    desk: DeskClient, origin: Path, rules: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    rules.write_text("\n".join(p.sentence for p in REQUIRED_PARTS if p.name != "no shipping"))
    with pytest.raises(InstructionsError, match=r"no shipping \(\"Never push"):
        await desk.submit_job(REPO, "work")


async def test_the_agent_gets_the_owners_instructions_and_the_report_names_them(
    desk: DeskClient, origin: Path, rules: Path, tmp_path: Path
) -> None:
    """A custom command takes them by placeholder, as text and as a file the sandbox lets it
    read; the task, even one that spells a placeholder, stays as it was given."""
    await desk.add_repo(REPO, str(origin))
    script = (
        'cat "$0" > from-file.md && printf %s "$1" > from-text.md && printf %s "$2" > task.txt'
        " && git add -A && git commit -qm 'the instructions, as given'"
    )
    command = f"sh -c {shlex.quote(script)} {{instructions_file}} {{instructions}} {{task}}"
    task = "keep {instructions} as it is"
    admission = await desk.submit_job(REPO, task, agent_command=command)
    report = await desk.wait(admission.number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.instructions is not None and report.instructions.name == "owner's rules.md"
    owner = owner_instructions("rules.md", OWNER_RULES, "")
    assert report.instructions.digest == owner.digest

    clone = clone_path(desk.settings, REPO)
    for name, expected in (("from-file.md", OWNER_RULES), ("from-text.md", OWNER_RULES)):
        assert shown(clone, report.head, name) == expected, name
    assert shown(clone, report.head, "task.txt") == task
    lines = [line.strip() for line in plain(job_report(report))]
    assert f"instructions: owner's rules.md (sha256 {owner.digest[7:19]})" in lines, lines


def shown(clone: Path, commit: str, name: str) -> str:
    """The file `name` as commit `commit` of the clone has it."""
    return git(clone, "show", f"{commit}:{name}")


async def test_opencodes_config_variables_reach_it_and_the_owners_stay_as_they_are(
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    gates: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The preset's `OPENCODE_CONFIG_CONTENT` names the job's instructions (a stand-in
    `opencode` commits what it finds in its config variables), merged over the owner's own
    value of it; the owner's `OPENCODE_CONFIG` reaches the agent as it is, and a custom command
    may set a variable with `env`."""
    stand_in = gates / "opencode"
    stand_in.write_text(
        "#!/bin/sh\n"
        'printf %s "$OPENCODE_CONFIG_CONTENT" > content.json\n'
        'printf %s "$OPENCODE_CONFIG" > config-path.txt\n'
        "git add -A && git commit -qm config\n"
    )
    stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", f"{gates}:{os.environ['PATH']}")
    await desk.add_repo(REPO, str(origin))
    clone = clone_path(desk.settings, REPO)
    command = AGENT_PRESETS["opencode"].command
    report = await desk.wait((await desk.submit_job(REPO, "work", agent_command=command)).number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    config = json.loads(shown(clone, report.head, "content.json"))
    assert [Path(path).name for path in config["instructions"]] == ["instructions.md"]
    assert [Path(path).name for path in config["plugin"]] == ["codedesk-hold-plugin.js"]
    assert report.instructions is not None and report.instructions.name == "owner's rules.md"

    # The owner's own configuration: a file, and a content with its instructions.
    monkeypatch.setenv("OPENCODE_CONFIG", "/srv/opencode/server.json")
    owner = {"instructions": ["/srv/opencode/house-rules.md"], "model": "fake/gpt-fake"}
    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", json.dumps(owner))
    report = await desk.wait((await desk.submit_job(REPO, "work", agent_command=command)).number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert shown(clone, report.head, "config-path.txt") == "/srv/opencode/server.json"
    config = json.loads(shown(clone, report.head, "content.json"))
    assert config["model"] == "fake/gpt-fake"
    assert [Path(path).name for path in config["instructions"]] == [
        "house-rules.md",
        "instructions.md",
    ]
    assert report.instructions is not None

    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", "[1, 2]")
    report = await desk.wait((await desk.submit_job(REPO, "work", agent_command=command)).number)
    assert report.outcome == JobOutcome.FAILED, report
    assert "OPENCODE_CONFIG_CONTENT in the agent's environment is not a JSON object" in (
        report.reason
    )
    monkeypatch.delenv("OPENCODE_CONFIG_CONTENT")
    # A custom command sets the variable itself, as the owner chose.
    custom = "env OPENCODE_CONFIG={instructions_config} opencode run -- {task}"
    report = await desk.wait((await desk.submit_job(REPO, "work", agent_command=custom)).number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.instructions is not None


async def test_the_worker_command_refuses_to_start_naming_what_the_file_lacks(
    settings: DeskSettings, rules: Path, tmp_path: Path
) -> None:
    rules.write_text(REQUIRED_PARTS[0].sentence + "\n")
    env = settings_env(settings, CODEDESK_AGENT_INSTRUCTIONS=str(rules))
    result = await run_cli(env, "worker", cwd=tmp_path)
    reason = assert_refused(result, "CODEDESK_AGENT_INSTRUCTIONS", "commit (", "refusals (")
    assert "worktree (" not in reason, reason
