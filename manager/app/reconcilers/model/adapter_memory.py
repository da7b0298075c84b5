"""What this process loaded where, by DynamoModel and worker.

Memory is per process: after a restart the adapter is loaded once more on every worker, which
the route accepts. A model's record is reset when its uid changes (deleted and created again
under the same name), so a recreated model is loaded again everywhere.
"""

from __future__ import annotations

from dynamo_operator.lora_plan import Adapter

__all__ = ["LoadedAdapters"]


class LoadedAdapters:
    """Per model (namespace, name), the adapter each worker (``WorkerEndpoint.key``) holds."""

    def __init__(self) -> None:
        self._models: dict[tuple[str, str], tuple[str, dict[str, Adapter]]] = {}

    def of(self, namespace: str, name: str, uid: str) -> dict[str, Adapter]:
        """The model's record, to read and update in place."""
        current = self._models.get((namespace, name))
        if current is None or current[0] != uid:
            current = (uid, {})
            self._models[(namespace, name)] = current
        return current[1]

    def forget(self, namespace: str, name: str) -> None:
        self._models.pop((namespace, name), None)
