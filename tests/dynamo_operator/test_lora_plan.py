"""Golden cases of the LoRA plan: ``golden_lora_plan/<case>/input.yaml`` holds the adapter a
model wants, its workers, what each holds and which calls failed; ``expected.yaml`` the plan,
the workers' states and the Events. Regenerate after an intended change with
``DYNAMO_UPDATE_GOLDENS=1 pytest tests/dynamo_operator/test_lora_plan.py`` and review the diff.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_operator.lora_plan import (
    Adapter,
    adapter_of,
    endpoint_states,
    load_events,
    plan_adapter_loads,
    unload_event,
)
from dynamo_operator.model_endpoints import WorkerEndpoint

GOLDEN = Path(__file__).parent / "golden_lora_plan"
UPDATE = os.environ.get("DYNAMO_UPDATE_GOLDENS") == "1"
CASES = sorted(path.name for path in GOLDEN.iterdir() if (path / "input.yaml").exists())


def derive(case: dict[str, Any]) -> dict[str, Any]:
    wanted = adapter_of(case["model"])
    endpoints = [WorkerEndpoint(**endpoint) for endpoint in case["endpoints"]]
    held = {key: Adapter(**adapter) for key, adapter in (case.get("held") or {}).items()}
    failures: dict[str, str] = case.get("failures") or {}
    plan = plan_adapter_loads(wanted, endpoints, held)
    after = {key: adapter for key, adapter in held.items() if key not in plan.departed}
    for load in plan.loads:
        if load.endpoint.key in failures:
            after.pop(load.endpoint.key, None)
        else:
            after[load.endpoint.key] = wanted
    return {
        "loads": [
            {"worker": load.endpoint.key, "unloadFirst": load.previous and load.previous.name}
            for load in plan.loads
        ],
        "departed": list(plan.departed),
        "states": [
            dataclasses.asdict(state)
            for state in endpoint_states(endpoints, wanted, after, failures)
        ],
        "loadEvents": [
            dataclasses.asdict(event) for event in load_events(plan, failures, len(endpoints), 30.0)
        ],
        "unloadEvent": dataclasses.asdict(unload_event(wanted.name, endpoints, failures)),
    }


@pytest.mark.parametrize("case", CASES)
def test_lora_plan_matches_golden(case: str) -> None:
    given = yaml.safe_load((GOLDEN / case / "input.yaml").read_text())
    derived = derive(given)
    expected_file = GOLDEN / case / "expected.yaml"
    if UPDATE:
        expected_file.write_text(yaml.safe_dump(derived, sort_keys=False))
    assert derived == yaml.safe_load(expected_file.read_text())
