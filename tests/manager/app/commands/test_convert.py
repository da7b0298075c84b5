import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from manager.app.cli import main
from tests.fixtures import FIXTURES

CONVERSION = FIXTURES / "conversion"
TWINS = sorted(
    path.name.removesuffix(".v1beta1.yaml") for path in CONVERSION.glob("*.v1beta1.yaml")
)
CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "cfg"},
    "data": {"a": "b"},
}
MODEL = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoModel",
    "metadata": {"name": "m"},
    "spec": {"modelName": "m", "baseModelName": "b"},
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["convert", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def write(tmp_path: Path, *documents: Any) -> str:
    path = tmp_path / "bundle.yaml"
    path.write_text(yaml.safe_dump_all(documents))
    return str(path)


@pytest.mark.parametrize("twin", TWINS)
@pytest.mark.parametrize(("source", "target"), [("v1alpha1", "v1beta1"), ("v1beta1", "v1alpha1")])
def test_each_example_converts_to_its_twin(
    capsys: pytest.CaptureFixture[str], twin: str, source: str, target: str
) -> None:
    code, out, err = run(capsys, "--to", target, "-f", str(CONVERSION / f"{twin}.{source}.yaml"))

    assert (code, err) == (0, "")
    assert list(yaml.safe_load_all(out)) == [load(CONVERSION / f"{twin}.{target}.yaml")]


def test_a_bundle_converts_in_place_and_passes_other_documents_through(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    alpha = load(CONVERSION / "vllm-agg.v1alpha1.yaml")
    beta = load(CONVERSION / "sglang-disagg.v1beta1.yaml")
    adapter = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeploymentScalingAdapter",
        "metadata": {"name": "agg-decode"},
        "spec": {"replicas": 2, "dgdRef": {"name": "agg", "serviceName": "decode"}},
    }

    code, out, err = run(
        capsys, "--to", "v1beta1", "-f", write(tmp_path, CONFIG_MAP, alpha, MODEL, beta, adapter)
    )

    assert (code, err) == (0, "")
    assert list(yaml.safe_load_all(out)) == [
        CONFIG_MAP,
        load(CONVERSION / "vllm-agg.v1beta1.yaml"),
        MODEL,  # DynamoModel is served at v1alpha1 only
        beta,  # already at v1beta1
        {
            **adapter,
            "apiVersion": "nvidia.com/v1beta1",
            "spec": {"replicas": 2, "dgdRef": {"name": "agg", "componentName": "decode"}},
        },
    ]


def test_a_round_trip_gives_the_documents_back(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    original = (CONVERSION / "trtllm-multinode.v1alpha1.yaml").read_text()
    _, beta, _ = run(
        capsys, "--to", "v1beta1", "-f", str(CONVERSION / "trtllm-multinode.v1alpha1.yaml")
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(beta))

    code, back, _ = run(capsys, "--to", "v1alpha1", "-f", "-")

    assert code == 0
    assert list(yaml.safe_load_all(back)) == [yaml.safe_load(original)]


def test_json_output_is_a_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--to", "v1beta1", "-o", "json", "-f", str(CONVERSION / "worker-dcd.v1alpha1.yaml")
    )

    assert code == 0
    assert json.loads(out) == [load(CONVERSION / "worker-dcd.v1beta1.yaml")]


def test_what_cannot_be_converted_is_one_line_per_field_and_nothing_is_printed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wrong_version = {
        "apiVersion": "nvidia.com/v2",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g2"},
        "spec": {},
    }
    broken = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {"services": {"w": {"replicas": "two"}}},
    }
    path = write(tmp_path, CONFIG_MAP, wrong_version, broken)

    code, out, err = run(capsys, "--to", "v1beta1", "-f", path)

    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"dynamo-operator convert: {path}#2 (DynamoGraphDeployment/g2): apiVersion: must be "
        "nvidia.com/v1alpha1 or nvidia.com/v1beta1 (got 'nvidia.com/v2')",
        f"dynamo-operator convert: {path}#3 (DynamoGraphDeployment/g): "
        "spec.services.w.replicas: Input should be a valid integer (got 'two')",
    ]


def test_unusable_input_exits_two(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- a\n- b\n")

    code, out, err = run(capsys, "--to", "v1beta1", "-f", str(path), "-f", str(tmp_path / "none"))

    assert (code, out) == (2, "")
    assert err.splitlines()[0] == (
        f"dynamo-operator convert: {path}#1: a document must be a mapping (an object)"
    )
    assert "cannot read" in err.splitlines()[1]


def test_the_target_version_is_required_and_closed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["convert", "--to", "v2", "-f", str(CONVERSION / "worker-dcd.v1alpha1.yaml")])

    assert exited.value.code == 2
    assert "invalid choice: 'v2'" in capsys.readouterr().err
