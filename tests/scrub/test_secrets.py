"""No credential reaches any place a person can see: jobs full of tokens, then every place searched.

Tokens of every scrubbed kind go into task texts, agent output (one wrapped over two lines, a
private key block), commit messages, file names, a held command, failing remote URLs and error
texts. Then the test reads what a person can: the CLI's reports (`--json` and text), `jobs`,
`logs`, `approvals`, the change report, the Temporal history and heartbeat details of every
workflow, the Discord renderings, every file under the home directory (but the clones, which
hold what the agent committed) and the worker's output; it counts the secrets found there.
"""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.errors import AgentCommandError
from desk.payloads.jobs import JobReport
from desk.payloads.ship_payloads import ChangeReport
from desk.scrub import SHAPES
from surfaces.clients.desk_client import DeskClient
from surfaces.render.discord.embeds import card_embed
from surfaces.render.discord.replies import change_report_text, report_text
from tests.helpers.agent_pids import agent_tag, codedesk_environment, running_agent
from tests.helpers.agents import agent_script
from tests.helpers.cli_helpers import run_cli, settings_env, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git, make_origin
from tests.helpers.waiting import eventually
from workflows.shipping.approval import Approval

REPO = "acme/api"

# Each secret: its kind, the whole token as it is written, and the part that must never show.
GHP_BODY = "Zq8vR2mK7pL4nW9xT3bY6cJ1hF5dG0sA2eU4"
WRAPPED_BODY = "Wr4pP3dT0k3nAbCdEfGhIjKlMnOpQrStUvWx"
PAT_BODY = "11AAAAAAA0Secretpatpart1_" + "Fg7Hj8Kl9Zx" * 5 + "Qw3Er4"
AKIA_BODY = "Q7XK2MZP4VNB8RTY"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYs3cr3tK3yAWS"
SECRETS: dict[str, tuple[str, str]] = {
    "github classic": ("ghp_" + GHP_BODY, GHP_BODY),
    "github fine-grained": ("github_pat_" + PAT_BODY, PAT_BODY[:30]),
    "gitlab": ("glpat-Gl4bT0k3nS3cr3tXyZ12", "Gl4bT0k3nS3cr3tXyZ12"),
    "slack": ("xoxb-2048-7777-SlAcKs3cr3tT0k3nV4lu3", "SlAcKs3cr3tT0k3nV4lu3"),
    "aws access key": ("AKIA" + AKIA_BODY, AKIA_BODY),
    "aws secret key": (f"aws_secret_access_key={AWS_SECRET}", AWS_SECRET),
    "anthropic": ("sk-ant-api03-Ant5ecretKeyMaterial_0123456789abcdef", "Ant5ecretKeyMaterial"),
    "openai": ("sk-proj-0p3nA1S3cr3tPr0j3ctK3yV4lu3_xyz", "0p3nA1S3cr3tPr0j3ctK3yV4lu3"),
    "jwt": (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.JwTs1gnatureS3cr3tPart",
        "JwTs1gnatureS3cr3tPart",
    ),
    "authorization header": ("Authorization: token H3ad3rS3cr3tV4lu3", "H3ad3rS3cr3tV4lu3"),
    "bearer token": ("Bearer B34r3rS3cr3tT0k3nV4lu3x", "B34r3rS3cr3tT0k3nV4lu3x"),
    "url user info": ("https://bob:Hunter2UrlS3cr3t@github.com/acme/api", "Hunter2UrlS3cr3t"),
}
PEM_LINES = [
    "-----BEGIN RSA PRIVATE KEY-----",
    "MIIEpAIBAAKCAQEAPr1v4t3K3yM4t3r14lL1n30n3AAAAAAAAAAAAAAAAAAAAAAAA",
    "Pr1v4t3K3yM4t3r14lL1n3Tw0BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB==",
    "-----END RSA PRIVATE KEY-----",
]
NEEDLES = {kind: needle for kind, (_, needle) in SECRETS.items()}
NEEDLES["private key"] = "Pr1v4t3K3yM4t3r14l"
NEEDLES["wrapped token, first line"] = WRAPPED_BODY[:14]
NEEDLES["wrapped token, second line"] = WRAPPED_BODY[-10:]
EVERY_SECRET = " ".join(token for token, _ in SECRETS.values())


def hold_step(command: str) -> str:
    return "hold:" + json.dumps({"tool": "Bash", "input": {"command": command}})


def payload_text(value: Any) -> str:
    """Every string in a proto's dict form, with payloads (base64 JSON) decoded."""
    if isinstance(value, dict):
        if "data" in value and "metadata" in value:
            return base64.b64decode(value["data"]).decode("utf-8", "replace")
        return "\n".join(payload_text(item) for item in value.values())
    if isinstance(value, list):
        return "\n".join(payload_text(item) for item in value)
    return str(value)


async def histories(client: Client) -> dict[str, str]:
    """The history of every workflow in the namespace, payloads decoded."""
    found: dict[str, str] = {}
    async for item in client.list_workflows(""):
        history = await client.get_workflow_handle(item.id, run_id=item.run_id).fetch_history()
        events = [MessageToDict(event) for event in history.events]
        found[f"history of {item.id} ({item.run_id})"] = payload_text(events)
    return found


def files_under(home: Path, skip: Path) -> dict[str, str]:
    return {
        str(path): path.read_text(errors="replace")
        for path in sorted(home.rglob("*"))
        if path.is_file() and skip not in path.parents
    }


def leaks(places: dict[str, str]) -> list[tuple[str, str]]:
    return [
        (place, kind)
        for place, text in places.items()
        for kind, needle in NEEDLES.items()
        if needle in text
    ]


async def test_no_secret_reaches_any_place_a_person_sees(
    settings: DeskSettings, client: Client, start_worker: StartWorker, tmp_path: Path, gates: Path
) -> None:
    env = settings_env(settings)
    places: dict[str, str] = {}

    async def cli(*args: str, name: str = "") -> subprocess.CompletedProcess[str]:
        result = await run_cli(env, *args, cwd=tmp_path)
        places[f"codedesk {name or ' '.join(args)}"] = result.stdout + result.stderr
        return result

    start_worker(env)
    origin = make_origin(tmp_path / "origins" / "acme" / "api.git")
    added = await cli("repo", "add", REPO, "--from", str(origin))
    assert added.returncode == 0, shown(added)
    # Failing remotes: user info refused; a token in a URL's path fails in git's own words.
    await cli("repo", "add", "acme/one", "--from", SECRETS["url user info"][0])
    bad_url = f"https://127.0.0.1:9/{SECRETS['github classic'][0]}/AKIA{AKIA_BODY}/tool.git"
    await cli("repo", "add", "acme/two", "--from", bad_url, name="repo add acme/two")
    # A clone whose remote URL (set by hand) holds a token fails to fetch in git's own words.
    tool_origin = make_origin(tmp_path / "origins" / "acme" / "tool.git")
    added = await cli("repo", "add", "acme/tool", "--from", str(tool_origin))
    assert added.returncode == 0, shown(added)
    tool_clone = settings.shelf_dir / "acme" / "tool"
    git(tool_clone, "remote", "set-url", "origin", bad_url)

    # Job 1 says every secret, holds a push with credentials (declined), commits and integrates.
    pushed = f'git -c http.extraheader="{SECRETS["authorization header"][0]}" push '
    pushed += f"{SECRETS['url user info'][0]} main"
    gate, tag = gates / "go", agent_tag()
    first = agent_script(
        gates,
        tag,
        *(f"say:found {token}" for token, _ in SECRETS.values()),
        *(f"say:{line}" for line in PEM_LINES),
        f"say:wrapped ghp_{WRAPPED_BODY[:20]}",
        f"say:{WRAPPED_BODY[20:]}",
        hold_step(pushed),
        "say:the push ran",
        f"wait:{gate}",
        f"write:key-AKIA{AKIA_BODY}.txt=aws",
        f"commit:Add the key AKIA{AKIA_BODY} and {SECRETS['github classic'][0]}",
    )
    task = f"Use these: {EVERY_SECRET}\n" + "\n".join(PEM_LINES)
    started = await cli("task", REPO, task, "--agent-command", first, name="task 1")
    assert started.returncode == 0, shown(started)
    number = started_number(started)

    listed = await eventually(
        lambda: cli("approvals"), lambda result: "approval-" in result.stdout, "an approval listed"
    )
    assert "Authorization: ***" in listed.stdout, shown(listed)
    ident = next(word for word in listed.stdout.split() if word.startswith("approval-job-"))
    job = client.get_workflow_handle(f"job-{number}")
    described = await job.describe()
    places["heartbeat details of the running agent"] = payload_text(
        MessageToDict(described.raw_description)
    )
    assert "ghp_***" in places["heartbeat details of the running agent"]
    [state] = [await client.get_workflow_handle_for(Approval.run, ident).query(Approval.current)]
    places["the approval's Discord card"] = json.dumps(
        card_embed(ident, state.request).to_dict(), ensure_ascii=False
    )
    # What the agent was told, read from outside while it waits (it may be sandboxed).
    told = codedesk_environment(await running_agent(settings.home, number, tag))
    declined = await cli("decline", ident)
    assert declined.returncode == 0, shown(declined)
    gate.touch()

    # Job 2 leaves an uncommitted file named after a token and fails with an error full of them.
    second = agent_script(
        gates,
        f"write:leak-{SECRETS['github classic'][0]}.txt=x",
        f"say:error: push to {SECRETS['url user info'][0]} failed: {EVERY_SECRET}",
        "exit:3",
    )
    started = await cli("task", REPO, "fail loudly", "--agent-command", second, name="task 2")
    assert started.returncode == 0, shown(started)
    failing = started_number(started)

    for n in (number, failing):
        shown_json = await eventually(
            lambda n=n: cli("show", str(n), "--json", name=f"show {n} --json"),
            lambda result: json.loads(result.stdout)["job"]["report"] is not None,
            f"job {n}'s report in `show --json`",
        )
        report = JobReport.model_validate(json.loads(shown_json.stdout)["job"]["report"])
        places[f"Discord report of job {n}"] = report_text(report)
        await cli("show", str(n))
        await cli("logs", str(n))
    await cli("jobs")
    await cli("jobs", "--json")
    made = await cli("report", REPO, "--json", name="report --json")
    assert made.returncode == 0, shown(made)
    change = ChangeReport.model_validate_json(made.stdout)
    places["Discord change report"] = change_report_text(change)
    await cli("report", REPO)
    failed = await cli("report", "acme/tool")
    assert failed.returncode != 0 and "AKIA***" in failed.stdout + failed.stderr, shown(failed)
    places.update(await histories(client))
    places.update(files_under(settings.home, skip=settings.shelf_dir))
    places.update({str(log): log.read_text(errors="replace") for log in tmp_path.glob("worker-*")})

    # The secrets were there, scrubbed, in the places that matter.
    first_report = places[f"codedesk show {number} --json"]
    for marker in ("ghp_***", "AKIA***", "sk-ant-***", "https://***@", "-----BEGIN RSA"):
        assert marker in first_report, marker
    assert "leak-ghp_***.txt" in places[f"codedesk show {failing} --json"]
    assert "AKIA***" in places["codedesk report --json"]
    assert "ghp_***" in told["CODEDESK_TASK"] and GHP_BODY not in told["CODEDESK_TASK"]
    written = [token for token, _ in SECRETS.values()] + ["\n".join(PEM_LINES)]
    for shape in SHAPES:  # a new shape gets a secret here too
        assert any(shape.pattern.search(token) for token in written), shape.name
    found = leaks(places)
    assert found == [], "\n".join(f"{kind} in {place}" for place, kind in found)


async def test_an_agent_command_with_a_credential_is_refused_before_anything_is_recorded(
    settings: DeskSettings, client: Client
) -> None:
    command = f"aider --api-key {SECRETS['anthropic'][0]} --message {{task}}"
    with pytest.raises(AgentCommandError) as refused:
        await DeskClient(client, settings).submit_job(REPO, "tidy", agent_command=command)
    message = str(refused.value)
    assert "holds a credential" in message and "sk-ant-***" in message
    assert NEEDLES["anthropic"] not in message
    assert [item async for item in client.list_workflows("")] == []
