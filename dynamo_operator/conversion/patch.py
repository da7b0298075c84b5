"""A small JSON patch: what turns one converted object into the exact original, op by op.

Paths are lists of steps: a key (text), an index (int), or ``[name]``, the entry of a list whose
``name`` is that name (lists keyed by name: components, containers, env...), so an op still finds
its entry after entries were added, removed or reordered. Ops (compact JSON arrays):

- ``["s", path, value, guard]``: set the value at path;
- ``["d", path, guard]``: delete the key or entry at path;
- ``["o", path, names]``: reorder a list keyed by name (names listed first, in that order).

An op whose path no longer leads anywhere is skipped: a patch never creates an entry the other
version deleted. ``guard`` ("" for none) is the fingerprint of the fields of the *other* version
the op's field is derived from; the caller skips an op whose guard no longer matches, so preserved
data never overrides a field that was edited where it is expressed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dynamo_operator.conversion.wire import copy_json, same

Step = str | int | list[str]
Path = list[Step]
Guard = Callable[[Path], str]

_ABSENT = object()


def get_at(root: Any, path: Path) -> Any:
    """The value at path, or ``ABSENT``."""
    node = root
    for step in path:
        node = _child(node, step)
        if node is _ABSENT:
            return _ABSENT
    return node


def is_absent(value: Any) -> bool:
    return value is _ABSENT


def _child(node: Any, step: Any) -> Any:
    if isinstance(step, str):
        return node.get(step, _ABSENT) if isinstance(node, dict) else _ABSENT
    if isinstance(step, int) and not isinstance(step, bool):
        return node[step] if isinstance(node, list) and 0 <= step < len(node) else _ABSENT
    index = _named_index(node, step)
    return _ABSENT if index is None else node[index]


def _named_index(node: Any, step: Any) -> int | None:
    if not (isinstance(node, list) and isinstance(step, list) and len(step) == 1):
        return None
    for index, entry in enumerate(node):
        if isinstance(entry, dict) and entry.get("name") == step[0]:
            return index
    return None


def named_keys(items: list[Any]) -> list[str] | None:
    """The names of a list keyed by name (dict entries, unique text names), else None."""
    names: list[str] = []
    for entry in items:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str):
            return None
        names.append(name)
    return names if len(set(names)) == len(names) else None


def diff(base: Any, target: Any, guard: Guard) -> list[list[Any]]:
    """Ops turning ``base`` into ``target``."""
    ops: list[list[Any]] = []
    _diff(base, target, [], guard, ops)
    return ops


def _diff(base: Any, target: Any, path: Path, guard: Guard, ops: list[list[Any]]) -> None:
    if same(base, target):
        return
    if isinstance(base, dict) and isinstance(target, dict):
        # Sorted: the residue must not depend on the order keys happen to have in a dict.
        for key in sorted(base.keys() - target.keys()):
            ops.append(["d", [*path, key], guard([*path, key])])
        for key in sorted(target):
            if key in base:
                _diff(base[key], target[key], [*path, key], guard, ops)
            else:
                ops.append(["s", [*path, key], copy_json(target[key]), guard([*path, key])])
        return
    if isinstance(base, list) and isinstance(target, list):
        base_names, target_names = named_keys(base), named_keys(target)
        if base_names is not None and target_names is not None:
            if set(base_names) == set(target_names):
                if base_names != target_names:
                    ops.append(["o", path, target_names])
                by_name = {entry["name"]: entry for entry in base}
                for entry in target:
                    _diff(by_name[entry["name"]], entry, [*path, [entry["name"]]], guard, ops)
                return
        elif len(base) == len(target):
            for index, (old, new) in enumerate(zip(base, target, strict=True)):
                _diff(old, new, [*path, index], guard, ops)
            return
    ops.append(["s", path, copy_json(target), guard(path)])


def apply(root: Any, ops: Any, guard: Guard) -> Any:
    """``root`` (modified in place when the ops allow) with the ops applied; bad ops skipped."""
    if not isinstance(ops, list):
        return root
    for op in ops:
        if not (isinstance(op, list) and op and isinstance(op[0], str) and len(op) >= 3):
            continue
        path = op[1]
        if not _valid_path(path):
            continue
        if op[0] == "o":
            _reorder(get_at(root, path), op[2])
            continue
        expected = op[3] if op[0] == "s" and len(op) > 3 else op[2] if op[0] == "d" else None
        if isinstance(expected, str) and expected and guard(path) != expected:
            continue
        if not path:
            if op[0] == "s":
                root = copy_json(op[2])
            continue
        parent = get_at(root, path[:-1])
        if op[0] == "s":
            _set(parent, path[-1], op[2])
        elif op[0] == "d":
            _delete(parent, path[-1])
    return root


def _valid_path(path: Any) -> bool:
    return isinstance(path, list) and all(
        isinstance(step, str | int)
        or (isinstance(step, list) and len(step) == 1 and isinstance(step[0], str))
        for step in path
    )


def _set(parent: Any, step: Step, value: Any) -> None:
    index = _list_index(parent, step)
    if index is not None:
        parent[index] = copy_json(value)
    elif isinstance(step, str) and isinstance(parent, dict):
        parent[step] = copy_json(value)


def _delete(parent: Any, step: Step) -> None:
    index = _list_index(parent, step)
    if index is not None:
        del parent[index]
    elif isinstance(step, str) and isinstance(parent, dict):
        parent.pop(step, None)


def _list_index(parent: Any, step: Step) -> int | None:
    if isinstance(step, list):
        return _named_index(parent, step)
    if isinstance(step, int) and isinstance(parent, list) and 0 <= step < len(parent):
        return step
    return None


def _reorder(items: Any, names: Any) -> None:
    if not (isinstance(items, list) and isinstance(names, list)):
        return
    keys = named_keys(items)
    if keys is None:
        return
    rank = {name: index for index, name in enumerate(names) if isinstance(name, str)}
    order = sorted(range(len(items)), key=lambda i: (rank.get(keys[i], len(rank)), i))
    items[:] = [items[i] for i in order]
