"""The per-service claim of seed 000 (``services.<name>.pvc``): created if missing, then mounted.

The later API declares claims once per graph (``spec.pvcs``) and mounts them per service
(``volumeMounts``); this older shape says both at once. A graph is expanded into the later form
(``dynamo_operator.image_build.service_pvcs``) before anything is built from it.
"""

from __future__ import annotations

from dynamo_operator.api.base import ApiModel, Quantity


class ServicePVC(ApiModel):
    """A persistent volume claim of one service, mounted into its main container."""

    name: str
    """Name of the PersistentVolumeClaim; created when the graph does not declare it in pvcs."""
    mount_path: str
    """Absolute path where the claim is mounted in the main container."""
    size: Quantity | None = None
    """Size of the claim to create (e.g. 100Gi); required unless the graph declares the claim."""
    storage_class: str | None = None
    """Storage class of the created claim; the cluster's default class when unset."""
    volume_access_mode: str | None = None
    """Access mode of the created claim; ReadWriteOnce when unset."""
