"""An asyncio clone of controller-runtime on kr8s.

Generic: it knows nothing of Dynamo (`manager.app` stands on it, never the reverse). Its
subpackages (`cache`, `client`, `controller`, `events`, `leaderelection`, `metrics`,
`workqueue`) each list their own public names; like controller-runtime's root package, this one
lists what the runtime's top-level modules offer: the manager and its runnables, the controller
builder with its handlers and predicates, kinds, discovery, owned children, the owner of the
process's own objects, the status step, the clock, logging, identity and the HTTP servers.

The names are imported on first use (`manager.runtime.lazy`), so importing one module of the
package (the command line imports `manager.app.commands.validate`) does not import them all.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from manager.runtime.lazy import lazy_exports as _lazy_exports

if _TYPE_CHECKING:
    from manager.runtime.backoff import Backoff
    from manager.runtime.builder import ControllerBuilder
    from manager.runtime.client import KindRegistry
    from manager.runtime.clock import Clock, FakeClock, RealClock
    from manager.runtime.discovery import Discovery, RequiredKinds, ServedApis
    from manager.runtime.errors import LeadershipLostError
    from manager.runtime.finalizers import Finalizer
    from manager.runtime.handler import (
        EnqueueHandler,
        Mapper,
        enqueue_for_object,
        enqueue_for_owner,
        enqueue_mapped,
    )
    from manager.runtime.health import Check, HealthProbes
    from manager.runtime.http_client import ClientSessionRunnable
    from manager.runtime.http_server import AppServer, ConnectionLimits
    from manager.runtime.identity import Identity
    from manager.runtime.kinds import (
        BUILT_IN_KINDS,
        CONFIG_MAP,
        CUSTOM_RESOURCE_DEFINITION,
        DEPLOYMENT,
        ENDPOINT_SLICE,
        EVENT,
        HORIZONTAL_POD_AUTOSCALER,
        INGRESS,
        JOB,
        LEASE,
        NAMESPACE,
        PERSISTENT_VOLUME_CLAIM,
        POD,
        ROLE,
        ROLE_BINDING,
        SECRET,
        SERVICE,
        SERVICE_ACCOUNT,
        ResourceKind,
    )
    from manager.runtime.lazy import lazy_exports
    from manager.runtime.logging import LOG_LEVELS, configure_logging, get_logger, reconcile_context
    from manager.runtime.manager import (
        CacheLike,
        Drainable,
        LeaderElectorLike,
        Manager,
        Runnable,
    )
    from manager.runtime.namespace_claims import ClaimAware, NamespaceClaims, lease_expiry
    from manager.runtime.ownership import (
        ChildChanges,
        apply_children,
        apply_each,
        is_controlled_by,
        is_namespace_terminating,
        is_owned_by,
        sync_children,
    )
    from manager.runtime.predicate import (
        AnnotationsChanged,
        Funcs,
        GenerationChanged,
        LabelsChanged,
        Predicate,
        ResourceVersionChanged,
        and_,
        new_predicate_funcs,
        not_,
        or_,
        turned_true,
    )
    from manager.runtime.process_owner import ProcessOwner, owned_metadata
    from manager.runtime.progress import ProgressThrottle
    from manager.runtime.shared_objects import SharedObjects
    from manager.runtime.status_report import STATUS_REJECTED, ObjectEvent, StatusReport

__all__ = [
    "BUILT_IN_KINDS",
    "CONFIG_MAP",
    "CUSTOM_RESOURCE_DEFINITION",
    "DEPLOYMENT",
    "ENDPOINT_SLICE",
    "EVENT",
    "HORIZONTAL_POD_AUTOSCALER",
    "INGRESS",
    "JOB",
    "LEASE",
    "LOG_LEVELS",
    "NAMESPACE",
    "PERSISTENT_VOLUME_CLAIM",
    "POD",
    "ROLE",
    "ROLE_BINDING",
    "SECRET",
    "SERVICE",
    "SERVICE_ACCOUNT",
    "STATUS_REJECTED",
    "AnnotationsChanged",
    "AppServer",
    "Backoff",
    "CacheLike",
    "Check",
    "ChildChanges",
    "ClaimAware",
    "ClientSessionRunnable",
    "Clock",
    "ConnectionLimits",
    "ControllerBuilder",
    "Discovery",
    "Drainable",
    "EnqueueHandler",
    "FakeClock",
    "Finalizer",
    "Funcs",
    "GenerationChanged",
    "HealthProbes",
    "Identity",
    "KindRegistry",
    "LabelsChanged",
    "LeaderElectorLike",
    "LeadershipLostError",
    "Manager",
    "Mapper",
    "NamespaceClaims",
    "ObjectEvent",
    "Predicate",
    "ProcessOwner",
    "ProgressThrottle",
    "RealClock",
    "RequiredKinds",
    "ResourceKind",
    "ResourceVersionChanged",
    "Runnable",
    "ServedApis",
    "SharedObjects",
    "StatusReport",
    "and_",
    "apply_children",
    "apply_each",
    "configure_logging",
    "enqueue_for_object",
    "enqueue_for_owner",
    "enqueue_mapped",
    "get_logger",
    "is_controlled_by",
    "is_namespace_terminating",
    "is_owned_by",
    "lazy_exports",
    "lease_expiry",
    "new_predicate_funcs",
    "not_",
    "or_",
    "owned_metadata",
    "reconcile_context",
    "sync_children",
    "turned_true",
]

__getattr__, __dir__ = _lazy_exports(__name__)
