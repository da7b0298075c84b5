"""What ``dynamo-operator run`` was told: the one input of the operator process.

`run` makes it from the flags and the environment; `operator` assembles the process from it.
Its own module, so that the two stand on it rather than on each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dynamo_operator.image_build import ImageBuildSettings
from dynamo_operator.settings import OperatorSettings
from manager.app.commands.go_flags import BindAddress
from manager.runtime.metrics import CertificateFiles

__all__ = ["RunOptions"]


@dataclass(frozen=True, slots=True)
class RunOptions:
    """Everything `run` was told, validated; the operator is built from this alone."""

    metrics_address: BindAddress
    metrics_secure: bool
    metrics_certificate: CertificateFiles | None
    """Served by the secure endpoint; None: a self-signed certificate made at start."""
    health_address: BindAddress
    leader_elect: bool
    leader_election_id: str
    leader_election_namespace: str
    enable_webhooks: bool
    webhook_port: int
    webhook_cert_dir: Path | None
    """cert-manager mode: serve the files here; None: operator-managed certificates."""
    webhook_cert_name: str
    webhook_cert_key: str
    manage_crd_conversion: bool
    """Point the two-version CRDs' conversion webhook at this operator's Service (cluster-wide)."""
    conversion_ca_certificate: str | None
    """cert-manager mode: ``<namespace>/<Certificate>`` whose CA the cainjector puts in the CRDs;
    None: the operator injects the CA itself (its own, or ``ca.crt`` of --webhook-cert-path)."""
    restricted_namespace: str | None
    planner_cluster_role_name: str | None
    operator_version: str
    namespace_scope_lease_duration: float
    namespace_scope_lease_renew_interval: float
    max_concurrent_reconciles: int
    max_concurrent_low_priority_reconciles: int
    """Component workers beyond `max_concurrent_reconciles`, for work that can wait
    (`Controller`)."""
    settings: OperatorSettings
    operator_namespace: str
    image_build: ImageBuildSettings
    """The DynamoComponent image builds, from the environment (upstream's variable names)."""
    service_account: str | None
    """The Pod's ServiceAccount (env POD_SERVICE_ACCOUNT): owner of the Lease and the
    certificate Secret the operator creates for itself, so `helm uninstall` removes them."""
    log_level: str
    replica_writers: tuple[str, ...] = ()
    """`--replica-writer`: usernames allowed, besides the operator's service account and the
    planners', to change replicas a scaling adapter owns (the admission webhook's rule)."""
