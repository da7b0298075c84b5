"""What the component controller caches of a pod is enough to say why it is not ready."""

from __future__ import annotations

import copy
from typing import Any

from dynamo_operator.status.pods import pod_failure_cause
from manager.app.reconcilers.component_deployment import pod_for_cache


def crash_looping_pod() -> dict[str, Any]:
    return {
        "metadata": {
            "name": "worker-0",
            "namespace": "ns",
            "labels": {"app": "w"},
            "managedFields": [{"manager": "kubelet", "operation": "Update"}],
        },
        "spec": {"containers": [{"name": "main", "image": "vllm", "env": [{"name": "A"}]}]},
        "status": {
            "phase": "Running",
            "podIP": "10.0.0.1",
            "podIPs": [{"ip": "10.0.0.1"}],
            "qosClass": "BestEffort",
            "conditions": [{"type": "PodScheduled", "status": "True"}],
            "containerStatuses": [
                {
                    "name": "main",
                    "image": "vllm",
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                    "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}},
                }
            ],
        },
    }


def test_a_cached_pod_still_says_why_it_is_not_ready() -> None:
    pod = crash_looping_pod()
    cause = pod_failure_cause([copy.deepcopy(pod)])

    cached = pod_for_cache(pod)

    assert cause is not None
    assert "last exit code 137 (OOMKilled)" in cause.message
    assert pod_failure_cause([cached]) == cause
    assert cached["metadata"]["labels"] == {"app": "w"}


def test_a_cached_pod_drops_its_spec_addresses_and_managers() -> None:
    cached = pod_for_cache(crash_looping_pod())

    assert "spec" not in cached
    assert "managedFields" not in cached["metadata"]
    assert set(cached["status"]) == {"phase", "conditions", "containerStatuses"}
