"""The pure library shared by the reconcilers, the webhooks and the CLI.

Pydantic models of the Dynamo CRDs, defaults, validation, status derivation and the resource
builders. Nothing here performs I/O, reads the clock or the environment, or imports asyncio.
"""
