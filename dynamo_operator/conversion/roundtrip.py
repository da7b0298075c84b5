"""The lossless engine: convert with the structural maps, then compute the residue.

Each kind supplies a ``KindCodec``: the structural maps (``to_beta``, ``to_alpha``; the latter
guided by placement hints), the hints a v1alpha1 object needs, and the source maps that guard the
residue's ops. One direction then reads:

1. map the body structurally, and apply the residue the source object carried (consumed);
2. map the result back and diff it against the source: that patch (plus the hints) is the residue
   the converted object carries, so the way back rebuilds the source exactly.

Because the residue is the *difference* to what the way back rebuilds, an ordinary object (one the
structural maps convert exactly) gets an empty residue and no annotation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dynamo_operator.conversion.patch import Path, apply, diff, get_at, is_absent
from dynamo_operator.conversion.preserved import Residue
from dynamo_operator.conversion.wire import JsonDict, digest, dumps

ToBeta = Callable[[JsonDict, JsonDict], JsonDict]
ToAlpha = Callable[[JsonDict, JsonDict, JsonDict], JsonDict]
Hints = Callable[[JsonDict, JsonDict, JsonDict], JsonDict]
Sources = Callable[[Path], list[Path]]


@dataclass(frozen=True, slots=True)
class KindCodec:
    to_beta: ToBeta
    to_alpha: ToAlpha
    alpha_hints: Hints
    beta_sources: Sources
    """v1alpha1 path -> the v1beta1 paths it derives from."""
    alpha_sources: Sources
    """v1beta1 path -> the v1alpha1 paths it derives from."""
    annotation: str | None


def alpha_to_beta(
    codec: KindCodec, body: JsonDict, metadata: JsonDict, carried: Residue
) -> tuple[JsonDict, Residue]:
    beta = _carried(codec.to_beta(body, metadata), carried, _Guard(body, codec.alpha_sources))
    hints = codec.alpha_hints(body, beta, metadata)
    rebuilt = codec.to_alpha(beta, hints, metadata)
    ops = diff(rebuilt, body, _Guard(beta, codec.beta_sources))
    return beta, Residue(hints=hints, ops=ops)


def beta_to_alpha(
    codec: KindCodec, body: JsonDict, metadata: JsonDict, carried: Residue
) -> tuple[JsonDict, Residue]:
    alpha = codec.to_alpha(body, carried.hints, metadata)
    alpha = _carried(alpha, carried, _Guard(body, codec.beta_sources))
    rebuilt = codec.to_beta(alpha, metadata)
    ops = diff(rebuilt, body, _Guard(alpha, codec.alpha_sources))
    return alpha, Residue(ops=ops)


def _carried(converted: JsonDict, carried: Residue, guard: _Guard) -> JsonDict:
    """``converted`` with the carried ops applied; a residue that would make the body anything
    but an object (only a hostile annotation can) is ignored."""
    patched = apply(converted, carried.ops, guard)
    return patched if isinstance(patched, dict) else converted


class _Guard:
    """Fingerprint of the fields of ``root`` a path derives from ("" when none), memoised."""

    def __init__(self, root: Any, sources: Sources) -> None:
        self._root = root
        self._sources = sources
        self._seen: dict[str, str] = {}

    def __call__(self, path: Path) -> str:
        key = dumps(path)
        if key not in self._seen:
            paths = self._sources(path)
            values = [self._value(source) for source in paths]
            self._seen[key] = digest(values) if paths else ""
        return self._seen[key]

    def _value(self, path: Path) -> list[Any]:
        value = get_at(self._root, path)
        return [0] if is_absent(value) else [1, value]
