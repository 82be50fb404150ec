"""`codedesk doctor`'s checks: the server, the workers, search attributes, and each host's tools.

Each check is a line with a status: ok, warn (works, but worth knowing), fail (codedesk cannot
work as configured), skip (could not be checked, and says why). What a job needs on the host
that runs it (git, the agent's program, the sandbox) is asked of a worker, not of this machine.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import asdict, dataclass
from datetime import timedelta
from importlib.metadata import packages_distributions

from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.client import Client, WorkflowQueryFailedError
from temporalio.service import RPCError

from activities.checks.host_checks import OWN_PACKAGES, import_problem, import_roots, program_of
from desk.config.basics.dates import shown_date
from desk.config.basics.defaults import config_file
from desk.config.basics.setting_names import unknown_settings
from desk.config.settings import DeskSettings
from desk.errors import DeskError
from desk.names import DESK_WORKFLOW_ID, HOST_CHECK_PREFIX, SEARCH_ATTRIBUTES
from desk.payloads.jobs import HostReport, HostReportInput
from surfaces.clients.listings.worker_check import live_pollers, no_worker
from surfaces.clients.patch_standings import patch_standings
from surfaces.clients.result_deliveries import troubled_deliveries
from surfaces.render.layout.report_layout import delivery_lines
from surfaces.render.words.policy_words import policy_differences, policy_lines
from workers.temporal.client import connect, resolve_address
from workflows.desk.desk_entity import Desk
from workflows.host.host_check_workflow import HostCheck
from workflows.reasons import reason_of

HOST_CHECK_WAIT = timedelta(seconds=30)
DISTRIBUTION = "codedesk"


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | warn | fail | skip
    detail: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


async def run_checks(settings: DeskSettings) -> list[Check]:
    """Every check, in the order a person fixes things: server, worker, then the host's tools."""
    checks = [_local_imports(), _discord_token(settings), *await _discord_permissions(settings)]
    checks.append(_setting_names())
    try:
        address = resolve_address(settings)
        client = await connect(settings, address)
        await client.service_client.check_health()
    except (DeskError, RuntimeError) as error:
        return [Check("server", "fail", str(error)), *checks, *_skipped("no server")]
    checks.insert(0, Check("server", "ok", f"Temporal at {address}, namespace {client.namespace}"))
    checks.append(await _search_attributes(client))
    checks.append(await _patches(client))
    pollers = await live_pollers(client, settings.task_queue)
    if not pollers:
        checks.append(Check("worker", "fail", no_worker(settings.task_queue)))
        return checks + _skipped("no worker")
    polling = f"{len(pollers)} polling task queue {settings.task_queue!r}: {', '.join(pollers)}"
    checks.append(Check("worker", "ok", polling))
    checks.append(await _host_policy(client, settings))
    checks.append(await _result_hooks(client, settings))
    report = await client.execute_workflow(
        HostCheck.run,
        HostReportInput(agent_command=settings.agent_command),
        id=f"{HOST_CHECK_PREFIX}{uuid.uuid4()}",
        task_queue=settings.task_queue,
        execution_timeout=HOST_CHECK_WAIT,
    )
    return checks + host_checks(report, settings)


def host_checks(report: HostReport, settings: DeskSettings) -> list[Check]:
    """The worker's host: git, the configured agent, each preset, the sandbox, its imports."""
    where = f"on the worker's host ({report.host})"
    checks = [
        Check("git", "ok", f"{report.git} {where}")
        if report.git
        else Check("git", "fail", f"{report.git_problem} {where}: install git there"),
    ]
    agent = report.agent_program or program_of(settings.agent_command)
    if report.agent_path:
        checks.append(Check("agent", "ok", f"{agent} at {report.agent_path} {where}"))
    else:
        checks.append(
            Check(
                "agent",
                "fail",
                f"{agent!r} (CODEDESK_AGENT_COMMAND) is not on the PATH {where}: install it, "
                "or set CODEDESK_AGENT_COMMAND to an agent that is",
            )
        )
    for name, path in sorted(report.programs.items()):
        version = report.preset_versions.get(name, "")
        problem = report.preset_problems.get(name, "")
        if not path:
            checks.append(
                Check(f"preset {name}", "warn", f"not installed {where}: `--agent {name}` fails")
            )
        elif problem:
            checks.append(Check(f"preset {name}", "warn", f"{problem} (at {path})"))
        else:
            shown = f"version {version} " if version else ""
            checks.append(Check(f"preset {name}", "ok", f"{shown}found at {path}"))
        if path and name in report.preset_sandbox:
            lacks = report.preset_sandbox[name]
            checks.append(
                Check(f"preset {name} (sandbox)", "warn", lacks)
                if lacks
                else Check(f"preset {name} (sandbox)", "ok", "`--version` starts in the sandbox")
            )
    checks.append(Check("sandbox", report.sandbox_status, report.sandbox))
    problem = import_problem(report.imports)
    checks.append(
        Check("imports (worker)", "fail", problem)
        if problem
        else Check("imports (worker)", "ok", _one_root(report.imports))
    )
    return checks


def _local_imports() -> Check:
    """This environment: codedesk's packages are its own, and no other distribution has them."""
    roots = import_roots()
    problem = import_problem(roots)
    if problem:
        return Check("imports", "fail", problem)
    shared = {
        name: sorted(set(owners) - {DISTRIBUTION})
        for name, owners in packages_distributions().items()
        if name in OWN_PACKAGES and set(owners) - {DISTRIBUTION}
    }
    if shared:
        clashes = "; ".join(f"{name} also from {', '.join(who)}" for name, who in shared.items())
        return Check(
            "imports",
            "fail",
            f"{clashes}: install codedesk into an environment of its own (pipx, uv tool, make)",
        )
    return Check("imports", "ok", _one_root(roots))


def _one_root(roots: dict[str, str]) -> str:
    folder = next(iter(roots.values()))
    return f"{', '.join(OWN_PACKAGES)} are codedesk's own (from {folder.rsplit('/', 1)[0]})"


def _discord_token(settings: DeskSettings) -> Check:
    if settings.discord_token.get_secret_value():
        return Check("discord token", "ok", "set (its value is never shown)")
    return Check("discord token", "skip", "not set: the Discord bot does not run")


async def _discord_permissions(settings: DeskSettings) -> list[Check]:
    """The bot's Message Content intent (with a token) and its permissions in each configured
    guild (with guilds too)."""
    token = settings.discord_token.get_secret_value()
    if not token:
        return []
    from surfaces.discord.permission_check import content_intent, guild_permissions

    checks = [_content_check(await content_intent(token))]
    if not settings.discord_guild_ids:
        return checks
    for verdict in await guild_permissions(token, list(settings.discord_guild_ids)):
        name = f"discord guild {verdict.guild}"
        if verdict.problem:
            checks.append(Check(name, "warn", verdict.problem))
        elif verdict.missing:
            lacks = ", ".join(verdict.missing)
            fix = "give the bot's role these, or a job's thread may fall silent"
            checks.append(Check(name, "warn", f"the bot lacks {lacks}: {fix}"))
        else:
            checks.append(Check(name, "ok", "the bot may post, open, reopen and archive threads"))
    return checks


def _content_check(enabled: bool | str) -> Check:
    name = "discord message content"
    if isinstance(enabled, str):
        return Check(name, "warn", f"could not tell whether the intent is on: {enabled}")
    if enabled:
        return Check(name, "ok", "the intent is on: people's messages in a job's thread reach it")
    return Check(
        name,
        "warn",
        "the Message Content intent is off: enable it in the Developer Portal → your "
        "application → Bot → Privileged Gateway Intents, or the bot cannot connect (it reads "
        "what people write in a job's thread)",
    )


async def _search_attributes(client: Client) -> Check:
    listing = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=client.namespace)
    )
    missing = [key.name for key in SEARCH_ATTRIBUTES if key.name not in listing.custom_attributes]
    if missing:
        return Check(
            "search attributes",
            "fail",
            f"{', '.join(missing)} missing in namespace {client.namespace}: a starting worker "
            "registers them (`codedesk worker`), or add them with `temporal operator`",
        )
    return Check("search attributes", "ok", ", ".join(key.name for key in SEARCH_ATTRIBUTES))


async def _host_policy(client: Client, settings: DeskSettings) -> Check:
    """The policy the desk judges every job and push by, and where this process says otherwise."""
    handle = client.get_workflow_handle_for(Desk.run, DESK_WORKFLOW_ID)
    try:
        state = await handle.query(Desk.current, rpc_timeout=HOST_CHECK_WAIT)
    except (RPCError, WorkflowQueryFailedError) as error:
        return Check("host policy", "fail", f"the desk did not answer: {reason_of(error)}")
    policy = state.policy
    if policy is None:
        return Check(
            "host policy",
            "fail",
            "the desk has none, so it admits no job: restart `codedesk worker` (this version)",
        )
    source = f"from host {policy.source}" + (
        f", since {shown_date(policy.set_at, settings.time_zone)}" if policy.set_at else ""
    )
    lines = "; ".join(policy_lines(policy))
    differences = policy_differences(settings.host_policy, policy)
    if differences:
        return Check(
            "host policy",
            "warn",
            f"{source}: {lines}. This process's settings differ and have no effect on jobs or "
            f"pushes from here: {'; '.join(differences)}",
        )
    return Check("host policy", "ok", f"{source}: {lines}")


async def _result_hooks(client: Client, settings: DeskSettings) -> Check:
    """Whether results reach the host's hooks: each delivery whose receiver keeps refusing."""
    troubled = await troubled_deliveries(client)
    if troubled:
        said = "; ".join(
            f"{view.workflow_id} {line}" for view in troubled for line in delivery_lines(view)
        )
        return Check("result hooks", "warn", f"receivers refusing: {said}")
    hooks = settings.host_policy.result_hooks
    if not hooks:
        return Check("result hooks", "skip", "none set (CODEDESK_RESULT_WEBHOOK, _COMMAND)")
    return Check("result hooks", "ok", f"{', '.join(hooks)}: no delivery is failing")


async def _patches(client: Client) -> Check:
    """The patch ledger against the running workflows: any this version cannot replay (on a
    retired patch's old branch) fails; the patches still needed are worth knowing."""
    standings = await patch_standings(client)
    stuck = {ident: standing.patch.name for standing in standings for ident in standing.stuck}
    if stuck:
        named = ", ".join(f"{ident} ({name})" for ident, name in sorted(stuck.items()))
        return Check(
            "patches",
            "fail",
            f"this version cannot replay {named}: on the old branch of a retired patch. Run "
            "the version before until they end, or terminate them "
            "(`temporal workflow terminate --workflow-id ID`).",
        )
    needed = [standing for standing in standings if not standing.can_retire]
    if not needed:
        return Check("patches", "ok", "no running workflow may still need an old branch")
    running = {run.workflow_id for standing in needed for run in standing.may_need}
    return Check(
        "patches",
        "ok",
        f"{len(needed)} of {len(standings)} patches may still be needed by {len(running)} "
        "running workflows (`codedesk patches` lists them)",
    )


def _setting_names() -> Check:
    """Variables and codedesk.toml keys that name no setting: ignored, so likely a typo."""
    unknown = unknown_settings(os.environ, config_file())
    if unknown:
        return Check("setting names", "warn", " ".join(unknown))
    return Check("setting names", "ok", "every CODEDESK_* variable and codedesk.toml key is known")


def _skipped(why: str) -> list[Check]:
    return [
        Check(name, "skip", f"not checked: {why}")
        for name in ("host policy", "git", "agent", "sandbox", "imports (worker)")
    ]
