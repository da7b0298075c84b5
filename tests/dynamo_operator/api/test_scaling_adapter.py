from typing import Any

import pytest
from pydantic import ValidationError

from dynamo_operator.api import v1beta1
from dynamo_operator.api.scaling_adapter import DynamoGraphDeploymentScalingAdapter

STATUS = {"replicas": 2, "selector": "a=b,c=d", "lastScaleTime": "2026-01-02T03:04:05Z"}


def adapter(api_version: str, dgd_ref: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": "DynamoGraphDeploymentScalingAdapter",
        "metadata": {"name": "agg-decode"},
        "spec": {"replicas": 3, "dgdRef": dgd_ref},
        "status": STATUS,
    }


def test_v1alpha1_names_the_service_and_v1beta1_the_component() -> None:
    alpha = adapter("nvidia.com/v1alpha1", {"name": "agg", "serviceName": "decode"})
    beta = adapter("nvidia.com/v1beta1", {"name": "agg", "componentName": "decode"})

    assert DynamoGraphDeploymentScalingAdapter.model_validate(alpha).to_wire() == alpha
    parsed = v1beta1.DynamoGraphDeploymentScalingAdapter.model_validate(beta)
    assert parsed.spec.dgd_ref.component_name == "decode"
    assert parsed.to_wire() == beta


@pytest.mark.parametrize(
    "spec",
    [
        {"dgdRef": {"name": "agg", "serviceName": "decode"}},
        {"replicas": -1, "dgdRef": {"name": "agg", "serviceName": "decode"}},
        {"replicas": 1, "dgdRef": {"name": "agg"}},
        {"replicas": "2", "dgdRef": {"name": "agg", "serviceName": "decode"}},
    ],
    ids=["no-replicas", "negative", "no-service", "string-replicas"],
)
def test_replicas_and_the_reference_are_required(spec: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        DynamoGraphDeploymentScalingAdapter.model_validate({"spec": spec})
