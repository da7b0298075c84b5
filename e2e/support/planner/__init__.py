"""Dynamo's own planner client (PyPI ``ai-dynamo==1.6.1``), unchanged, driving a test graph."""
