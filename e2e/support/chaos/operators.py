"""The operator under chaos: one `dynamo-operator run` process, or a leader-elected pair.

Every kill is SIGKILL and the killed process is replaced at once (a Deployment's restart, without
its backoff). Before a kill the process's `/metrics` is read once, so the writes it made are
counted (`writes_total`); a process that ends without being killed is a crash: counted, its log
tail kept, and it is replaced too. In a pair only the leader is killed, once it leads; the new
process joins as the standby and the old standby takes over when the killed leader's Lease
expires (15 s).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import anyio.to_thread

from e2e.support.metrics_scrape import Samples, total, writes
from e2e.support.operator_process import OperatorProcess, start_operator
from e2e.support.polling import eventually

EXPIRED_MESSAGE = "resource version expired, relisting"
READY_TIMEOUT = 120.0
LEADER_TIMEOUT = 120.0
"""A standby leads once the killed leader's 15 s Lease expired; generous on 2 loaded cores."""


@dataclass
class LogCounts:
    errors: int = 0
    tracebacks: int = 0
    expired_relists: int = 0
    """Relists after a 410 Gone (the reflector logs each one)."""


@dataclass
class OperatorFleet:
    kubeconfig: Path
    log_dir: Path
    election_namespace: str
    election_id: str = "dynamo-chaos"
    workers: int = 8
    running: list[OperatorProcess] = field(default_factory=list)
    ended: list[OperatorProcess] = field(default_factory=list)
    kills: int = 0
    leader_kills: int = 0
    crashes: int = 0
    crash_tails: list[str] = field(default_factory=list)
    writes_total: float = 0.0
    _started: int = 0

    @property
    def paired(self) -> bool:
        return len(self.running) == 2

    # -- lifecycle -------------------------------------------------------------------------------

    async def start_single(self) -> None:
        self.running = [self._start(elect=False)]
        await self.wait_ready()

    async def to_pair(self) -> None:
        """Replace the single operator by two leader-elected replicas (SIGTERM: a rollout)."""
        await self._stop_all()
        self.running = [self._start(elect=True), self._start(elect=True)]
        await self.wait_ready()

    async def to_single(self) -> None:
        await self._stop_all()
        await self.start_single()

    async def wait_ready(self) -> None:
        for process in list(self.running):
            await anyio.to_thread.run_sync(process.wait_ready, READY_TIMEOUT)

    async def stop(self) -> None:
        await self._stop_all()

    # -- faults ------------------------------------------------------------------------------------

    async def kill(self) -> None:
        """SIGKILL the single operator once it is ready (so it has work in flight), restart it."""
        await self.check_crashes()
        [process] = self.running
        await anyio.to_thread.run_sync(process.wait_ready, READY_TIMEOUT)
        await self._kill_and_replace(process)
        self.kills += 1

    async def kill_leader(self) -> None:
        await self.check_crashes()
        leader = await eventually("a leader", self._leader, within=LEADER_TIMEOUT)
        await self._kill_and_replace(leader)
        self.leader_kills += 1

    async def check_crashes(self) -> int:
        """Count and replace every process that ended on its own; how many did."""
        crashed = [p for p in self.running if p.process.poll() is not None]
        for process in crashed:
            self.crashes += 1
            self.crash_tails.append(f"exit {process.process.returncode}: {process.tail(20)}")
            self.ended.append(process)
            self.running[self.running.index(process)] = self._start(elect=self.paired)
        return len(crashed)

    # -- figures -----------------------------------------------------------------------------------

    async def writes_now(self) -> float:
        """Writes made so far by the running processes."""
        return sum([writes(await self._metrics(process)) for process in self.running])

    def log_counts(self) -> LogCounts:
        counts = LogCounts()
        for process in [*self.ended, *self.running]:
            for line in process.log_path.read_text(errors="replace").splitlines():
                counts.tracebacks += "Traceback" in line
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(record, dict):
                    counts.errors += record.get("level") == "error"
                    counts.expired_relists += record.get("msg") == EXPIRED_MESSAGE
        return counts

    # -- helpers -----------------------------------------------------------------------------------

    def _start(self, *, elect: bool) -> OperatorProcess:
        self._started += 1
        arguments = [f"--max-concurrent-reconciles={self.workers}"]
        if elect:
            arguments += [
                "--leader-elect",
                f"--leader-election-id={self.election_id}",
                f"--leader-election-namespace={self.election_namespace}",
            ]
        return start_operator(
            self.kubeconfig, self.log_dir, *arguments, name=f"operator-{self._started:03d}"
        )

    async def _kill_and_replace(self, process: OperatorProcess) -> None:
        await self._account(process)
        await anyio.to_thread.run_sync(process.kill)
        self.ended.append(process)
        self.running[self.running.index(process)] = self._start(elect=self.paired)

    async def _leader(self) -> OperatorProcess | None:
        for process in self.running:
            samples = await self._metrics(process)
            if total(samples, "leader_election_master_status", name=self.election_id) == 1:
                return process
        return None

    async def _metrics(self, process: OperatorProcess) -> Samples:
        try:
            return await anyio.to_thread.run_sync(process.metrics)
        except RuntimeError:  # not serving yet (starting) or any more (ended)
            return {}

    async def _account(self, process: OperatorProcess) -> None:
        """Add the writes of a process about to end to the total (its counters die with it)."""
        samples = await self._metrics(process)
        self.writes_total += writes(samples)

    async def _stop_all(self) -> None:
        await self.check_crashes()
        for process in self.running:
            await self._account(process)
            try:
                await anyio.to_thread.run_sync(process.stop, 60.0)
            except subprocess.TimeoutExpired:
                await anyio.to_thread.run_sync(process.kill)
            self.ended.append(process)
        self.running = []
