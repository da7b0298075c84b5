import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from manager.app.cli import main
from tests.fixtures import FIXTURES, INVALID_DOCUMENTS, VALID_GRAPHS

GRAPHS = FIXTURES / "graphs"
MULTINODE = str(GRAPHS / "vllm-disagg-multinode.yaml")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["render", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def objects_of(out: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(out) if doc is not None]


def kinds_and_names(objects: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(obj["kind"], obj["metadata"]["name"]) for obj in objects]


def test_renders_the_seed_graph_into_components_and_their_children(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "-f", str(GRAPHS / "disagg.yaml"))

    assert code == 0
    objects = objects_of(out)
    components = [
        name for kind, name in kinds_and_names(objects) if kind == "DynamoComponentDeployment"
    ]
    assert components == sorted(
        ["disagg-frontend", "disagg-processor", "disagg-vllmworker", "disagg-prefillworker"]
    )
    assert {obj["kind"] for obj in objects} >= {"DynamoComponentDeployment", "Deployment"}
    for obj in objects:
        assert obj["metadata"]["namespace"] == "default"
        assert obj["apiVersion"]
    # diagnostics never pollute the object stream
    assert "warning" not in out
    assert "mainContainer.image" in err


def test_output_is_stable_across_runs(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "-f", MULTINODE)
    second = run(capsys, "-f", MULTINODE)

    assert first == second


def test_json_output_is_a_list_of_the_same_objects(capsys: pytest.CaptureFixture[str]) -> None:
    _, as_yaml, _ = run(capsys, "-f", MULTINODE)
    code, as_json, _ = run(capsys, "-f", MULTINODE, "-o", "json")

    assert code == 0
    assert json.loads(as_json) == objects_of(as_yaml)


def test_namespace_flag_places_objects_that_name_none(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "-f", str(GRAPHS / "disagg.yaml"), "-n", "inference")

    assert {obj["metadata"]["namespace"] for obj in objects_of(out)} == {"inference"}


def test_multinode_uses_leader_worker_sets_unless_the_api_is_absent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, with_lws, _ = run(capsys, "-f", MULTINODE)
    code, without_lws, err = run(
        capsys, "-f", MULTINODE, "--without", "lws", "--without", "volcano"
    )

    assert "LeaderWorkerSet" in {obj["kind"] for obj in objects_of(with_lws)}
    assert code == 0
    assert "LeaderWorkerSet" not in {obj["kind"] for obj in objects_of(without_lws)}
    assert "LeaderWorkerSet API" in err


def test_operator_flags_reach_the_builders(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "-f", str(GRAPHS / "disagg.yaml"), "--natsAddr", "nats://nats:4222")

    assert "nats://nats:4222" in out


def test_reads_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO((GRAPHS / "disagg.yaml").read_text()))

    code, out, _ = run(capsys, "-f", "-")

    assert code == 0
    assert objects_of(out)


def test_an_invalid_graph_renders_nothing_and_exits_one(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "invalid" / "undeclared-pvc.yaml"

    code, out, err = run(capsys, "-f", str(path))

    assert code == 1
    assert out == ""
    assert "spec.services.Worker.volumeMounts[0].name: PVC 'models' is not declared" in err


def test_bad_input_exits_two_without_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n[1]\n")

    code, out, err = run(capsys, "-f", str(path))

    assert code == 2
    assert out == ""
    assert err.splitlines() == [
        f"dynamo-operator render: {path}#1 (ConfigMap/c): skipped: not a Dynamo kind",
        f"dynamo-operator render: {path}#2: a document must be a mapping (an object)",
    ]


def test_a_bundle_renders_its_graph_and_names_what_it_skips(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = FIXTURES / "bundles" / "agg-with-config.yaml"

    code, out, err = run(capsys, "-f", str(path))

    assert code == 0, err
    assert ("DynamoComponentDeployment", "agg-vllmworker") in kinds_and_names(objects_of(out))
    assert {obj["kind"] for obj in objects_of(out)}.isdisjoint(
        {"ConfigMap", "PersistentVolumeClaim", "ResourceClaimTemplate"}
    )
    assert f"{path}#3 (ResourceClaimTemplate/gpus): skipped: not a Dynamo kind" in err


def test_a_graph_with_a_field_the_api_does_not_define_renders_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = FIXTURES / "invalid" / "legacy-dynamo-graph.yaml"

    code, out, err = run(capsys, "-f", str(path))

    assert code == 1
    assert out == ""
    assert err.splitlines() == [
        f"dynamo-operator render: error: {path}#1 (DynamoGraphDeployment/llm-agg): "
        "spec.dynamoGraph: unknown field; the API server rejects it (or drops it "
        "when field validation is off)"
    ]


def test_default_frontend_ingress_flags_reach_the_ingress(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "graph.yaml"
    path.write_text(
        "apiVersion: nvidia.com/v1alpha1\n"
        "kind: DynamoGraphDeployment\n"
        "metadata: {name: g}\n"
        "spec:\n"
        "  services:\n"
        "    Frontend:\n"
        "      componentType: frontend\n"
        "      extraPodSpec: {mainContainer: {image: vllm-runtime:0.7.0}}\n"
    )

    code, out, _ = run(
        capsys,
        "-f",
        str(path),
        "--ingress-controller-class-name",
        "nginx",
        "--ingress-controller-tls-secret-name",
        "wildcard-tls",
        "--ingress-host-suffix",
        "example.com",
    )

    assert code == 0
    (ingress,) = [obj for obj in objects_of(out) if obj["kind"] == "Ingress"]
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["tls"] == [{"hosts": ["g.example.com"], "secretName": "wildcard-tls"}]


@pytest.mark.parametrize("path", INVALID_DOCUMENTS, ids=lambda path: path.stem)
def test_a_document_validate_refuses_renders_nothing(
    capsys: pytest.CaptureFixture[str], path: Path
) -> None:
    """Several of these (``env: "A=1"``, ``volumes: 5``, a string command in a multinode SGLang
    worker) used to pass validation and then crash ``render`` with a traceback."""
    code, out, err = run(capsys, "-f", str(path))

    assert code in (1, 2)
    assert out == ""
    assert err.startswith("dynamo-operator render: ")


def test_malformed_pull_secrets_are_skipped_with_a_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    secrets = [
        {"stringData": "not a map"},
        {"data": ["not", "a", "map"]},
        {"stringData": {".dockerconfigjson": {"auths": {}}}},
        {"data": {".dockerconfigjson": "%%%"}},
        {"stringData": {".dockerconfigjson": "[" * 100_000}},
    ]
    documents = [
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "type": "kubernetes.io/dockerconfigjson",
            "metadata": {"name": f"broken-{index}"},
            **content,
        }
        for index, content in enumerate(secrets)
    ]
    stream = tmp_path / "stream.yaml"
    stream.write_text(
        (VALID_GRAPHS[0]).read_text()
        + "".join("---\n" + json.dumps(doc) + "\n" for doc in documents)
    )

    code, out, err = run(capsys, "-f", str(stream))

    assert code == 0, err
    assert objects_of(out)
    for index in range(len(secrets)):
        assert f"default/broken-{index}: malformed .dockerconfigjson" in err


def test_a_pull_secret_must_still_be_a_kubernetes_object(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stream = tmp_path / "stream.yaml"
    stream.write_text(
        VALID_GRAPHS[0].read_text()
        + "---\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\nmetadata: 7\n"
    )

    code, out, err = run(capsys, "-f", str(stream))

    assert code == 2
    assert out == ""
    assert err.splitlines() == [
        f"dynamo-operator render: {stream}#2 (Secret/<unnamed>): apiVersion: required field is "
        "missing",
        f"dynamo-operator render: {stream}#2 (Secret/<unnamed>): metadata: must be an object "
        "(got 7)",
    ]


CONVERSION = FIXTURES / "conversion"
TWINS = sorted(
    path.name.removesuffix(".v1beta1.yaml") for path in CONVERSION.glob("*.v1beta1.yaml")
)


@pytest.mark.parametrize("twin", TWINS)
def test_a_v1beta1_document_renders_the_children_of_its_v1alpha1_twin(
    capsys: pytest.CaptureFixture[str], twin: str
) -> None:
    beta = run(capsys, "-f", str(CONVERSION / f"{twin}.v1beta1.yaml"))
    alpha = run(capsys, "-f", str(CONVERSION / f"{twin}.v1alpha1.yaml"))

    assert beta[0] == 0
    assert objects_of(beta[1])
    assert beta == alpha


def test_a_bundle_mixing_both_versions_renders_every_graph(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(
        (CONVERSION / "mocker-agg.v1beta1.yaml").read_text()
        + "---\n"
        + (GRAPHS / "disagg.yaml").read_text()
    )

    code, out, _ = run(capsys, "-f", str(bundle))

    assert code == 0
    graphs = {
        obj["metadata"]["labels"].get("nvidia.com/dynamo-graph-deployment-name")
        for obj in objects_of(out)
        if obj["kind"] == "DynamoComponentDeployment"
    }
    assert graphs == {"disagg", load_name(CONVERSION / "mocker-agg.v1beta1.yaml")}


def load_name(path: Path) -> str:
    name: str = yaml.safe_load(path.read_text())["metadata"]["name"]
    return name
