"""An asyncio clone of controller-runtime on kr8s.

The core (everything but `manager.reconcilers`, `manager.app` and `manager.cli`) is generic and
knows nothing of Dynamo.
"""
