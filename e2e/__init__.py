"""End-to-end tests against a real kube-apiserver, the harness that starts one, and their support.

``localcluster`` starts the local control plane (and the real node); ``support`` holds what the
tests and the benchmarks share. The tests themselves are in the sub-packages named after what they
test.
"""
