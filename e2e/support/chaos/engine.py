"""A chaos run: graphs created and edited while the schedule's faults land, then the end checks.

`run_chaos` creates the run's namespaces (labelled for the webhook), starts the webhook server
and the operator, creates the graphs and runs the schedule: faults one after the other at their
moments (a fault that takes time, an API server restart, delays the next), user edits and webhook
outages beside them. After the last one it waits for the cluster to match the user's last word
(`reconverge_s`, from the end of the last fault), then counts the operator's writes over a steady
period. It reports; the caller asserts (the test) or prints (the bench).
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import anyio
import anyio.abc
import anyio.to_thread

from dynamo_operator.settings import OperatorSettings
from e2e.support.chaos.checks import EndState, PvcLedger, note_pvcs, read_end_state
from e2e.support.chaos.operators import OperatorFleet
from e2e.support.chaos.plan import EDIT_KINDS, ChaosPlan, Step, build_schedule
from e2e.support.chaos.user import ChaosUser
from e2e.support.chaos.webhook import ChaosWebhook, FailurePolicy
from e2e.support.graphs import is_converged
from e2e.support.kinds import GRAPH
from manager.runtime.client import KubeError, NotFound, RestClient
from manager.runtime.kinds import NAMESPACE

RELIST_WITHIN = 60.0
"""How long to wait for the operator to relist after a compaction (it does once its watch
reconnects with the compacted resourceVersion)."""
PROGRESS_SECONDS = 10.0
PVC_SAMPLE_SECONDS = 5.0


class ControlPlaneFaults(Protocol):
    def restart_apiserver(self) -> None: ...

    def compact_etcd(self) -> int: ...

    def restart_crashed(self) -> list[str]: ...


@dataclass
class ChaosTarget:
    rest: RestClient
    kubeconfig: Path
    control_plane: ControlPlaneFaults
    log_dir: Path
    settings: OperatorSettings
    """What the operator renders on this cluster (the optional APIs it serves)."""


@dataclass
class ChaosReport:
    seed: int
    fleet: OperatorFleet
    user: ChaosUser
    injected: dict[str, int] = field(default_factory=dict)
    end: EndState = field(default_factory=EndState)
    reconverged: bool = False
    reconverge_s: float = float("nan")
    steady_writes: float = float("nan")
    relists_observed: int = 0
    chaos_s: float = 0.0
    control_plane_restarts: list[str] = field(default_factory=list)
    """Controllers of the control plane that exited and were started again (not the operator's:
    see `LocalCluster.restart_crashed`)."""


async def run_chaos(
    target: ChaosTarget,
    plan: ChaosPlan,
    seed: int,
    *,
    concurrency: int = 8,
    reconverge_within: float = 900.0,
    steady_seconds: float = 60.0,
    say: Callable[[str], None] = print,
    keep_namespaces: bool = False,
) -> ChaosReport:
    run = ChaosRun(target, plan, seed, say)
    system = f"chaos-{run.run_id}-system"
    await target.rest.create(NAMESPACE, {"metadata": {"name": system}}, field_manager="chaos")
    try:
        await run.webhook.start()
        await run.user.create_namespaces()
        await run.fleet.start_single()
        say(f"run {run.run_id}: {plan.graphs} graphs, {plan.namespaces} namespaces")
        started = time.monotonic()
        await run.run_schedule(concurrency)
        last_fault = time.monotonic()
        run.report.chaos_s = last_fault - started
        run.report.end, run.report.reconverged = await run.reconverge(reconverge_within)
        run.report.reconverge_s = time.monotonic() - last_fault
        if leaks := run.report.end.gc_leaks:
            say(f"pods kube-controller-manager's GC leaked (not the operator's): {leaks}")
        if stalls := run.report.end.lws_stalls:
            say(f"graphs lws-controller left pending (not the operator's): {stalls}")
        await run.fleet.check_crashes()
        run.report.steady_writes = await _steady_writes(run.fleet, steady_seconds)
        await run.fleet.check_crashes()
    finally:
        await run.fleet.stop()
        await run.webhook.remove()
        if not keep_namespaces:
            for namespace in [*run.user.namespaces, system]:
                with contextlib.suppress(NotFound):
                    await target.rest.delete(NAMESPACE, None, namespace)
    return run.report


class ChaosRun:
    """One run's actors: the user, the operator fleet, the webhook, and what they reported."""

    def __init__(
        self, target: ChaosTarget, plan: ChaosPlan, seed: int, say: Callable[[str], None]
    ) -> None:
        self.run_id = f"{seed}-{uuid.uuid4().hex[:4]}"
        namespaces = [f"chaos-{self.run_id}-{index}" for index in range(plan.namespaces)]
        self.target, self.plan, self.seed, self.say = target, plan, seed, say
        self.user = ChaosUser(target.rest, self.run_id, namespaces, plan.graphs)
        self.fleet = OperatorFleet(
            target.kubeconfig, target.log_dir, election_namespace=f"chaos-{self.run_id}-system"
        )
        self.webhook = ChaosWebhook(target.rest, self.run_id, target.log_dir / "webhook")
        self.report = ChaosReport(seed, self.fleet, self.user)
        self.pvcs = PvcLedger()

    async def run_schedule(self, concurrency: int) -> None:
        steps = build_schedule(self.plan, self.seed)
        done = anyio.Event()
        async with anyio.create_task_group() as background:
            background.start_soon(self._sample_pvcs, done)
            background.start_soon(self._progress, done)
            async with anyio.create_task_group() as work:
                work.start_soon(self.user.create_graphs, concurrency)
                started = time.monotonic()
                for step in steps:
                    await anyio.sleep(max(0.0, started + step.at - time.monotonic()))
                    await self._perform(step, work)
                    if step.action not in ("pair_start", "pair_end"):
                        injected = self.report.injected
                        injected[step.action] = injected.get(step.action, 0) + 1
            done.set()

    async def _perform(self, step: Step, work: anyio.abc.TaskGroup) -> None:
        action, fleet = step.action, self.fleet
        if action in EDIT_KINDS:
            work.start_soon(self.user.edit, step)
        elif action == "operator_kill":
            await fleet.kill()
        elif action == "leader_kill":
            await fleet.kill_leader()
        elif action == "pair_start":
            await fleet.to_pair()
        elif action == "pair_end":
            await fleet.to_single()
        elif action == "apiserver_restart":
            async with self.user.control_plane_lock:
                await anyio.to_thread.run_sync(self.target.control_plane.restart_apiserver)
        elif action == "etcd_compaction":
            # Watching first: an operator started by the step before (a kill's replacement) that
            # lists after the compaction never holds a compacted resourceVersion (no 410 to see).
            await fleet.wait_ready()
            async with self.user.control_plane_lock:
                before = fleet.log_counts().expired_relists
                await anyio.to_thread.run_sync(self.target.control_plane.compact_etcd)
                self.report.relists_observed += await _relisted(fleet, before)
        elif action in ("webhook_outage_fail", "webhook_outage_ignore"):
            policy: FailurePolicy = "Fail" if action == "webhook_outage_fail" else "Ignore"
            work.start_soon(self.webhook.outage, policy, self.plan.webhook_outage_seconds)
        await fleet.check_crashes()
        await self.restart_crashed_controllers()

    async def reconverge(self, within: float) -> tuple[EndState, bool]:
        """Wait until the end checks pass (or `within` ran out): the last state read, and
        whether it passed."""
        deadline = time.monotonic() + within
        rest, settings = self.target.rest, self.target.settings
        while True:
            await self.fleet.check_crashes()
            await self.restart_crashed_controllers()
            state = await read_end_state(rest, self.user, settings, self.pvcs)
            if state.is_clean():
                return state, True
            if time.monotonic() > deadline:
                self.say(f"not reconverged after {within:.0f}s: {state.summary()}")
                return state, False
            await anyio.sleep(2.0)

    async def restart_crashed_controllers(self) -> None:
        restarted = await anyio.to_thread.run_sync(self.target.control_plane.restart_crashed)
        if restarted:
            self.say(f"control-plane controllers exited and were restarted: {restarted}")
            self.report.control_plane_restarts += restarted

    async def _sample_pvcs(self, done: anyio.Event) -> None:
        """Note each PVC's uid soon after it appears, so a replaced one is caught at the end."""
        while not done.is_set():
            # The API server restarting: the next sample catches up.
            with contextlib.suppress(KubeError, OSError):
                await note_pvcs(self.target.rest, self.user, self.pvcs)
            with anyio.move_on_after(PVC_SAMPLE_SECONDS):
                await done.wait()

    async def _progress(self, done: anyio.Event) -> None:
        started, user, fleet = time.monotonic(), self.user, self.fleet
        while not done.is_set():
            with anyio.move_on_after(PROGRESS_SECONDS):
                await done.wait()
            try:
                converged = 0
                for namespace in user.namespaces:
                    graphs, _ = await self.target.rest.list_all(GRAPH, namespace)
                    converged += sum(is_converged(graph) for graph in graphs)
            except (KubeError, OSError):  # the API server restarting
                converged = -1
            faults = sum(n for kind, n in self.report.injected.items() if kind not in EDIT_KINDS)
            self.say(
                f"t={time.monotonic() - started:6.1f}s converged={converged}/{user.graph_count} "
                f"faults={faults} edits={sum(user.edits.values())} kills={fleet.kills}+"
                f"{fleet.leader_kills} crashes={fleet.crashes}"
            )


async def _relisted(fleet: OperatorFleet, before: float) -> int:
    """1 once the operator logged a relist after a 410 (within `RELIST_WITHIN`), else 0. Read
    from the logs: a process's counters die with it."""
    with anyio.move_on_after(RELIST_WITHIN):
        # Polling the log files: nothing to watch.
        while fleet.log_counts().expired_relists <= before:  # noqa: ASYNC110
            await anyio.sleep(2.0)
        return 1
    return 0


async def _steady_writes(fleet: OperatorFleet, seconds: float) -> float:
    """Writes by the operator over `seconds` once it has settled (queues empty, nothing moving)."""
    [operator] = fleet.running
    await anyio.to_thread.run_sync(operator.wait_settled)
    before = await fleet.writes_now()
    await anyio.sleep(seconds)
    return await fleet.writes_now() - before
