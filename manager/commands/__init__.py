"""One module per ``dynamo-operator`` subcommand, each exposing ``register(subparsers)``."""

__all__: list[str] = []
