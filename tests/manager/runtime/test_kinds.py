from manager.runtime.kinds import CONFIG_MAP, LEASE, NAMESPACE, ResourceKind

DEPLOYMENT = ResourceKind("apps/v1", "Deployment", "deployments", namespaced=True)
DGD = ResourceKind("nvidia.com/v1alpha1", "DynamoGraphDeployment", "dynamographdeployments", True)


def test_group_and_version_split_the_api_version() -> None:
    assert (CONFIG_MAP.group, CONFIG_MAP.version) == ("", "v1")
    assert (LEASE.group, LEASE.version) == ("coordination.k8s.io", "v1")


def test_core_and_group_kinds_live_under_api_and_apis() -> None:
    assert CONFIG_MAP.collection_path("ns") == "/api/v1/namespaces/ns/configmaps"
    assert CONFIG_MAP.collection_path(None) == "/api/v1/configmaps"
    assert DEPLOYMENT.object_path("ns", "web", "scale") == (
        "/apis/apps/v1/namespaces/ns/deployments/web/scale"
    )
    assert DGD.object_path("ns", "g", "status") == (
        "/apis/nvidia.com/v1alpha1/namespaces/ns/dynamographdeployments/g/status"
    )


def test_cluster_scoped_kinds_ignore_the_namespace() -> None:
    assert NAMESPACE.object_path("ignored", "team-a") == "/api/v1/namespaces/team-a"
