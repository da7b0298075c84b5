"""Label selectors in the API server's string syntax, evaluated against cached objects.

Supports what `kubectl -l` accepts: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`
(exists) and `!k` (does not exist), joined by commas.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from manager.runtime.cache.errors import SelectorSyntaxError

__all__ = [
    "LabelSelector",
    "Requirement",
]

Operator = Literal["=", "!=", "in", "notin", "exists", "!"]

_SET_REQUIREMENT = re.compile(r"^\s*([^\s!=(),]+)\s+(in|notin)\s*\(([^)]*)\)\s*$")
_EQUALITY = re.compile(r"^\s*([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)\s*$")
_EXISTS = re.compile(r"^\s*(!?)\s*([^\s!=(),]+)\s*$")


@dataclass(frozen=True, slots=True)
class Requirement:
    key: str
    operator: Operator
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        match self.operator:
            case "=" | "in":
                return labels.get(self.key) in self.values
            case "!=" | "notin":
                return labels.get(self.key) not in self.values
            case "exists":
                return self.key in labels
            case "!":
                return self.key not in labels


@dataclass(frozen=True, slots=True)
class LabelSelector:
    requirements: tuple[Requirement, ...]

    @classmethod
    def parse(cls, selector: str | Mapping[str, str]) -> LabelSelector:
        if isinstance(selector, Mapping):
            return cls(tuple(Requirement(k, "=", frozenset({v})) for k, v in selector.items()))
        return cls(tuple(_parse_requirement(term) for term in _split_terms(selector)))

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(requirement.matches(labels) for requirement in self.requirements)

    def equalities(self) -> list[tuple[str, str]]:
        """The `key=value` pairs every match must carry (usable against a label index)."""
        return [
            (r.key, next(iter(r.values)))
            for r in self.requirements
            if r.operator in ("=", "in") and len(r.values) == 1
        ]


def _split_terms(selector: str) -> list[str]:
    terms: list[str] = []
    current: list[str] = []
    depth = 0
    for char in selector:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            terms.append("".join(current))
            current = []
        else:
            current.append(char)
    terms.append("".join(current))
    if depth != 0:
        raise SelectorSyntaxError(f"unbalanced parentheses in {selector!r}")
    return [term for term in terms if term.strip()]


def _parse_requirement(term: str) -> Requirement:
    if match := _SET_REQUIREMENT.match(term):
        key, operator, values = match.groups()
        parsed = frozenset(v.strip() for v in values.split(",") if v.strip())
        return Requirement(key, "in" if operator == "in" else "notin", parsed)
    if match := _EQUALITY.match(term):
        key, operator, value = match.groups()
        return Requirement(key, "!=" if operator == "!=" else "=", frozenset({value}))
    if match := _EXISTS.match(term):
        negated, key = match.groups()
        return Requirement(key, "!" if negated else "exists")
    raise SelectorSyntaxError(f"invalid label selector term {term!r}")
