"""The admission webhooks during the chaos: `dynamo-operator webhook-server` on 127.0.0.1 and a
URL-based ValidatingWebhookConfiguration selecting the run's namespaces (by a label), so a
stopped server blocks nobody else on the cluster.

An outage stops the server for a while with the configuration's failurePolicy set first: with
Fail the API server refuses every create and update of the Dynamo kinds meanwhile (the user's and
the operator's component writes: both must retry), with Ignore it lets them in unvalidated. The
server keeps its CA in its certificate directory, so a restart serves the same chain. Outages
take turns: two side by side started two servers on one port, and the first one outlived the run.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import anyio
import anyio.to_thread

from e2e.localcluster.ports import free_port
from e2e.support.chaos.retry import retrying
from e2e.support.webhooks import start_webhook_server
from manager.runtime.client import RestClient
from webhooks import (
    VALIDATING_WEBHOOK_CONFIGURATION,
    UrlTarget,
    build_validating_webhook_configuration,
)

FailurePolicy = Literal["Fail", "Ignore"]
POLICY_WITHIN = 120.0
RUN_LABEL = "dynamo-chaos-run"
"""The label on the run's namespaces the configuration selects."""


@dataclass
class ChaosWebhook:
    rest: RestClient
    run_id: str
    directory: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    outages: int = 0
    _turn: anyio.Lock = field(default_factory=anyio.Lock)

    @property
    def name(self) -> str:
        return f"dynamo-chaos-{self.run_id}"

    async def start(self) -> None:
        """Serve, then register (or re-point) the configuration at this server."""
        await self._serve()
        document = build_validating_webhook_configuration(
            UrlTarget(f"https://127.0.0.1:{self.port}"),
            name=self.name,
            operator_namespace=f"chaos-{self.run_id}",
            ca_bundle_pem=(self.directory / "ca.crt").read_bytes(),
            namespace_selector={"matchLabels": {RUN_LABEL: self.run_id}},
        )
        await self.rest.apply(VALIDATING_WEBHOOK_CONFIGURATION, document, field_manager="chaos")

    async def outage(self, policy: FailurePolicy, seconds: float) -> None:
        """The server down for `seconds`, the configuration's failurePolicy `policy` meanwhile."""
        async with self._turn:
            await self._set_policy(policy)
            await self._stop()
            self.outages += 1
            await anyio.sleep(seconds)
            await self._serve()

    async def remove(self) -> None:
        await self.rest.delete(VALIDATING_WEBHOOK_CONFIGURATION, None, self.name)
        await self._stop()

    async def _set_policy(self, policy: FailurePolicy) -> None:
        """Retried while the API server is down: an outage may fall on one of its restarts."""
        await retrying(
            f"failurePolicy {policy}", lambda: self._patch_policy(policy), within=POLICY_WITHIN
        )

    async def _patch_policy(self, policy: FailurePolicy) -> None:
        current = await self.rest.get(VALIDATING_WEBHOOK_CONFIGURATION, None, self.name)
        webhooks = [{**webhook, "failurePolicy": policy} for webhook in current["webhooks"]]
        await self.rest.merge_patch(
            VALIDATING_WEBHOOK_CONFIGURATION,
            None,
            self.name,
            {"webhooks": webhooks},
            field_manager="chaos",
        )

    async def _serve(self) -> None:
        self.process = await anyio.to_thread.run_sync(
            start_webhook_server, self.port, self.directory
        )

    async def _stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            await anyio.to_thread.run_sync(self.process.wait, 30)
        self.process = None
