import io
from pathlib import Path

import pytest

from manager.cli import main
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


def test_warnings_are_printed_with_their_field_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-f", str(GRAPHS / "llm-agg.yaml"))

    assert code == 0
    assert "  warning: spec.services.VllmWorker.pvc: unknown field; it is kept but ignored" in out


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
        ("kind: Pod\nmetadata: {name: p}\n", "#1 (Pod/p): kind: unsupported kind 'Pod'"),
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


def test_a_missing_file_is_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "-f", str(tmp_path / "absent.yaml"))

    assert code == 2
    assert "absent.yaml: cannot read" in err
