"""The generated ValidatingWebhookConfiguration: what the apiserver will call, and how."""

from __future__ import annotations

import base64
from pathlib import Path

import yaml

from tests.webhooks.reviews import ScriptedValidator
from webhooks.app import build_app
from webhooks.conversion import CONVERT_PATH
from webhooks.endpoints import ENDPOINTS
from webhooks.manifests import (
    NAMESPACE_NAME_LABEL,
    OPERATOR_NAMESPACE_LABEL,
    ServiceTarget,
    UrlTarget,
    build_namespace_restricted_webhook_configuration,
    build_validating_webhook_configuration,
    render_default_manifest,
)

COMMITTED = Path(__file__).parents[2] / "deploy/webhook/validating-webhook-configuration.yaml"


def test_every_webhook_has_the_required_policy() -> None:
    configuration = build_validating_webhook_configuration(ServiceTarget("svc", "ns"))
    assert configuration["metadata"]["labels"] == {OPERATOR_NAMESPACE_LABEL: "dynamo-system"}
    webhooks = configuration["webhooks"]
    assert {webhook["name"] for webhook in webhooks} == {
        "vdynamographdeployment.kb.io",
        "vdynamocomponentdeployment.kb.io",
        "vdynamomodel.kb.io",
        "vdynamocomponent.kb.io",
    }
    for webhook in webhooks:
        assert webhook["failurePolicy"] == "Fail"
        assert webhook["sideEffects"] == "None"
        assert webhook["timeoutSeconds"] == 10
        assert webhook["admissionReviewVersions"] == ["v1"]
        (rule,) = webhook["rules"]
        assert rule["operations"] == ["CREATE", "UPDATE"]
        assert rule["apiGroups"] == ["nvidia.com"]


def test_graphs_and_components_are_admitted_at_the_version_the_user_wrote() -> None:
    """Listing v1beta1 makes the API server send a v1beta1 request as it is (matchPolicy
    Equivalent alone would convert it to v1alpha1 first, and the denial would name fields the
    user never wrote); the kinds served at v1alpha1 only list it alone."""
    configuration = build_validating_webhook_configuration(ServiceTarget("svc", "ns"))
    versions = {
        webhook["name"]: webhook["rules"][0]["apiVersions"] for webhook in configuration["webhooks"]
    }

    assert versions == {
        "vdynamographdeployment.kb.io": ["v1alpha1", "v1beta1"],
        "vdynamocomponentdeployment.kb.io": ["v1alpha1", "v1beta1"],
        "vdynamomodel.kb.io": ["v1alpha1"],
        "vdynamocomponent.kb.io": ["v1alpha1"],
    }
    # One path per kind, named after the storage version, whatever version arrives there.
    assert {
        webhook["clientConfig"]["service"]["path"] for webhook in configuration["webhooks"]
    } == {
        "/validate-nvidia-com-v1alpha1-dynamographdeployment",
        "/validate-nvidia-com-v1alpha1-dynamocomponentdeployment",
        "/validate-nvidia-com-v1alpha1-dynamomodel",
        "/validate-nvidia-com-v1alpha1-dynamocomponent",
    }


def test_service_and_url_targets_point_at_routes_the_server_serves() -> None:
    served = {
        route.resource.canonical
        for route in build_app(ScriptedValidator()).router.routes()
        if route.resource
    }
    by_service = build_validating_webhook_configuration(ServiceTarget("svc", "ns", port=443))
    by_url = build_validating_webhook_configuration(
        UrlTarget("https://127.0.0.1:19443/"), ca_bundle_pem=b"PEM"
    )
    service_paths = {w["clientConfig"]["service"]["path"] for w in by_service["webhooks"]}
    assert service_paths == {endpoint.path for endpoint in ENDPOINTS}
    assert served == service_paths | {CONVERT_PATH}, "admission routes, and /convert"
    for webhook in by_url["webhooks"]:
        config = webhook["clientConfig"]
        assert config["url"].startswith("https://127.0.0.1:19443/validate-nvidia-com-v1alpha1-")
        assert config["url"].removeprefix("https://127.0.0.1:19443") in served
        assert base64.b64decode(config["caBundle"]) == b"PEM"
        assert "service" not in config


def test_resources_are_the_crd_plurals() -> None:
    crds = Path(__file__).parents[2] / "deploy/helm/dynamo-operator-crds/generated"
    # DynamoWorkerMetadata is written by Dynamo's own pods, a scaling adapter by the operator and
    # autoscalers: the operator admits neither.
    plurals = {
        yaml.safe_load(path.read_text())["spec"]["names"]["plural"] for path in crds.glob("*.yaml")
    } - {"dynamoworkermetadatas", "dynamographdeploymentscalingadapters"}
    configured = {
        webhook["rules"][0]["resources"][0]
        for webhook in build_validating_webhook_configuration(ServiceTarget("s", "n"))["webhooks"]
    }
    assert configured == plurals


def test_cluster_wide_configuration_selects_every_namespace() -> None:
    configuration = build_validating_webhook_configuration(ServiceTarget("svc", "dynamo-system"))
    assert configuration["metadata"]["name"] == "dynamo-operator-validating"
    assert all("namespaceSelector" not in webhook for webhook in configuration["webhooks"])


def test_namespace_restricted_configuration_selects_its_namespace_only() -> None:
    target = ServiceTarget("dynamo-operator-webhook-service", "team-a")
    restricted = build_namespace_restricted_webhook_configuration(target, namespace="team-a")
    cluster_wide = build_validating_webhook_configuration(target, operator_namespace="team-a")

    assert restricted["metadata"] == {
        "name": "dynamo-operator-validating-team-a",
        # The operator-managed certificates of the operator in team-a look for this label.
        "labels": {OPERATOR_NAMESPACE_LABEL: "team-a"},
    }
    assert len(restricted["webhooks"]) == len(cluster_wide["webhooks"])
    for scoped, every in zip(restricted["webhooks"], cluster_wide["webhooks"], strict=True):
        assert scoped["namespaceSelector"] == {"matchLabels": {NAMESPACE_NAME_LABEL: "team-a"}}
        # Otherwise the same webhooks as the cluster-wide configuration, same target.
        assert {k: v for k, v in scoped.items() if k != "namespaceSelector"} == every


def test_namespace_restricted_configuration_names_the_operators_own_namespace() -> None:
    """An operator in `dynamo-team-a` restricted to `team-a`: the configuration selects
    `team-a` and carries the label of the namespace its certificate Secret lives in."""
    restricted = build_namespace_restricted_webhook_configuration(
        UrlTarget("https://127.0.0.1:9443"),
        namespace="team-a",
        name="release-validating",
        operator_namespace="dynamo-team-a",
        ca_bundle_pem=b"PEM",
    )

    assert restricted["metadata"]["name"] == "release-validating-team-a"
    assert restricted["metadata"]["labels"] == {OPERATOR_NAMESPACE_LABEL: "dynamo-team-a"}
    for webhook in restricted["webhooks"]:
        assert webhook["namespaceSelector"]["matchLabels"] == {NAMESPACE_NAME_LABEL: "team-a"}
        assert base64.b64decode(webhook["clientConfig"]["caBundle"]) == b"PEM"


def test_committed_manifest_matches_the_generator() -> None:
    assert COMMITTED.read_text() == render_default_manifest(), (
        "regenerate with: python -m webhooks.manifests > " + str(COMMITTED)
    )
