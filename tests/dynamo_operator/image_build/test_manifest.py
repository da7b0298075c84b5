from typing import Any

import pytest
import yaml

from dynamo_operator.image_build import (
    ArtifactManifestError,
    parse_artifact_manifest,
)

# Shaped like what `dynamo build` wrote for examples/llm (v0.3), with BentoML's leftovers.
DYNAMO_YAML = """
service: graphs.agg:Frontend
name: frontend
version: jh2o6dqzpsgfued4
bentoml_version: 1.4.0
creation_time: '2025-05-01T10:00:00+00:00'
labels: {}
entry_service: Frontend
services:
- name: Frontend
  dependencies:
  - service: Processor
  config:
    dynamo: {enabled: true, namespace: dynamo, name: Frontend}
    resources: {cpu: 10, memory: 20Gi}
    workers: 1
    http_exposed: true
    api_endpoints: [/v1/chat/completions]
- name: Processor
  config:
    dynamo: {enabled: true, namespace: dynamo}
    workers: 2
- name: VllmWorker
  config:
    dynamo: {enabled: true, namespace: dynamo, component_type: worker}
    resources: {gpu: 8, custom: {rdma/ib: 1}}
    total_gpus: 16
    autoscaling: {min_replicas: 1, max_replicas: 4}
    extraPodSpec:
      mainContainer: {workingDir: /workspace/examples/llm}
docker: {python_version: '3.12'}
"""


def test_the_services_and_their_settings_are_read_and_the_rest_ignored() -> None:
    manifest = parse_artifact_manifest(yaml.safe_load(DYNAMO_YAML))

    assert manifest.service == "graphs.agg:Frontend"
    assert manifest.entry_service == "Frontend"
    assert [service.name for service in manifest.services] == [
        "Frontend",
        "Processor",
        "VllmWorker",
    ]
    frontend, _, worker = manifest.services
    assert frontend.config.http_exposed
    assert frontend.config.resources is not None
    assert frontend.config.resources.cpu == "10"  # YAML's integer, as a quantity
    assert frontend.dependencies == ({"service": "Processor"},)
    assert worker.config.total_gpus == 16
    assert worker.config.resources is not None
    assert worker.config.resources.custom == {"rdma/ib": "1"}
    assert worker.config.autoscaling is not None
    assert worker.config.autoscaling.max_replicas == 4
    assert worker.config.extra_pod_spec == {
        "mainContainer": {"workingDir": "/workspace/examples/llm"}
    }
    assert manifest.service_named("Processor") is manifest.services[1]
    assert manifest.service_named("Nope") is None


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("- a list", "dynamo.yaml: must be a mapping with a services list"),
        ("service: x", "dynamo.yaml: services: Field required"),
        ("services: []", "dynamo.yaml: services: Tuple should have at least 1 item"),
        ("services: [{config: {}}]", "services[0].name: Field required"),
        ("services: [{name: A, config: {workers: two}}]", "services[0].config.workers:"),
        ("services: [{name: A, config: {workers: -1}}]", "services[0].config.workers:"),
        (
            "services: [{name: A}, {name: B, config: {autoscaling: {max_replicas: '4'}}}]",
            "services[1].config.autoscaling.max_replicas:",
        ),
        ("services: [{name: A}, {name: A}]", "services[1].name: duplicate 'A'"),
        (
            "services: [{name: A, dependencies: [{service: B}]}]",
            "services[0].dependencies[0].service: 'B' is not a service of the artifact",
        ),
    ],
)
def test_a_bad_manifest_names_the_path_in_the_file(document: str, message: str) -> None:
    decoded: Any = yaml.safe_load(document)

    with pytest.raises(ArtifactManifestError) as raised:
        parse_artifact_manifest(decoded)

    assert message in str(raised.value)
