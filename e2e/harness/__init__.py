"""Tests of the harness itself: the local control plane and the real node."""
