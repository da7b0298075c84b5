"""The residue: what a converted object carries so the conversion back is exact.

Stored in one annotation of the converted object (``nvidia.com/dgd-spec`` for a graph,
``nvidia.com/dcd-spec`` for a component deployment), as compact JSON::

    {"v": 1, "h": {...}, "p": [...], "e": 1}

- ``v``: format version; a value of another version is ignored.
- ``h``: placement hints, where the fields of the other version came from when this version
  merges several of them into one (which env entries were ``mainContainer.env``, which resource
  keys ``mainContainer.resources``, which mounts PVC mounts...). Hints say *where*, never *what*:
  the values always come from the converted object, so an edit there shows after the way back.
- ``p``: a patch (``patch.py``) from the object rebuilt from this one to the original: the data
  this version cannot express (v1alpha1 ``ingress``, ``pvcs``; v1beta1 pod-template metadata, the
  order of containers...), each op guarded by the fields it derives from.
- ``e``: the original had an empty ``metadata.annotations`` map (1), an explicit null (2), or no
  ``metadata`` at all (3).

An ordinary object needs no residue and gets no annotation. A value under these keys that is not
such a document (set by hand, truncated) is consumed and ignored: best effort, never an error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final

from dynamo_operator.conversion.errors import ConversionError
from dynamo_operator.conversion.wire import JsonDict, check_json, dumps

GRAPH_ANNOTATION: Final = "nvidia.com/dgd-spec"
COMPONENT_ANNOTATION: Final = "nvidia.com/dcd-spec"
PRESERVED_ANNOTATIONS: Final = (GRAPH_ANNOTATION, COMPONENT_ANNOTATION)
FORMAT_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class Residue:
    hints: JsonDict = field(default_factory=dict)
    ops: list[Any] = field(default_factory=list)
    empty_annotations: bool = False
    null_annotations: bool = False
    no_metadata: bool = False

    def is_empty(self) -> bool:
        flags = self.empty_annotations or self.null_annotations or self.no_metadata
        return not (self.hints or self.ops or flags)


def encode_residue(residue: Residue) -> str:
    document: JsonDict = {"v": FORMAT_VERSION}
    if residue.hints:
        document["h"] = residue.hints
    if residue.ops:
        document["p"] = residue.ops
    if residue.empty_annotations:
        document["e"] = 1
    elif residue.null_annotations:
        document["e"] = 2
    elif residue.no_metadata:
        document["e"] = 3
    return dumps(document)


def decode_residue(text: Any) -> Residue:
    """The residue in an annotation value; an empty one for anything else."""
    if not isinstance(text, str):
        return Residue()
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return Residue()
    if not isinstance(document, dict) or document.get("v") != FORMAT_VERSION:
        return Residue()
    try:
        check_json(document)
    except ConversionError:
        return Residue()
    hints, ops = document.get("h"), document.get("p")
    return Residue(
        hints=hints if isinstance(hints, dict) else {},
        ops=ops if isinstance(ops, list) else [],
        empty_annotations=document.get("e") == 1,
        null_annotations=document.get("e") == 2,
        no_metadata=document.get("e") == 3,
    )
