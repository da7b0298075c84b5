"""Who may read `/metrics` of a `dynamo-operator run --metrics-secure`, for the end-to-end tests.

`MetricsIdentities` makes ServiceAccounts in the test's namespace and gets their tokens from the
TokenRequest API, as a Prometheus Pod's projected token would be: one bound to a ClusterRole with
`nonResourceURLs: ["/metrics"], verbs: ["get"]` (the metrics-reader role Helm users bind
Prometheus to), one bound to nothing. `scrape` is the scrape: HTTPS with the bearer token.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from e2e.support.kinds import CLUSTER_ROLE, CLUSTER_ROLE_BINDING
from e2e.support.metrics_scrape import fetch, parse, total
from manager.runtime.client import NotFound, RestClient
from manager.runtime.kinds import SERVICE_ACCOUNT

FIELD_MANAGER = "e2e"


def scrape(
    port: int, token: str | None, *, ca_file: Path | None = None, host: str = "127.0.0.1"
) -> tuple[int, str]:
    """GET https://<host>:<port>/metrics with `token`: (status, body); 0 when nothing answered."""
    return fetch(f"https://{host}:{port}/metrics", token=token, ca_file=ca_file)


async def apiserver_reviews(rest: RestClient) -> dict[str, float]:
    """TokenReviews and SubjectAccessReviews the API server has answered so far (its own
    `apiserver_request_total`, read with the admin credentials)."""
    response = await rest.transport.request("GET", "/metrics")
    assert response.status == 200, response.body[:200]
    text = response.body.decode()
    return {
        resource: total(parse(text), "apiserver_request_total", resource=resource, verb="POST")
        for resource in ("tokenreviews", "subjectaccessreviews")
    }


class MetricsIdentities:
    """ServiceAccounts of one namespace with and without the right to get `/metrics`."""

    def __init__(self, rest: RestClient, namespace: str) -> None:
        self.rest = rest
        self.namespace = namespace
        self.role = f"dynamo-e2e-metrics-reader-{namespace}"

    async def reader(self, name: str = "prometheus") -> str:
        """A token of a ServiceAccount allowed to get /metrics."""
        await self._service_account(name)
        await self._bind_reader(name)
        return await self.token(name)

    async def stranger(self, name: str = "stranger") -> str:
        """A token of a ServiceAccount with no permission at all."""
        await self._service_account(name)
        return await self.token(name)

    async def token(self, name: str) -> str:
        request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
        path = SERVICE_ACCOUNT.object_path(self.namespace, name, "token")
        response = await self.rest.transport.request(
            "POST", path, body=json.dumps(request).encode(), content_type="application/json"
        )
        assert response.status == 201, response.body
        return str(json.loads(response.body)["status"]["token"])

    async def remove(self) -> None:
        """The cluster-scoped objects (the namespace's go with it)."""
        for kind in (CLUSTER_ROLE_BINDING, CLUSTER_ROLE):
            with contextlib.suppress(NotFound):
                await self.rest.delete(kind, None, self.role)

    async def _service_account(self, name: str) -> None:
        metadata = {"name": name, "namespace": self.namespace}
        body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}
        await self.rest.create(SERVICE_ACCOUNT, body, field_manager=FIELD_MANAGER)

    async def _bind_reader(self, name: str) -> None:
        role: dict[str, Any] = {
            "apiVersion": CLUSTER_ROLE.api_version,
            "kind": CLUSTER_ROLE.kind,
            "metadata": {"name": self.role},
            "rules": [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}],
        }
        binding: dict[str, Any] = {
            "apiVersion": CLUSTER_ROLE_BINDING.api_version,
            "kind": CLUSTER_ROLE_BINDING.kind,
            "metadata": {"name": self.role},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": self.role,
            },
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": self.namespace}],
        }
        await self.rest.apply(CLUSTER_ROLE, role, field_manager=FIELD_MANAGER)
        await self.rest.apply(CLUSTER_ROLE_BINDING, binding, field_manager=FIELD_MANAGER)
