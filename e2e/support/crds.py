"""The operator's CRDs (the CRD chart's generated files) installed into a test cluster, with the
harness's one installer (`e2e.localcluster.install_crds`) over kr8s, so any cluster will do."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import kr8s
import yaml
from kr8s.objects import new_class

from e2e import localcluster

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


def install_crds(api: kr8s.Api) -> list[Mapping[str, Any]]:
    """The repository's CRDs, installed with ``install_crd_documents``."""
    return install_crd_documents(api, committed_crds())


def install_crd_documents(
    api: kr8s.Api, manifests: Iterable[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """Each CRD created unless present and Established (`e2e.localcluster.install_crds`); the
    CRDs as read then."""
    return localcluster.install_crds(Kr8sCrds(api), manifests)


class Kr8sCrds:
    """`e2e.localcluster.CrdClient` over a kr8s client."""

    def __init__(self, api: kr8s.Api) -> None:
        self._api = api

    def read_crd(self, name: str) -> Mapping[str, Any] | None:
        crd = CustomResourceDefinition({"metadata": {"name": name}}, api=self._api)
        try:
            crd.refresh()  # one GET (`get` would wait 2 s for a missing one)
        except kr8s.NotFoundError:
            return None
        return dict(crd.raw)

    def create_crd(self, document: Mapping[str, Any]) -> bool:
        try:
            CustomResourceDefinition(dict(document), api=self._api).create()
        except kr8s.ServerError as error:  # created by a parallel test meanwhile
            if "already exists" not in str(error):
                raise
            return False
        return True
