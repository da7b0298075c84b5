import io
from pathlib import Path

import pytest

from manager.app.cli import main
from tests.fixtures import FIXTURES, INVALID_DOCUMENTS, VALID_GRAPHS, expected_error_paths

GRAPHS = FIXTURES / "graphs"
INVALID = FIXTURES / "invalid"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["validate", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_valid_documents_exit_zero_and_say_so(capsys: pytest.CaptureFixture[str]) -> None:
    files = [arg for path in VALID_GRAPHS for arg in ("-f", str(path))]

    code, out, err = run(capsys, *files)

    assert code == 0
    assert err == ""
    assert f"{GRAPHS / 'disagg.yaml'}#1 (DynamoGraphDeployment/disagg): valid" in out.splitlines()


def test_warnings_are_printed_with_their_field_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "graph.yaml"
    path.write_text(
        "apiVersion: nvidia.com/v1alpha1\n"
        "kind: DynamoGraphDeployment\n"
        "metadata: {name: g}\n"
        "spec:\n"
        "  backendFramework: vllm\n"
        "  pvcs: [{name: a}, {name: b}]\n"
        "  services:\n"
        "    Worker:\n"
        "      volumeMounts:\n"
        "      - {name: a, useAsCompilationCache: true}\n"
        "      - {name: b, useAsCompilationCache: true}\n"
    )

    code, out, _ = run(capsys, "-f", str(path))

    assert code == 0
    assert "  warning: spec.services.Worker.volumeMounts: only the first compilation cache" in out


def test_a_field_the_api_does_not_define_is_an_error_naming_its_path(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As ``kubectl apply`` answers it (unknown field "spec.services.Frontend.replica"), not a
    warning: the CRD would prune it and the operator would never see it."""
    path = INVALID / "unknown-fields.yaml"

    code, out, _ = run(capsys, "-f", str(path))

    assert code == 1
    assert out.splitlines() == [
        f"{path}#1 (DynamoGraphDeployment/unknown-fields): invalid",
        *(
            f"  error: {field}: unknown field; the API server rejects it (or drops it when "
            "field validation is off)"
            for field in expected_error_paths(path)
        ),
    ]


def test_an_invalid_document_exits_one_and_names_each_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = INVALID / "dynamo-namespace-mismatch.yaml"

    code, out, _ = run(capsys, "-f", str(GRAPHS / "disagg.yaml"), "-f", str(path))

    assert code == 1
    assert f"{path}#1 (DynamoGraphDeployment/mismatch): invalid" in out
    assert "  error: spec.services.Worker.dynamoNamespace: 'team-b' differs from 'team-a'" in out


def test_every_invalid_fixture_is_reported_at_its_field(capsys: pytest.CaptureFixture[str]) -> None:
    for path in INVALID_DOCUMENTS:
        code, out, err = run(capsys, "-f", str(path))

        assert code in (1, 2), path.name
        for field_path in expected_error_paths(path):
            assert f"{field_path}: " in out + err, path.name


def test_documents_are_numbered_within_a_multi_document_stream(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = (
        (GRAPHS / "disagg.yaml").read_text()
        + "\n---\n"
        + (INVALID / "no-services.yaml").read_text()
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(stream))

    code, out, _ = run(capsys, "-f", "-")

    assert code == 1
    assert "<stdin>#1 (DynamoGraphDeployment/disagg): valid" in out
    assert "<stdin>#2 (DynamoGraphDeployment/empty): invalid" in out


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("spec: [unclosed\n", "not valid YAML"),
        ("- just\n- a list\n", "#1: a document must be a mapping"),
        # Documents of other kinds are skipped, but must be Kubernetes objects all the same.
        ("kind: Pod\nmetadata: {name: p}\n", "#1 (Pod/p): apiVersion: required field is missing"),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {labels: {a: b}}\n",
            "#1 (ConfigMap/<unnamed>): metadata.name: required field is missing",
        ),
        (
            "kind: DynamoModel\nmetadata: {name: m}\nspec: {modelName: m}\n",
            "#1 (DynamoModel/m): spec.baseModelName: required field is missing",
        ),
        (
            "kind: DynamoGraphDeployment\nmetadata: {name: g}\n"
            "spec: {services: {A: {replicas: two}}}\n",
            "#1 (DynamoGraphDeployment/g): spec.services.A.replicas: "
            "Input should be a valid integer",
        ),
        # Constructor errors, nesting and alias bombs used to escape as tracebacks or hangs.
        ("spec: {replicas: !!int abc}\n", "not valid YAML: 'abc' is not a valid integer"),
        ("metadata: {name: !!binary '//79'}\n", "!!binary value must decode to UTF-8 text"),
        ("spec: " + "[" * 1500 + "]" * 1500 + "\n", "nesting deeper than 100 levels"),
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n"
                for p, n in zip("abcdef", "bcdefg", strict=True)
            )
            + "kind: DynamoGraphDeployment\n",
            "values once YAML aliases are expanded",
        ),
        ("kind: DynamoModel\nkind: DynamoModel\n", "duplicate key 'kind' (first given on line 1)"),
        ("", "no YAML document in the input"),
        ("---\n---\n", "no YAML document in the input"),
    ],
)
def test_bad_input_is_one_line_on_stderr_with_exit_code_two(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, expected: str
) -> None:
    path = tmp_path / "input.yaml"
    path.write_text(content)

    code, out, err = run(capsys, "-f", str(path))

    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert expected in err
    assert str(path) in err


def test_each_problem_of_a_bad_document_is_a_line_of_its_own(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "input.yaml"
    path.write_text("apiVersion: 1\nkind: [Pod]\nmetadata: 7\n")

    code, out, err = run(capsys, "-f", str(path))

    assert code == 2
    assert out == ""
    assert err.splitlines() == [
        f"dynamo-operator validate: {path}#1 (<no kind>/<unnamed>): {problem}"
        for problem in [
            "apiVersion: must be a non-empty string (got 1)",
            "kind: must be a non-empty string (got a list)",
            "metadata: must be an object (got 7)",
        ]
    ]


def test_a_missing_file_is_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "-f", str(tmp_path / "absent.yaml"))

    assert code == 2
    assert "absent.yaml: cannot read" in err


BUNDLES = FIXTURES / "bundles"


def test_a_kubectl_apply_bundle_is_checked_document_by_document(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = BUNDLES / "agg-with-config.yaml"

    code, out, err = run(capsys, "-f", str(path))

    assert code == 0
    assert out.splitlines() == [f"{path}#4 (DynamoGraphDeployment/agg): valid"]
    assert err.splitlines() == [
        f"dynamo-operator validate: {path}#{index} ({name}): skipped: not a Dynamo kind"
        for index, name in [
            (1, "ConfigMap/agg-config"),
            (2, "PersistentVolumeClaim/model-cache"),
            (3, "ResourceClaimTemplate/gpus"),
        ]
    ]


def test_a_graph_with_unknown_fields_inside_a_bundle_is_invalid(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(
        (BUNDLES / "agg-with-config.yaml").read_text().replace("replicas: 1", "replica: 1")
    )

    code, out, err = run(capsys, "-f", str(bundle))

    assert code == 1
    assert f"{bundle}#4 (DynamoGraphDeployment/agg): invalid" in out
    assert "  error: spec.services.Frontend.replica: unknown field" in out
    assert err.count("skipped: not a Dynamo kind") == 3


def test_bad_input_in_one_document_hides_none_of_the_others(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stream = tmp_path / "stream.yaml"
    stream.write_text(
        "[not, an, object]\n"
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: x}\n"
        "---\nkind: DynamoModel\nmetadata: {name: m}\nspec: {modelName: m}\n"
        + "---\n"
        + (GRAPHS / "disagg.yaml").read_text()
        + "---\n"
        + (INVALID / "dynamo-namespace-mismatch.yaml").read_text()
    )

    code, out, err = run(capsys, "-f", str(stream), "-f", str(tmp_path / "absent.yaml"))

    assert code == 2
    assert out.splitlines()[0] == f"{stream}#4 (DynamoGraphDeployment/disagg): valid"
    assert f"{stream}#5 (DynamoGraphDeployment/mismatch): invalid" in out
    assert err.splitlines() == [
        f"dynamo-operator validate: {stream}#1: a document must be a mapping (an object)",
        f"dynamo-operator validate: {stream}#2 (ConfigMap/<unnamed>): metadata.name: "
        "required field is missing",
        f"dynamo-operator validate: {stream}#3 (DynamoModel/m): spec.baseModelName: "
        "required field is missing",
        f"dynamo-operator validate: {tmp_path / 'absent.yaml'}: cannot read: [Errno 2] "
        f"No such file or directory: '{tmp_path / 'absent.yaml'}'",
    ]


def test_a_file_without_any_dynamo_document_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Almost always the wrong file: a silent success would hide it."""
    path = tmp_path / "config.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")

    code, out, err = run(capsys, "-f", str(path), "-f", str(GRAPHS / "disagg.yaml"))

    assert code == 2
    assert out.splitlines() == [f"{GRAPHS / 'disagg.yaml'}#1 (DynamoGraphDeployment/disagg): valid"]
    assert err.splitlines() == [
        f"dynamo-operator validate: {path}#1 (ConfigMap/c): skipped: not a Dynamo kind",
        f"dynamo-operator validate: {path}: no Dynamo document (DynamoGraphDeployment, "
        "DynamoComponentDeployment, DynamoModel) among its 1 document(s)",
    ]


CONVERSION = FIXTURES / "conversion"


def test_a_bundle_mixing_both_versions_is_checked_each_at_its_own_version(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    invalid_beta = (
        "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: {name: beta}\n"
        "spec:\n  components:\n"
        "  - name: Frontend\n    podTemplate: {spec: {containers: [{name: main, image: i}]}}\n"
        "  - name: frontend\n    podTemplate: {spec: {containers: [{name: sidecar, image: i}]}}\n"
    )
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(
        (CONVERSION / "vllm-agg.v1alpha1.yaml").read_text()
        + "---\n"
        + (CONVERSION / "vllm-agg.v1beta1.yaml").read_text()
        + "---\n"
        + invalid_beta
    )

    code, out, err = run(capsys, "-f", str(bundle))

    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f"{bundle}#1 (DynamoGraphDeployment/chat-agg): valid",
        f"{bundle}#2 (DynamoGraphDeployment/chat-agg): valid",
        f"{bundle}#3 (DynamoGraphDeployment/beta): invalid",
        "  error: spec.components[1].name: duplicate component name 'frontend': "
        "spec.components[0] is 'Frontend' (component names are compared ignoring case)",
        "  error: spec.components[1].podTemplate.spec.containers: must have a container named "
        "main with an image",
    ]


def test_a_v1beta1_document_that_does_not_parse_is_bad_input_at_its_v1beta1_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "beta.yaml"
    path.write_text(
        "apiVersion: nvidia.com/v1beta1\nkind: DynamoComponentDeployment\nmetadata: {name: c}\n"
        "spec: {name: worker, replicas: two}\n"
    )

    code, _, err = run(capsys, "-f", str(path))

    assert code == 2
    assert f"{path}#1 (DynamoComponentDeployment/c): spec.replicas: " in err
