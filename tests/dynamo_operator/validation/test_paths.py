import pytest

from dynamo_operator.validation.paths import join_path


@pytest.mark.parametrize(
    ("base", "parts", "expected"),
    [
        ("", ("spec",), "spec"),
        ("spec.services", ("Frontend", "replicas"), "spec.services.Frontend.replicas"),
        ("spec", ("envs", 0, "name"), "spec.envs[0].name"),
        ("spec.pvcs", (3,), "spec.pvcs[3]"),
    ],
)
def test_join_path_writes_paths_as_users_read_them(
    base: str, parts: tuple[str | int, ...], expected: str
) -> None:
    assert join_path(base, *parts) == expected
