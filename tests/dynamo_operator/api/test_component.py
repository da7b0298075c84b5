from typing import Any

import pytest
from pydantic import ValidationError

from dynamo_operator.api import (
    DynamoComponent,
    DynamoComponentDeployment,
    DynamoGraphDeployment,
)

SEED_COMPONENT: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoComponent",
    "metadata": {"name": "frontend--jh2o6dqzpsgfued4"},
    "spec": {"dynamoComponent": "frontend:jh2o6dqzpsgfued4"},
}


def test_the_seed_example_round_trips() -> None:
    component = DynamoComponent.model_validate(SEED_COMPONENT)

    assert component.spec.dynamo_component == "frontend:jh2o6dqzpsgfued4"
    assert component.to_wire() == SEED_COMPONENT


def test_every_upstream_field_keeps_its_json_key() -> None:
    spec = {
        "dynamoComponent": "frontend:v1",
        "downloadUrl": "http://store/a.tar",
        "image": "registry/x:1",
        "imageBuildTimeout": "30m",
        "buildArgs": ["A=1"],
        "imageBuilderExtraPodMetadata": {"labels": {"a": "b"}, "annotations": {"c": "d"}},
        "imageBuilderExtraPodSpec": {"nodeSelector": {"pool": "build"}},
        "imageBuilderExtraContainerEnv": [{"name": "HTTP_PROXY", "value": "http://proxy"}],
        "imageBuilderContainerResources": {"limits": {"memory": "4Gi"}},
        "imagePullSecrets": [{"name": "pull"}],
        "dockerConfigJsonSecretName": "push",
        "downloaderContainerEnvFrom": [{"secretRef": {"name": "store-token"}}],
    }
    component = DynamoComponent.model_validate({**SEED_COMPONENT, "spec": spec})

    assert component.to_wire()["spec"] == spec
    assert not component.spec.model_extra


def test_the_artifact_is_required() -> None:
    with pytest.raises(ValidationError, match="dynamoComponent"):
        DynamoComponent.model_validate({**SEED_COMPONENT, "spec": {}})


def test_the_status_carries_conditions_and_the_image() -> None:
    status = {
        "observedGeneration": 2,
        "image": "registry/dynamo-components:dynamo.frontend.v1",
        "conditions": [{"type": "DynamoComponentAvailable", "status": "True"}],
    }
    component = DynamoComponent.model_validate({**SEED_COMPONENT, "status": status})

    assert component.to_wire()["status"] == status


def test_the_seed_graph_names_its_artifact_and_a_service_its_claim() -> None:
    graph = DynamoGraphDeployment.model_validate(
        {
            "metadata": {"name": "llm-agg"},
            "spec": {
                "dynamoComponent": "frontend:jh2o6dqzpsgfued4",
                "services": {
                    "VllmWorker": {
                        "replicas": 1,
                        "pvc": {"name": "vllm-model-storage", "mountPath": "/models", "size": 100},
                    }
                },
            },
        }
    )

    claim = graph.spec.services["VllmWorker"].pvc
    assert graph.spec.dynamo_component == "frontend:jh2o6dqzpsgfued4"
    assert claim is not None
    assert (claim.name, claim.mount_path, claim.size) == ("vllm-model-storage", "/models", "100")
    assert not graph.spec.services["VllmWorker"].model_extra


def test_a_component_deployment_names_its_artifact_and_tag() -> None:
    dcd = DynamoComponentDeployment.model_validate(
        {
            "metadata": {"name": "test-41fa991-vllmworker"},
            "spec": {
                "dynamoNamespace": "dynamo",
                "dynamoComponent": "frontend:jh2o6dqzpsgfued4",
                "dynamoTag": "graphs.disagg:Frontend",
                "serviceName": "Frontend",
            },
        }
    )

    assert dcd.spec.dynamo_component == "frontend:jh2o6dqzpsgfued4"
    assert dcd.spec.dynamo_tag == "graphs.disagg:Frontend"
    assert not dcd.spec.model_extra
