"""The ValidatingWebhookConfiguration, generated from the endpoint table.

Two ways to reach the server: through a Service (in-cluster, the Helm chart) or through a URL
(the server runs on the host, as in local runs and e2e tests). The label
``nvidia.com/dynamo-operator-namespace`` is what the operator-managed certificate mode looks for
when it injects its CA into ``caBundle``.

A namespace-restricted operator serves its own configuration (``<name>-<namespace>``) that
selects its namespace only, so the API server asks it, and only it, about objects there; its
label names that namespace, so the CA it injects goes into its own configuration.

Each rule lists every version its kind is served at: with ``matchPolicy: Equivalent`` alone, the
API server would convert a v1beta1 request to v1alpha1 first and the denial would name v1alpha1
fields the user never wrote.

``python -m webhooks.manifests`` prints the default in-cluster configuration committed under
``deploy/webhook/``; a test keeps that file in sync with this module.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from manager.runtime.kinds import ResourceKind
from webhooks.endpoints import ENDPOINTS, GROUP, WebhookEndpoint

VALIDATING_WEBHOOK_CONFIGURATION = ResourceKind(
    "admissionregistration.k8s.io/v1",
    "ValidatingWebhookConfiguration",
    "validatingwebhookconfigurations",
    namespaced=False,
)
OPERATOR_NAMESPACE_LABEL = "nvidia.com/dynamo-operator-namespace"
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
"""Set by the API server on every namespace: a selector on it picks one namespace by name."""
DEFAULT_CONFIGURATION_NAME = "dynamo-operator-validating"
DEFAULT_SERVICE_NAME = "dynamo-operator-webhook-service"
DEFAULT_OPERATOR_NAMESPACE = "dynamo-system"
TIMEOUT_SECONDS = 10


@dataclass(frozen=True, slots=True)
class ServiceTarget:
    """In-cluster: the apiserver calls ``https://<name>.<namespace>.svc:<port><path>``."""

    name: str
    namespace: str
    port: int = 443

    def client_config(self, endpoint: WebhookEndpoint) -> dict[str, Any]:
        service = {"name": self.name, "namespace": self.namespace, "path": endpoint.path}
        return {"service": {**service, "port": self.port}}


@dataclass(frozen=True, slots=True)
class UrlTarget:
    """Out of cluster: ``base_url`` such as ``https://127.0.0.1:9443`` (no query, no userinfo)."""

    base_url: str

    def client_config(self, endpoint: WebhookEndpoint) -> dict[str, Any]:
        return {"url": self.base_url.rstrip("/") + endpoint.path}


def build_validating_webhook_configuration(
    target: ServiceTarget | UrlTarget,
    *,
    name: str = DEFAULT_CONFIGURATION_NAME,
    operator_namespace: str = DEFAULT_OPERATOR_NAMESPACE,
    ca_bundle_pem: bytes | None = None,
    namespace_selector: Mapping[str, Any] | None = None,
    endpoints: Iterable[WebhookEndpoint] = ENDPOINTS,
) -> dict[str, Any]:
    """One webhook per endpoint: CREATE and UPDATE, failurePolicy Fail, sideEffects None, 10 s."""
    webhooks = [
        _webhook(endpoint, target, ca_bundle_pem, namespace_selector) for endpoint in endpoints
    ]
    return {
        "apiVersion": VALIDATING_WEBHOOK_CONFIGURATION.api_version,
        "kind": VALIDATING_WEBHOOK_CONFIGURATION.kind,
        "metadata": {"name": name, "labels": {OPERATOR_NAMESPACE_LABEL: operator_namespace}},
        "webhooks": webhooks,
    }


def build_namespace_restricted_webhook_configuration(
    target: ServiceTarget | UrlTarget,
    *,
    namespace: str,
    name: str = DEFAULT_CONFIGURATION_NAME,
    operator_namespace: str | None = None,
    ca_bundle_pem: bytes | None = None,
    endpoints: Iterable[WebhookEndpoint] = ENDPOINTS,
) -> dict[str, Any]:
    """The configuration of an operator run with ``--restrictedNamespace=<namespace>``: named
    ``<name>-<namespace>`` so it sits beside the cluster-wide one, every webhook selecting that
    namespace only, labelled with the operator's namespace (by default the restricted one) so
    that operator injects its own CA into it. Operator-managed certificates find configurations
    by that label alone, so two operators must not share a namespace: each would inject its CA
    into the other's configuration."""
    return build_validating_webhook_configuration(
        target,
        name=f"{name}-{namespace}",
        operator_namespace=operator_namespace or namespace,
        ca_bundle_pem=ca_bundle_pem,
        namespace_selector={"matchLabels": {NAMESPACE_NAME_LABEL: namespace}},
        endpoints=endpoints,
    )


def _webhook(
    endpoint: WebhookEndpoint,
    target: ServiceTarget | UrlTarget,
    ca_bundle_pem: bytes | None,
    namespace_selector: Mapping[str, Any] | None,
) -> dict[str, Any]:
    client_config = target.client_config(endpoint)
    if ca_bundle_pem:
        client_config["caBundle"] = base64.b64encode(ca_bundle_pem).decode()
    webhook: dict[str, Any] = {
        "name": endpoint.webhook_name,
        "admissionReviewVersions": ["v1"],
        "clientConfig": client_config,
        "failurePolicy": "Fail",
        "matchPolicy": "Equivalent",
        "rules": [
            {
                "apiGroups": [GROUP],
                "apiVersions": list(endpoint.versions),
                "operations": ["CREATE", "UPDATE"],
                "resources": [endpoint.plural],
                "scope": "Namespaced",
            }
        ],
        "sideEffects": "None",
        "timeoutSeconds": TIMEOUT_SECONDS,
    }
    if namespace_selector is not None:
        webhook["namespaceSelector"] = dict(namespace_selector)
    return webhook


def render_default_manifest() -> str:
    """The in-cluster configuration committed under ``deploy/webhook/`` (CA injected at runtime)."""
    configuration = build_validating_webhook_configuration(
        ServiceTarget(name=DEFAULT_SERVICE_NAME, namespace=DEFAULT_OPERATOR_NAMESPACE)
    )
    header = "# Generated by `python -m webhooks.manifests`; do not edit by hand.\n"
    return header + yaml.safe_dump(configuration, sort_keys=False)


if __name__ == "__main__":
    print(render_default_manifest(), end="")
