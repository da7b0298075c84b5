"""The complete status of a DynamoModel, from the workers found and what happened on each.

``ServicesFound`` says whether any EndpointSlice of the base model exists (its Services are
named); ``EndpointsReady`` whether the model is usable on every worker: for a LoRA, loaded on
each ready endpoint; for a base model (or an adapter the operator does not load), that at least
one ready endpoint serves it. ``endpoints`` lists each worker with its own state, and
``readyEndpoints`` / ``totalEndpoints`` are the ``kubectl get dm`` columns Ready and Total.
Only ready endpoints are workers (``model_endpoints``), so a base model's endpoints are ready.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dynamo_operator.api import ConditionStatus, ModelType
from dynamo_operator.status.conditions import JsonDict, Verdict, observed_status
from dynamo_operator.status.failure import StatusFailure
from dynamo_operator.status.reasons import ConditionTypes, Reasons


@dataclass(frozen=True, slots=True)
class EndpointState:
    """One worker as the status reports it."""

    address: str
    pod_name: str
    ready: bool
    message: str | None = None
    """Why the model is not ready there (the last attempt's failure)."""

    def to_wire(self) -> JsonDict:
        entry: JsonDict = {"address": self.address, "podName": self.pod_name, "ready": self.ready}
        if self.message:
            entry["message"] = self.message
        return entry


def _services_found(services: Sequence[str], base_model: str) -> tuple[bool, str, str]:
    if services:
        return True, Reasons.SERVICES_FOUND, f"Found {len(services)} service(s)"
    return False, Reasons.NO_SERVICES_FOUND, f"No EndpointSlices found for base model {base_model}"


def _endpoints_ready(
    spec: Mapping[str, Any],
    endpoints: Sequence[EndpointState],
    services: Sequence[str],
    failure: StatusFailure | None,
) -> tuple[bool, str, str]:
    base_model = str(spec.get("baseModelName") or "")
    total = len(endpoints)
    ready = sum(1 for endpoint in endpoints if endpoint.ready)
    if failure is not None:
        return False, failure.reason, failure.message
    if total == 0:
        found = "ready endpoints" if services else "endpoints"
        return False, Reasons.NO_ENDPOINTS, f"No {found} found for base model {base_model}"
    if spec.get("modelType") != ModelType.LORA:
        return True, Reasons.ENDPOINTS_DISCOVERED, f"Found {total} endpoint(s) for base model"
    if ready == total:
        return True, Reasons.ALL_ENDPOINTS_READY, f"LoRA loaded on all {total} endpoint(s)"
    return False, Reasons.ENDPOINTS_NOT_READY, f"LoRA loaded on {ready} of {total} endpoint(s)"


def derive_model_status(
    model: Mapping[str, Any],
    endpoints: Sequence[EndpointState],
    services: Sequence[str],
    now: datetime,
    *,
    failure: StatusFailure | None = None,
) -> JsonDict:
    """The DynamoModel's whole ``status`` (wire form).

    ``model`` is the object as read (its conditions give the transition times); ``endpoints``
    the workers found, in the order to report them; ``services`` the Services their
    EndpointSlices belong to; ``failure`` a spec the rules refuse (nothing is loaded then).
    """
    spec = model.get("spec") or {}
    base_model = str(spec.get("baseModelName") or "")
    verdicts = {
        condition_type: Verdict(
            ConditionStatus.TRUE if true else ConditionStatus.FALSE, reason, message
        )
        for condition_type, (true, reason, message) in (
            (ConditionTypes.SERVICES_FOUND, _services_found(services, base_model)),
            (ConditionTypes.ENDPOINTS_READY, _endpoints_ready(spec, endpoints, services, failure)),
        )
    }
    status = observed_status(model, verdicts, now)
    if endpoints:
        status["endpoints"] = [endpoint.to_wire() for endpoint in endpoints]
    status["readyEndpoints"] = sum(1 for endpoint in endpoints if endpoint.ready)
    status["totalEndpoints"] = len(endpoints)
    return status
