"""The validator's merge of a service's amounts agrees with the builders' container resources."""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dynamo_operator.api import Resources
from dynamo_operator.builders.resources import build_container_resources
from dynamo_operator.validation import validate_create
from dynamo_operator.validation.resources import container_amounts

amounts = st.sampled_from(["1", "2", "500m", "8Gi", "0"])
names = st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "example.com/fpga"])
items = st.fixed_dictionaries(
    {},
    optional={
        "cpu": amounts,
        "memory": amounts,
        "gpu": amounts,
        "gpuType": st.sampled_from(["nvidia.com/gpu", "gpu.intel.com/xe"]),
        "custom": st.dictionaries(st.sampled_from(["example.com/fpga", "x.io/y"]), amounts),
    },
)
sides = st.dictionaries(names, amounts, max_size=3)


@settings(max_examples=200, deadline=None)
@given(
    spec=st.fixed_dictionaries({}, optional={"requests": items, "limits": items}),
    container=st.fixed_dictionaries({}, optional={"requests": sides, "limits": sides}),
)
def test_container_amounts_match_the_built_container(
    spec: dict[str, Any], container: dict[str, Any]
) -> None:
    built = build_container_resources(spec, container)
    expected = {side: built[side] for side in ("requests", "limits") if built.get(side)}

    assert container_amounts(Resources.model_validate(spec), container) == expected


def test_a_gpu_request_without_a_limit_is_refused_saying_what_to_write_instead() -> None:
    # upstream renders requests.gpu alone (controller_common GetResourcesConfig), and the API
    # server then refuses the pod: extended resources need a limit, equal to the request
    graph = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "llm"},
        "spec": {"services": {"W": {"resources": {"requests": {"gpu": "2"}}}}},
    }

    assert validate_create(graph).summary() == (
        "spec.services.W.resources: nvidia.com/gpu is requested (2) without a limit, which "
        "Kubernetes refuses for an extended resource: give the amount as a limit instead "
        "(limits.gpu for GPUs, limits.custom for others); the request defaults to it"
    )
