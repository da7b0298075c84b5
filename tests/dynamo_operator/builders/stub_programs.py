"""Stub programs on PATH that record their argv, to run rendered pod commands for real.

A rendered script being right as text is not enough: these run it under the shell the container
would use, with ``LWS_LEADER_ADDRESS``/``LWS_WORKER_INDEX`` set as LeaderWorkerSet sets them, and
tell which program received which arguments.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

LEADER_ADDRESS = "g-worker-0.g-worker.ns"
_RECORD = (
    # One write of the whole record: programs of a pipeline run at the same time.
    'sep=$(printf "\\037"); record="${0##*/}"; for a in "$@"; do record="$record$sep$a"; done; '
    'printf "%s\\036" "$record" >> "$STUB_LOG"'
)


@dataclass(frozen=True)
class Stubs:
    bin: Path
    log: Path

    def add(self, name: str, then: str = "exit 0") -> None:
        """A program ``name`` that records its argv, then runs the shell code ``then``."""
        path = self.bin / name
        path.write_text(f"#!/bin/sh\n{_RECORD}\n{then}\n")
        path.chmod(0o755)

    def run(
        self, command: list[str], *, worker_index: int = 0, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command,
            cwd=self.bin.parent,
            env={
                "PATH": f"{self.bin}:/usr/bin:/bin",
                "HOME": str(self.bin.parent),
                "STUB_LOG": str(self.log),
                "LWS_LEADER_ADDRESS": LEADER_ADDRESS,
                "LWS_WORKER_INDEX": str(worker_index),
                **(env or {}),
            },
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )

    def calls(self) -> list[list[str]]:
        """Every stub call in order: ``[program, *argv]``."""
        if not self.log.exists():
            return []
        return [record.split("\x1f") for record in self.log.read_text().split("\x1e") if record]

    def argv_of(self, program: str) -> list[list[str]]:
        return [call[1:] for call in self.calls() if call[0] == program]


def make_stubs(tmp_path: Path, *names: str) -> Stubs:
    (tmp_path / "bin").mkdir()
    stubs = Stubs(tmp_path / "bin", tmp_path / "calls.log")
    for name in names:
        stubs.add(name)
    return stubs
