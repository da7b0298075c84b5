"""Tests of the operator as a process: graphs, drift, updates, restarts, modes, models,
webhooks, metrics, the control plane it runs against.
"""
