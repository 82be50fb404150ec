"""An agent's approved plain push to the default branch: codedesk ships it, not the sandbox."""

from __future__ import annotations

from pathlib import Path

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, HoldVerdict, Principal
from desk.names import push_workflow_id
from desk.payloads.jobs import JobOutcome
from desk.payloads.ship_payloads import PushStatus
from desk.payloads.ship_requests import BranchPushStatus, ShipRequestStatus
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.render.layout.approval_layout import approval_card
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain
from tests.helpers.agents import agent
from tests.helpers.job_waits import open_ids
from tests.helpers.jobs.shipping import PLAIN, push_call
from tests.helpers.repos import git
from tests.helpers.waiting import eventually


async def test_an_approved_plain_push_becomes_a_push_of_the_integrated_sha(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    before = git(origin, "rev-parse", "main")
    number = await desk.start_job(
        "acme/api",
        "greet and push",
        agent_command=agent(
            "write:hello.txt=hi",
            "commit:greet",
            f"hold:{PLAIN}",
            "say:the held call",  # a refused hold skips its next step, the call it held
            f"hold:{PLAIN}",
            "say:the held call",
            "say:ended",
        ),
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    [state] = [s for s in await approvals.open_approvals() if s.approval_id == ident]
    assert state.request.ships_to == "main"
    card = "\n".join(plain(approval_card(state, value_chars=200)))
    assert "does not run this command in the agent's sandbox" in card, card
    assert "push the job's commits to main once the job integrates" in card, card
    owner = Principal(id=settings.owner)
    result, _ = await approvals.answer(ident, Decision.APPROVE, owner)
    assert result.counted, result
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    # The command never ran in the sandbox: both calls were refused with what will happen, the
    # second identical call joined the first approval, and the agent went on to its end.
    assert report.output.count("codedesk will ask to push your commits to main") == 2, report
    assert "\nended\n" in report.output and "\nthe held call\n" not in report.output
    assert [c.verdict for c in report.held_calls] == [HoldVerdict.SHIP_REQUESTED]
    [shipped] = report.ship_requests
    assert shipped.status == ShipRequestStatus.REQUESTED, shipped
    assert shipped.sha == report.head and shipped.branch == "main"
    assert shipped.agent_approvals == [ident]
    assert shipped.push_workflow_id == push_workflow_id("acme/api", report.head)
    assert git(origin, "rev-parse", "main") == before  # nothing moves before an owner approves

    [push] = await eventually(
        approvals.open_approvals,
        lambda states: [s for s in states if s.approval_id == shipped.push_approval_id],
        f"the push approval {shipped.push_approval_id} to open",
    )
    assert push.request.input["sha"] == report.head
    assert push.request.agent_ship is not None and push.request.agent_ship.approval_id == ident
    push_card = "\n".join(plain(approval_card(push, value_chars=200)))
    assert f"job {number}'s agent's request to push to main ({ident}" in push_card, push_card
    answered, _ = await approvals.answer(shipped.push_approval_id, Decision.APPROVE, owner)
    assert answered.counted, answered
    ship = desk.client.get_workflow_handle(shipped.push_workflow_id)
    pushed = await ship.result()
    assert pushed["status"] == PushStatus.PUSHED.value, pushed
    assert git(origin, "rev-parse", "main") == report.head


async def test_a_declined_plain_push_moves_nothing(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    before = git(origin, "rev-parse", "main")
    number = await desk.start_job(
        "acme/api",
        "greet and push",
        agent_command=agent("write:hello.txt=hi", "commit:greet", f"hold:{PLAIN}"),
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    result, _ = await approvals.answer(ident, Decision.DECLINE, Principal(id=settings.owner))
    assert result.counted, result
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.ship_requests == []
    assert [c.verdict for c in report.held_calls] == [HoldVerdict.DECLINED]
    assert not [s for s in await approvals.open_approvals() if s.request.tool == "git push"]
    assert git(origin, "rev-parse", "main") == before


async def test_a_forced_push_is_an_ordinary_hold(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    number = await desk.start_job(
        "acme/api",
        "force it",
        agent_command=agent(f"hold:{push_call('git push --force origin HEAD:main')}"),
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    [state] = [s for s in await approvals.open_approvals() if s.approval_id == ident]
    assert state.request.ships_to == ""
    result, _ = await approvals.answer(ident, Decision.DECLINE, Principal(id=settings.owner))
    assert result.counted
    report = await desk.wait(number)
    assert report.ship_requests == []


async def test_an_approved_push_of_a_job_that_fails_asks_for_nothing(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    number = await desk.start_job(
        "acme/api",
        "push, then fail",
        agent_command=agent(
            "write:hello.txt=hi", "commit:greet", f"hold:{PLAIN}", "say:held", "exit:1"
        ),
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    result, _ = await approvals.answer(ident, Decision.APPROVE, Principal(id=settings.owner))
    assert result.counted, result
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.FAILED, report
    [shipped] = report.ship_requests
    assert shipped.status == ShipRequestStatus.NOT_INTEGRATED, shipped
    assert shipped.agent_approvals == [ident] and not shipped.push_workflow_id
    said = "\n".join(plain(job_report(report)))
    assert "the job did not integrate, so there is no commit to ship" in said, said
    assert not [s for s in await approvals.open_approvals() if s.request.agent_ship]


FEATURE = push_call("git push origin HEAD:feature")


async def test_an_approved_push_to_a_branch_pushes_the_head_of_the_call_once(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    before = git(origin, "rev-parse", "main")
    number = await desk.start_job(
        "acme/api",
        "push a branch",
        agent_command=agent(
            "write:a.txt=a",
            "commit:a",
            f"hold:{FEATURE}",
            "say:the held call",
            "write:b.txt=b",
            "commit:b",
        ),
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    [state] = [s for s in await approvals.open_approvals() if s.approval_id == ident]
    assert (state.request.ships_to, state.request.pushes_to) == ("", "feature"), state.request
    card = " ".join(" ".join(plain(approval_card(state, value_chars=200))).split())
    assert f"codedesk will push exactly {state.request.push_head}" in card, card
    result, _ = await approvals.answer(ident, Decision.APPROVE, Principal(id=settings.owner))
    assert result.counted, result
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    first, _ = report.commits
    assert state.request.push_head == first.sha, (state.request, report.commits)
    assert f"codedesk will push {first.sha[:12]} (your HEAD when you asked) to feature" in (
        report.output
    ), report.output
    [pushed] = report.branch_pushes
    assert (pushed.status, pushed.sha, pushed.branch) == (
        BranchPushStatus.PUSHED,
        first.sha,
        "feature",
    )
    assert not pushed.already and report.ship_requests == []
    assert git(origin, "rev-parse", "feature") == first.sha  # the HEAD of the call, not later
    assert git(origin, "rev-parse", "main") == before
    said = "\n".join(plain(job_report(report)))
    assert f"pushed {first.sha} to feature" in said, said


async def test_an_approved_push_to_a_branch_is_never_forced(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    tree = git(origin, "rev-parse", "main^{tree}")
    elsewhere = git(origin, "commit-tree", tree, "-m", "someone else's feature")
    git(origin, "update-ref", "refs/heads/feature", elsewhere)
    number = await desk.start_job(
        "acme/api",
        "push a branch",
        agent_command=agent("write:a.txt=a", "commit:a", f"hold:{FEATURE}"),
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    result, _ = await approvals.answer(ident, Decision.APPROVE, Principal(id=settings.owner))
    assert result.counted, result
    report = await desk.wait(number)
    [refused] = report.branch_pushes
    assert refused.status == BranchPushStatus.REFUSED, refused
    assert "never forces" in refused.reason, refused
    assert git(origin, "rev-parse", "feature") == elsewhere
