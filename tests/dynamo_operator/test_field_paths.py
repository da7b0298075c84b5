import pytest

from dynamo_operator.field_paths import describe, join_path


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


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("v1", "'v1'"),
        ("x" * 100, repr("x" * 37 + "...")),
        (3, "3"),
        (2**70, "a very large integer"),
        (True, "True"),
        (None, "None"),
        ({"deep": [[[[]]]]}, "an object"),
        ([1, 2], "a list"),
    ],
)
def test_describe_shows_short_scalars_and_only_the_kind_of_anything_else(
    value: object, shown: str
) -> None:
    assert describe(value) == shown
