"""Kubernetes quantities and resource names, checked as the API server checks a pod's containers.

A quantity is a decimal number with an optional suffix: binary (``Ki`` .. ``Ei``), decimal
(``n`` .. ``E``) or an exponent (``1e3``). The API server refuses a container whose amounts are
negative, whose extended resources (``nvidia.com/gpu``) are fractional, lack a limit or differ
between request and limit, or whose request exceeds its limit; a webhook that let such a graph
through would only move the failure into a reconcile, where no user sees it.
"""

from __future__ import annotations

import re
from decimal import Decimal

from dynamo_operator.api import QUANTITY_PATTERN

_QUANTITY = re.compile(QUANTITY_PATTERN)
_NUMBER_AND_SUFFIX = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$")
_DECIMAL_EXPONENTS = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15}
_MULTIPLIERS = {
    **{suffix: Decimal(10) ** exponent for suffix, exponent in _DECIMAL_EXPONENTS.items()},
    "E": Decimal(10) ** 18,
    **{f"{suffix}i": Decimal(1024**power) for power, suffix in enumerate("KMGTPE", start=1)},
}

_QUALIFIED_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_NATIVE_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})


def parse_quantity(text: str) -> Decimal | None:
    """The amount a quantity stands for, or None when it is not a quantity."""
    if not _QUANTITY.match(text):
        return None
    number, suffix = _NUMBER_AND_SUFFIX.match(text).groups()  # type: ignore[union-attr]
    try:
        if suffix in _MULTIPLIERS:
            return Decimal(number) * _MULTIPLIERS[suffix]
        return Decimal(number) * Decimal(10) ** int(suffix[1:])  # an exponent: e3, E-3
    except (ArithmeticError, KeyError, ValueError):  # decimal's errors are ArithmeticErrors
        return None


def is_native_resource(name: str) -> bool:
    """Resources of Kubernetes itself, which may be overcommitted; others are extended."""
    return "/" not in name or "kubernetes.io/" in name


def resource_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a container resource, or None."""
    prefix, slash, local = name.rpartition("/")
    if not slash:
        if name in _NATIVE_RESOURCES or name.startswith("hugepages-"):
            return None
        return (
            f"'{name}' is not a standard resource (cpu, memory, ephemeral-storage, hugepages-*); "
            "other resources need a domain prefix, e.g. example.com/device"
        )
    if not (len(prefix) <= 253 and _DNS_SUBDOMAIN.match(prefix)):
        return f"'{name}' has an invalid prefix (must be a DNS subdomain, e.g. nvidia.com)"
    if not (len(local) <= 63 and _QUALIFIED_NAME_PART.match(local)):
        return (
            f"'{name}' has an invalid name part (alphanumerics, '-', '_' or '.', at most 63 "
            "characters, starting and ending with an alphanumeric)"
        )
    return None
