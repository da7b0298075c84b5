"""The scaling adapter: dgdRef.serviceName <-> dgdRef.componentName, nothing else."""

from __future__ import annotations

import pytest

from dynamo_operator.conversion import (
    ALPHA_API_VERSION,
    BETA_API_VERSION,
    PRESERVED_ANNOTATIONS,
    ConversionError,
    convert,
)

ALPHA = {
    "apiVersion": ALPHA_API_VERSION,
    "kind": "DynamoGraphDeploymentScalingAdapter",
    "metadata": {"name": "chat-decode", "annotations": {"a": "b"}},
    "spec": {"replicas": 3, "dgdRef": {"name": "chat", "serviceName": "decode"}},
    "status": {"replicas": 3, "selector": "app=x", "lastScaleTime": "2026-01-01T00:00:00Z"},
}


def test_the_reference_is_renamed_both_ways() -> None:
    beta = convert(ALPHA, BETA_API_VERSION)
    assert beta["spec"] == {"replicas": 3, "dgdRef": {"name": "chat", "componentName": "decode"}}
    assert beta["status"] == ALPHA["status"]
    assert beta["metadata"] == ALPHA["metadata"]
    assert not set(beta["metadata"]["annotations"]) & set(PRESERVED_ANNOTATIONS)
    assert convert(beta, ALPHA_API_VERSION) == ALPHA


def test_an_adapter_holding_both_names_is_refused_not_truncated() -> None:
    obj = {**ALPHA, "spec": {"dgdRef": {"serviceName": "a", "componentName": "b"}}}
    with pytest.raises(ConversionError) as raised:
        convert(obj, BETA_API_VERSION)
    assert raised.value.path.startswith("spec.dgdRef")
