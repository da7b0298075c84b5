"""An asyncio clone of controller-runtime on kr8s.

The core (everything but `manager.reconcilers`, `manager.commands` and `manager.cli`) is generic
and knows nothing of Dynamo. Its subpackages (`cache`, `client`, `controller`, `events`,
`leaderelection`, `metrics`, `workqueue`) each list their own public names; like
controller-runtime's root package, this one lists what the core's top-level modules offer:
the manager and its runnables, the controller builder with its handlers and predicates, kinds,
discovery, owned children, the owner of the process's own objects, the clock, logging, identity
and the HTTP servers.

`manager.cli` is the console script's entry point and `manager.commands` and
`manager.reconcilers` sit above the core, so nothing from them is re-exported here.

The names are imported on first use (`manager.lazy`), so importing one module of the
package (the command line imports `manager.commands.validate`) does not import them all.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from manager.lazy import lazy_exports as _lazy_exports

if _TYPE_CHECKING:
    from manager.builder import ControllerBuilder
    from manager.clock import Clock, FakeClock, RealClock
    from manager.discovery import Discovery, KindRegistry, RequiredKinds, ServedApis
    from manager.handler import (
        EnqueueHandler,
        Mapper,
        enqueue_for_object,
        enqueue_for_owner,
        enqueue_mapped,
    )
    from manager.health import Check, HealthProbes
    from manager.http_server import AppServer, ConnectionLimits
    from manager.identity import Identity
    from manager.kinds import (
        BUILT_IN_KINDS,
        CONFIG_MAP,
        CUSTOM_RESOURCE_DEFINITION,
        DEPLOYMENT,
        ENDPOINT_SLICE,
        EVENT,
        HORIZONTAL_POD_AUTOSCALER,
        INGRESS,
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
    from manager.lazy import lazy_exports
    from manager.logging import LOG_LEVELS, configure_logging, get_logger, reconcile_context
    from manager.manager import (
        CacheLike,
        Drainable,
        LeaderElectorLike,
        LeadershipLostError,
        Manager,
        Runnable,
    )
    from manager.namespace_claims import ClaimAware, NamespaceClaims, lease_expiry
    from manager.ownership import (
        ChildChanges,
        apply_each,
        apply_shared,
        is_namespace_terminating,
        sync_children,
    )
    from manager.predicate import (
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
    )
    from manager.process_owner import ProcessOwner, owned_metadata

__all__ = [
    "BUILT_IN_KINDS",
    "CONFIG_MAP",
    "CUSTOM_RESOURCE_DEFINITION",
    "DEPLOYMENT",
    "ENDPOINT_SLICE",
    "EVENT",
    "HORIZONTAL_POD_AUTOSCALER",
    "INGRESS",
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
    "AnnotationsChanged",
    "AppServer",
    "CacheLike",
    "Check",
    "ChildChanges",
    "ClaimAware",
    "Clock",
    "ConnectionLimits",
    "ControllerBuilder",
    "Discovery",
    "Drainable",
    "EnqueueHandler",
    "FakeClock",
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
    "Predicate",
    "ProcessOwner",
    "RealClock",
    "RequiredKinds",
    "ResourceKind",
    "ResourceVersionChanged",
    "Runnable",
    "ServedApis",
    "and_",
    "apply_each",
    "apply_shared",
    "configure_logging",
    "enqueue_for_object",
    "enqueue_for_owner",
    "enqueue_mapped",
    "get_logger",
    "is_namespace_terminating",
    "lazy_exports",
    "lease_expiry",
    "new_predicate_funcs",
    "not_",
    "or_",
    "owned_metadata",
    "reconcile_context",
    "sync_children",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "manager.builder": ("ControllerBuilder",),
        "manager.clock": (
            "Clock",
            "FakeClock",
            "RealClock",
        ),
        "manager.discovery": (
            "Discovery",
            "KindRegistry",
            "RequiredKinds",
            "ServedApis",
        ),
        "manager.handler": (
            "EnqueueHandler",
            "Mapper",
            "enqueue_for_object",
            "enqueue_for_owner",
            "enqueue_mapped",
        ),
        "manager.health": (
            "Check",
            "HealthProbes",
        ),
        "manager.http_server": ("AppServer", "ConnectionLimits"),
        "manager.identity": ("Identity",),
        "manager.kinds": (
            "BUILT_IN_KINDS",
            "CONFIG_MAP",
            "CUSTOM_RESOURCE_DEFINITION",
            "DEPLOYMENT",
            "ENDPOINT_SLICE",
            "EVENT",
            "HORIZONTAL_POD_AUTOSCALER",
            "INGRESS",
            "LEASE",
            "NAMESPACE",
            "PERSISTENT_VOLUME_CLAIM",
            "POD",
            "ROLE",
            "ROLE_BINDING",
            "SECRET",
            "SERVICE",
            "SERVICE_ACCOUNT",
            "ResourceKind",
        ),
        "manager.lazy": ("lazy_exports",),
        "manager.process_owner": ("ProcessOwner", "owned_metadata"),
        "manager.logging": (
            "LOG_LEVELS",
            "configure_logging",
            "get_logger",
            "reconcile_context",
        ),
        "manager.manager": (
            "CacheLike",
            "Drainable",
            "LeaderElectorLike",
            "LeadershipLostError",
            "Manager",
            "Runnable",
        ),
        "manager.namespace_claims": (
            "ClaimAware",
            "NamespaceClaims",
            "lease_expiry",
        ),
        "manager.ownership": (
            "ChildChanges",
            "apply_each",
            "apply_shared",
            "is_namespace_terminating",
            "sync_children",
        ),
        "manager.predicate": (
            "AnnotationsChanged",
            "Funcs",
            "GenerationChanged",
            "LabelsChanged",
            "Predicate",
            "ResourceVersionChanged",
            "and_",
            "new_predicate_funcs",
            "not_",
            "or_",
        ),
    },
)
