"""Pure status derivation: the complete ``status`` of a DCD, DGD or DynamoModel from what the
cache holds (and, for a model, what its workers answered).

Wire dicts in, wire dicts out (camelCase, as the API server stores them); the time is a parameter
(``now``), never read. Conditions follow Kubernetes transition semantics (``conditions.py``), so
deriving again from an unchanged world gives an equal status and the reconciler writes nothing.
"""

from dynamo_operator.status.builder_job import BuilderJobState, observe_builder_job
from dynamo_operator.status.component_deployment import (
    Unsupported,
    derive_component_status,
    is_component_progress_only,
)
from dynamo_operator.status.conditions import (
    changed_condition,
    find_condition,
    format_time,
    is_condition_true,
    set_condition,
)
from dynamo_operator.status.dynamo_component import (
    DYNAMO_COMPONENT_EVENTS,
    BuildJobState,
    ComponentGate,
    ImageObservation,
    derive_dynamo_component_status,
    dynamo_component_gate,
)
from dynamo_operator.status.events import (
    Event,
    TransitionEvents,
    derive_transition_event,
)
from dynamo_operator.status.failure import StatusFailure
from dynamo_operator.status.graph_deployment import derive_graph_status, is_progress_only
from dynamo_operator.status.model import EndpointState, derive_model_status
from dynamo_operator.status.pods import Cause, pod_failure_cause
from dynamo_operator.status.reasons import ConditionTypes, Reasons
from dynamo_operator.status.rolling_update import WorkerRollout, derive_rolling_update
from dynamo_operator.status.workloads import is_workload_ready

__all__ = [
    "DYNAMO_COMPONENT_EVENTS",
    "BuildJobState",
    "BuilderJobState",
    "Cause",
    "ComponentGate",
    "ConditionTypes",
    "EndpointState",
    "Event",
    "ImageObservation",
    "Reasons",
    "StatusFailure",
    "TransitionEvents",
    "Unsupported",
    "WorkerRollout",
    "changed_condition",
    "derive_component_status",
    "derive_dynamo_component_status",
    "derive_graph_status",
    "derive_model_status",
    "derive_rolling_update",
    "derive_transition_event",
    "dynamo_component_gate",
    "find_condition",
    "format_time",
    "is_component_progress_only",
    "is_condition_true",
    "is_progress_only",
    "is_workload_ready",
    "observe_builder_job",
    "pod_failure_cause",
    "set_condition",
]
