"""Tests of installing the operator: Helm charts, images, RBAC, cert-manager, real Dynamo on
the real node.
"""
