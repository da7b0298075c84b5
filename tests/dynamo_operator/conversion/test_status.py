"""Status: services <-> components, updatedServices <-> updatedComponents, service <-> component."""

from __future__ import annotations

from dynamo_operator.conversion import ALPHA_API_VERSION, BETA_API_VERSION, convert
from dynamo_operator.conversion.status import graph_status_to_alpha, graph_status_to_beta

REPLICAS = {"componentKind": "Deployment", "componentName": "g-w", "replicas": 2}


def test_graph_status_renames_services_and_updated_services() -> None:
    alpha = {
        "state": "successful",
        "conditions": [{"type": "Ready", "status": "True"}],
        "services": {"W": REPLICAS},
        "rollingUpdate": {"phase": "InProgress", "updatedServices": ["W"]},
    }
    beta = graph_status_to_beta(alpha)
    assert beta == {
        "state": "successful",
        "conditions": [{"type": "Ready", "status": "True"}],
        "components": {"W": REPLICAS},
        "rollingUpdate": {"phase": "InProgress", "updatedComponents": ["W"]},
    }
    assert graph_status_to_alpha(beta) == alpha


def test_component_deployment_status_renames_service_and_keeps_the_pod_selector() -> None:
    obj = {
        "apiVersion": ALPHA_API_VERSION,
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "g-w"},
        "spec": {"serviceName": "W"},
        "status": {"observedGeneration": 2, "podSelector": {"a": "b"}, "service": REPLICAS},
    }
    beta = convert(obj, BETA_API_VERSION)
    assert beta["status"] == {
        "observedGeneration": 2,
        "podSelector": {"a": "b"},
        "component": REPLICAS,
    }
    assert convert(beta, ALPHA_API_VERSION) == obj
