"""One package per Dynamo kind, each exporting `setup(manager, deps)`: thin adapters from the
runtime to the pure library. They never import each other (pyproject.toml's contracts)."""

__all__: list[str] = []
