"""A job as the desk admits it: every policy field from the host, the request's asks checked."""

from __future__ import annotations

from desk.errors import PolicyError
from desk.payloads.jobs import JobInput
from desk.policy.host import (
    HOLD_CLASS_NAMES,
    HostPolicy,
    JobAsk,
    judged_budget,
    judged_hold_classes,
    judged_spend_limit,
)


def judge_job(job: JobInput, ask: JobAsk, policy: HostPolicy) -> JobInput:
    """`job` with the host's policy in place of whatever its requester sent.

    Raises:
        PolicyError: the ask is looser than the host allows, or names an unknown hold class.
    """
    unknown = sorted(set(ask.hold_classes) - set(HOLD_CLASS_NAMES))
    if unknown:
        raise PolicyError(
            f"Unknown hold classes {', '.join(unknown)}: ask for "
            f"{', '.join(HOLD_CLASS_NAMES)}. Nothing was started."
        )
    if len(job.attempts) > policy.attempts_max:
        raise PolicyError(
            f"{len(job.attempts)} attempts asked for, and the host allows at most "
            f"{policy.attempts_max} (CODEDESK_ATTEMPTS_MAX): ask for fewer. Nothing was started."
        )
    return job.model_copy(
        update={
            "budget": judged_budget(ask, policy),
            "spend_limit": judged_spend_limit(ask, policy),
            "owners": list(policy.owners),
            "hold_classes": judged_hold_classes(ask, policy),
            "hold_tools": list(policy.hold_tools),
            "yolo_carded_classes": list(policy.yolo_carded_classes),
            "yolo_allow": list(policy.yolo_allow),
            "long_running_check": policy.long_running_check,
            "long_running_max": policy.long_running_max,
            "budget_asks": policy.budget_asks_max if policy.budget_asks else 0,
            "work_budget_max": policy.work_budget_max,
            "host_spend_limit": policy.job_spend_limit,
            "output_chars": policy.report_output_chars,
            "report_commits": policy.report_commits,
            "report_files": policy.report_files,
            "report_held_calls": policy.report_held_calls,
            "report_held_chars": policy.report_held_chars,
            "message_chars": policy.message_chars,
            "session_keep": policy.session_keep,
            "policy_source": policy.source or "(unnamed host)",
            "result_hooks": policy.result_delivery,
            "git_heartbeat_timeout": policy.git_heartbeat_timeout,
        }
    )
