"""The operator process, on two floors; the folder order is the layer order.

- `manager.runtime`: an asyncio clone of controller-runtime on kr8s. Generic: it knows nothing of
  Dynamo, never imports `dynamo_operator`, `webhooks` or `manager.app`.
- `manager.app`: Dynamo's application on top of it: the command line (`manager.app.cli`, the
  console script), the commands with the composition root of `dynamo-operator run`, and one
  reconciler package per Dynamo kind.

The import contracts in pyproject.toml keep it so. Nothing is re-exported here: import from the
floor that defines a name.
"""

__all__: list[str] = []
