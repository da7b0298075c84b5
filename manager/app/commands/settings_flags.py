"""The operator-settings flags shared by ``dynamo-operator render`` and ``dynamo-operator run``.

Defined once so that ``render`` shows exactly what ``run`` would create for the same flags. The
flag names are the upstream operator's (``--natsAddr``, ``--ingress-controller-class-name``...) so
existing Helm values and docs carry over. As upstream, an empty value means "not set".
"""

from __future__ import annotations

import argparse

from dynamo_operator.settings import OperatorSettings, OptionalApi

# (flag, OperatorSettings field, metavar, help), in the order `--help` lists them.
_FLAGS: tuple[tuple[str, str, str, str], ...] = (
    ("--natsAddr", "nats_addr", "ADDR", "NATS server address, injected into pods as NATS_SERVER"),
    ("--etcdAddr", "etcd_addr", "ADDR", "etcd endpoints, injected into pods as ETCD_ENDPOINTS"),
    (
        "--ingress-controller-class-name",
        "ingress_controller_class_name",
        "CLASS",
        "expose frontends without an ingress spec through an Ingress of this class",
    ),
    (
        "--ingress-controller-tls-secret-name",
        "ingress_controller_tls_secret_name",
        "SECRET",
        "TLS Secret of the default frontend Ingress",
    ),
    (
        "--ingress-host-suffix",
        "ingress_host_suffix",
        "SUFFIX",
        "host suffix of the default frontend ingress (default: local)",
    ),
    (
        "--istio-virtual-service-gateway",
        "istio_virtual_service_gateway",
        "GATEWAY",
        "expose frontends without an ingress spec through an Istio VirtualService on this gateway",
    ),
    (
        "--discovery-cluster-role-name",
        "discovery_cluster_role_name",
        "CLUSTERROLE",
        "with Kubernetes discovery, bind each graph's account to this ClusterRole instead of "
        "giving it a Role of its own",
    ),
)


def add_operator_settings_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the flags that change what the builders produce to ``parser``."""
    group = parser.add_argument_group("operator settings")
    for flag, field, metavar, help_text in _FLAGS:
        group.add_argument(flag, dest=field, metavar=metavar, default=None, help=help_text)


def operator_settings_from_arguments(
    args: argparse.Namespace, available_apis: frozenset[OptionalApi]
) -> OperatorSettings:
    """Settings from parsed flags; ``available_apis`` comes from discovery (or ``--without``)."""
    values = {field: getattr(args, field) or None for _, field, _, _ in _FLAGS}
    return OperatorSettings(available_apis=available_apis, **values)
