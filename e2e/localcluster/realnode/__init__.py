"""One real node (kubelet, containerd, kube-proxy) joined to the local control plane, and the
host changes it makes and undoes. Machine-wide: one per machine, under the machine's lock.
"""
