"""Leader election on a coordination.k8s.io/v1 Lease (client-go's algorithm and defaults), and
the marker Lease a process holds to claim a namespace."""

from manager.runtime.leaderelection.elector import LeaderElector, default_holder_identity
from manager.runtime.leaderelection.errors import LeaseMarkerLostError
from manager.runtime.leaderelection.marker import (
    LeaseMarker,
)
from manager.runtime.leaderelection.record import LeaseRecord, format_micro_time

__all__ = [
    "LeaderElector",
    "LeaseMarker",
    "LeaseMarkerLostError",
    "LeaseRecord",
    "default_holder_identity",
    "format_micro_time",
]
