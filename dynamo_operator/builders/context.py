"""Everything a builder may know besides the object it builds: operator settings and indexes.

Builders never read the clock, the environment or the network; what they need from the outside
world is handed to them here, computed once by the caller.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dynamo_operator.constants import MPI_SSH_SECRET_DEFAULT_NAME
from dynamo_operator.pull_secrets import PullSecretIndex
from dynamo_operator.settings import OperatorSettings

ModelServiceOwners = Mapping[tuple[str, str], tuple[Mapping[str, Any], ...]]
"""(namespace, base model name) -> ownerReferences of every component serving that base model
there (``build_model_service_owners``)."""


@dataclass(frozen=True, slots=True)
class BuildContext:
    settings: OperatorSettings = field(default_factory=OperatorSettings)
    pull_secrets: PullSecretIndex = field(default_factory=PullSecretIndex)
    mpi_ssh_secret_name: str = MPI_SSH_SECRET_DEFAULT_NAME
    """Secret holding the MPI SSH key pair, replicated into each graph's namespace."""
    default_namespace: str = "default"
    """Namespace of an object whose metadata names none: objects read from a cluster always name
    theirs; documents given to ``render`` may not, and ``-n`` says where they would go."""
    model_service_owners: ModelServiceOwners = field(default_factory=dict)
    """The components sharing each base model's headless Service; a component missing from it
    (none given) owns its model Service alone."""
    kept_discovery_account: str | None = None
    """The account of one graph that the built component's live pods run as
    (``kept_discovery_account``): they keep it rather than roll to the namespace's."""
