"""The ``kwok_only`` marks of e2e tests that need kwok's fake nodes, each with its reason.

On kind (``hack/test-kind``) they are deselected (``-m "not kwok_only"``): a real node runs only
images it has, and nothing can be pulled on these machines."""

import pytest

PODS_READY = pytest.mark.kwok_only(
    reason="the graph is successful only once its pods are Ready; kwok marks them Ready without "
    "pulling their images (nvcr.io, registry.invalid), which no real node here can pull"
)
UNPULLABLE_IMAGE = pytest.mark.kwok_only(
    reason="its pods' image (registry.invalid) is never pulled: only kwok's fake nodes 'run' it"
)
FAKE_GPUS = pytest.mark.kwok_only(reason="needs kwok's fake nodes with nvidia.com/gpu capacity")
ENDPOINTS_OF_READY_PODS = pytest.mark.kwok_only(
    reason="the cluster's EndpointSlices list the components' pods once Ready; kwok marks them "
    "Ready without pulling their nvcr.io image"
)
