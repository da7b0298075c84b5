from pathlib import Path

import pytest
import yaml

from manager.app.cli import main

REPOSITORY = Path(__file__).resolve().parents[4]
COMMITTED_CRDS = REPOSITORY / "deploy" / "helm" / "dynamo-operator-crds" / "generated"


def test_committed_crds_are_exactly_the_generated_ones(tmp_path: Path) -> None:
    assert main(["crds", "--output-dir", str(tmp_path)]) == 0

    generated = {path.name: path.read_text() for path in sorted(tmp_path.iterdir())}
    committed = {path.name: path.read_text() for path in sorted(COMMITTED_CRDS.glob("*.yaml"))}
    assert generated == committed, (
        f"{COMMITTED_CRDS} drifted: run `dynamo-operator crds --output-dir {COMMITTED_CRDS}`"
    )


def test_prints_every_crd_as_one_yaml_stream(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["crds"]) == 0

    documents = list(yaml.safe_load_all(capsys.readouterr().out))
    assert [d["metadata"]["name"] for d in documents] == [
        "dynamographdeployments.nvidia.com",
        "dynamocomponentdeployments.nvidia.com",
        "dynamomodels.nvidia.com",
        "dynamocomponents.nvidia.com",
        "dynamographdeploymentscalingadapters.nvidia.com",
        "dynamoworkermetadatas.nvidia.com",
    ]
