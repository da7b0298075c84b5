from decimal import Decimal

import pytest

from dynamo_operator.validation.quantities import (
    is_native_resource,
    parse_quantity,
    resource_name_problem,
)


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("2", Decimal(2)),
        ("500m", Decimal("0.5")),
        ("1.5Gi", Decimal(1024**3) * Decimal("1.5")),
        ("8Gi", Decimal(8 * 1024**3)),
        ("1k", Decimal(1000)),
        ("2Ei", Decimal(2 * 1024**6)),
        ("3E", Decimal(3 * 10**18)),
        ("1e3", Decimal(1000)),
        ("1E-3", Decimal("0.001")),
        ("-1", Decimal(-1)),
        (".5", Decimal("0.5")),
        ("+3M", Decimal(3_000_000)),
    ],
)
def test_quantities_parse_to_their_amount(text: str, amount: Decimal) -> None:
    assert parse_quantity(text) == amount


@pytest.mark.parametrize(
    "text", ["", "abc", "1.5.3Gi", "1K", "Gi", "1 Gi", "1gi", "1e999999999", "nan", "inf", "0x10"]
)
def test_what_is_not_a_quantity_parses_to_none(text: str) -> None:
    assert parse_quantity(text) is None


@pytest.mark.parametrize(
    "name", ["cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "nvidia.com/gpu", "a.b/c_d.e"]
)
def test_valid_resource_names(name: str) -> None:
    assert resource_name_problem(name) is None


@pytest.mark.parametrize("name", ["gpu", "Nvidia.com/gpu", "nvidia.com/", "/gpu", "x.io/-bad"])
def test_invalid_resource_names_say_why(name: str) -> None:
    assert resource_name_problem(name)


def test_native_resources_are_those_of_kubernetes_itself() -> None:
    assert is_native_resource("cpu")
    assert is_native_resource("kubernetes.io/batch-cpu")
    assert not is_native_resource("nvidia.com/gpu")
