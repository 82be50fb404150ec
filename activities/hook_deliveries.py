"""Result hooks: one delivery of a job's report or a push's result to the host's webhook or
command. Temporal retries a failed delivery (ResultHookError is retryable) for the host's
window, with the same delivery id each time: at least once, across worker crashes."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import shlex
import signal
import urllib.error
import urllib.request

from temporalio import activity

from desk.config.settings import DeskSettings
from desk.errors import ResultHookError
from desk.failures import desk_failures
from desk.payloads.result_payloads import DeliveryRequest
from desk.policy.result_hooks import ResultHook
from desk.scrub import scrub

OUTPUT_CHARS = 500
"""Characters of a failing hook's answer or output kept in its error."""

SIGNATURE_HEADER = "X-Codedesk-Signature"
DELIVERY_HEADER = "X-Codedesk-Delivery"
EVENT_HEADER = "X-Codedesk-Event"


def signature(secret: str, body: bytes) -> str:
    """The webhook's signature header value: `sha256=` and the HMAC-SHA256 of the body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class ResultActivities:
    """Deliveries, with the URL, secret and command of this worker's settings."""

    def __init__(self, settings: DeskSettings) -> None:
        self.settings = settings

    @activity.defn
    async def deliver_result(self, request: DeliveryRequest) -> None:
        """Deliver one result to one hook; raise ResultHookError when it is not taken."""
        with desk_failures():
            if request.hook == ResultHook.WEBHOOK:
                await asyncio.to_thread(self._post, request)
            else:
                await self._run_command(request)

    def _post(self, request: DeliveryRequest) -> None:
        url = self.settings.result_webhook
        if not url:
            raise ResultHookError(
                "This worker has no CODEDESK_RESULT_WEBHOOK: give every worker of the desk the "
                "same result hook settings."
            )
        body = request.body()
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "codedesk",
            DELIVERY_HEADER: request.delivery_id,
            EVENT_HEADER: request.event.value,
        }
        secret = self.settings.result_webhook_secret.get_secret_value()
        if secret:
            headers[SIGNATURE_HEADER] = signature(secret, body)
        ask = urllib.request.Request(url, data=body, headers=headers, method="POST")
        timeout = self.settings.result_hook_timeout.total_seconds()
        try:
            with urllib.request.urlopen(ask, timeout=timeout) as answer:  # noqa: S310 (http(s) only)
                answer.read(OUTPUT_CHARS)
        except urllib.error.HTTPError as error:
            said = error.read(OUTPUT_CHARS).decode(errors="replace")
            raise ResultHookError(
                f"The result webhook answered {error.code} {error.reason}: {scrub(said)}"
            ) from None
        except (urllib.error.URLError, OSError) as error:
            why = getattr(error, "reason", error)
            raise ResultHookError(f"The result webhook cannot be reached: {why}.") from None

    async def _run_command(self, request: DeliveryRequest) -> None:
        command = self.settings.result_command
        if not command:
            raise ResultHookError(
                "This worker has no CODEDESK_RESULT_COMMAND: give every worker of the desk the "
                "same result hook settings."
            )
        env = {
            **os.environ,
            "CODEDESK_DELIVERY": request.delivery_id,
            "CODEDESK_EVENT": request.event.value,
        }
        try:
            process = await asyncio.create_subprocess_exec(
                *shlex.split(command),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        except (OSError, ValueError) as error:
            raise ResultHookError(f"The result command cannot start: {error}.") from None
        timeout = self.settings.result_hook_timeout.total_seconds()
        try:
            output, _ = await asyncio.wait_for(process.communicate(request.body()), timeout)
        except TimeoutError:
            os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
            raise ResultHookError(
                f"The result command did not finish within {timeout:g}s."
            ) from None
        if process.returncode:
            said = scrub(output.decode(errors="replace")[-OUTPUT_CHARS:].strip())
            raise ResultHookError(
                f"The result command exited {process.returncode}"
                + (f": {said}" if said else " with no output.")
            )
