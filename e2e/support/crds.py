"""The operator's CRDs (the CRD chart's generated files) installed into a test cluster."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import kr8s
import yaml
from kr8s.objects import APIObject, new_class

from e2e.localcluster import wait_for

CRD_DIR = (
    Path(__file__).resolve().parents[2] / "deploy" / "helm" / "dynamo-operator-crds" / "generated"
)

CustomResourceDefinition = new_class(
    "CustomResourceDefinition", version="apiextensions.k8s.io/v1", namespaced=False, asyncio=False
)


def committed_crds() -> list[dict[str, Any]]:
    return [
        doc
        for path in sorted(CRD_DIR.glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text())
        if doc
    ]


def install_crds(api: kr8s.Api) -> list[APIObject]:
    """The repository's CRDs, installed with ``install_crd_documents``."""
    return install_crd_documents(api, committed_crds())


def install_crd_documents(api: kr8s.Api, manifests: Iterable[dict[str, Any]]) -> list[APIObject]:
    """Create each CRD unless present and wait until it is Established; idempotent, so several
    suites (or workers sharing an external cluster) can install the same files."""
    installed = []
    for manifest in manifests:
        crd = CustomResourceDefinition(manifest, api=api)
        if not crd.exists():
            try:
                crd.create()
            except kr8s.ServerError as error:  # created by a parallel test meanwhile
                if "already exists" not in str(error):
                    raise
        wait_for(f"CRD {crd.name} Established", functools.partial(_is_established, crd), timeout=30)
        installed.append(crd)
    return installed


def _is_established(crd: APIObject) -> bool:
    crd.refresh()
    raw: dict[str, Any] = dict(crd.raw)
    conditions = (raw.get("status") or {}).get("conditions") or []
    return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)
