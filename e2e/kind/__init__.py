"""Tests of the kind path (``hack/test-kind``): the operator as Helm installs it on a kind
node, real Dynamo graphs under it, and the host put back after the cluster and dockerd are gone.
Collected only when ``DYNAMO_E2E_KIND`` is set (``e2e/conftest.py``)."""
