"""Which iptables rules the real node's teardown removes: only its own chains and the jumps into
them, never a rule of someone else."""

from __future__ import annotations

from e2e.localcluster.realnode.host_network import plan_iptables_cleanup

NAT = """\
*nat
:PREROUTING ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:CNI-4f2a9c ACCEPT [0:0]
:DOCKER - [0:0]
:KUBE-SERVICES - [0:0]
-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER
-A POSTROUTING -s 10.88.0.2/32 -m comment --comment "name: \\"rn\\" id: \\"a\\"" -j CNI-4f2a9c
-A CNI-4f2a9c -d 10.88.0.0/16 -j ACCEPT
-A KUBE-SERVICES -d 10.96.0.1/32 -j KUBE-SVC-NPX46M4PTMTKRN6Y
COMMIT
""".splitlines()


def test_jumps_into_owned_chains_are_deleted_and_other_rules_kept() -> None:
    jumps, owned = plan_iptables_cleanup(NAT)
    assert owned == ["CNI-4f2a9c", "KUBE-SERVICES"]
    assert jumps == [
        [
            "PREROUTING",
            "-m",
            "comment",
            "--comment",
            "kubernetes service portals",
            "-j",
            "KUBE-SERVICES",
        ],
        [
            "POSTROUTING",
            "-s",
            "10.88.0.2/32",
            "-m",
            "comment",
            "--comment",
            'name: "rn" id: "a"',
            "-j",
            "CNI-4f2a9c",
        ],
    ]
