"""What approving a card does, in words, when it is not "the call runs as shown".

An agent's plain push to the default branch never runs in the sandbox (it could not reach the
origin): approving it asks codedesk to push the job's integrated commit, behind its own card.
That push's card names the agent's request it carries out. A sandboxed call that writes or
removes outside the worktree (`rm -rf` of a path elsewhere) cannot do it on the host, and its
card says so. Every target shows these words before anyone answers, so no button promises
what cannot happen.
"""

from __future__ import annotations

from desk.holds.approvals import ApprovalRequest
from surfaces.render.layout.work_rounds.budget_layout import budget_effect
from surfaces.render.layout.work_rounds.check_layout import check_said


def approval_effect(request: ApprovalRequest) -> str:
    """The words for what an approval of `request` does, or "" when the call simply runs."""
    if request.budget is not None:
        return budget_effect(request.budget)
    if request.ships_to:
        return (
            "Approving does not run this command in the agent's sandbox (it cannot reach the "
            f"origin): codedesk will ask to push the job's commits to {request.ships_to} once "
            "the job integrates, and an owner approves that exact commit on its own card."
        )
    if request.pushes_to:
        return (
            "Approving does not run this command in the agent's sandbox (it cannot reach the "
            f"origin): codedesk will push exactly {request.push_head} (the job's HEAD now) to "
            f"{request.pushes_to} on the origin once the agent's run ends, never forced, with "
            "the host's credentials."
        )
    asked = request.agent_ship
    if asked is not None:
        by = f", approved by {asked.approved_by}" if asked.approved_by else ""
        return (
            f"This push carries out job {asked.job}'s agent's request to push to "
            f"{asked.branch} ({asked.approval_id}{by}): approve only this exact commit."
            + check_said(asked.check)
        )
    said = []
    if request.confined and "push" in request.classes:
        said.append(
            "If approved, this runs inside the agent's sandbox, which has no credentials and no "
            "route to the origin: a push from there cannot reach the origin. codedesk itself "
            "ships only a plain push of the job's work to the default branch "
            "(`git push origin HEAD:<default branch>`), or `codedesk report` and `codedesk push`."
        )
    if request.outside_sandbox:
        said.append(OUTSIDE_SANDBOX)
    return " ".join(said)


OUTSIDE_SANDBOX = (
    "If approved, this runs inside the agent's sandbox, where only the job's worktree is "
    'writable: what it writes or removes outside the worktree fails there ("Read-only file '
    "system\") or stays in the sandbox's own /tmp and home, which go with the job. It cannot "
    "change those paths on this host; do that yourself if it must happen."
)
"""The words for a sandboxed call that reaches outside its worktree (`outside_sandbox`)."""
