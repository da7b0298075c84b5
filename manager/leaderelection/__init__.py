"""Leader election on a coordination.k8s.io/v1 Lease (client-go's algorithm and defaults)."""

from manager.leaderelection.elector import LeaderElector, default_holder_identity
from manager.leaderelection.record import LeaseRecord, format_micro_time

__all__ = [
    "LeaderElector",
    "LeaseRecord",
    "default_holder_identity",
    "format_micro_time",
]
