"""``dynamo-operator run``: the operator process (reconcilers, webhooks, probes, metrics).

Flags keep the upstream operator's names and Go spellings (`--flag=value`, `--flag value`,
booleans as `--flag` or `--flag=false`) so existing Helm values and docs carry over. The process
itself is assembled in `manager.app.commands.operator` from the `RunOptions` made here.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from pathlib import Path

from dynamo_operator.image_build import Env, settings_from_environment
from manager.app.commands.go_flags import (
    add_bool_flag,
    parse_bind_address,
    parse_go_duration,
)
from manager.app.commands.run_options import RunOptions
from manager.app.commands.settings_flags import (
    add_operator_settings_arguments,
    operator_settings_from_arguments,
)
from manager.runtime.logging import LOG_LEVELS
from manager.runtime.metrics import CertificateFiles

__all__ = ["RunOptions", "options_from_arguments", "register"]

DEFAULT_LEADER_ELECTION_ID = "dynamo.nvidia.com"
DEFAULT_SYSTEM_NAMESPACE = "dynamo"
SERVICE_ACCOUNT_NAMESPACE_FILE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "run",
        help="run the operator: reconcilers, admission webhooks, health probes and metrics",
        description=(
            "Run the operator. Environment: LOG_LEVEL (debug|info|warning|error, default info), "
            "DYNAMO_SYSTEM_NAMESPACE (the operator's namespace when neither the service-account "
            "namespace file nor POD_NAMESPACE says, default dynamo), POD_SERVICE_ACCOUNT (owns the "
            "Lease and certificate Secret the operator creates), KUBECONFIG (used outside a "
            "cluster)."
        ),
    )
    listeners = parser.add_argument_group("listeners")
    listeners.add_argument(
        "--metrics-bind-address",
        type=parse_bind_address,
        default=":8080",
        metavar="ADDR",
        help="where /metrics listens, host:port or :port; 0 turns it off (default :8080)",
    )
    add_bool_flag(
        listeners,
        "metrics-secure",
        help="serve /metrics over HTTPS to requests whose bearer token the API server "
        "authenticates (TokenReview) and authorises for get on /metrics (SubjectAccessReview); "
        "the Helm chart sets it with --metrics-bind-address=:8443",
    )
    listeners.add_argument(
        "--metrics-cert-path",
        default="",
        metavar="DIR",
        help="directory of the secure metrics certificate (e.g. a mounted Secret), reloaded on "
        "change; without it a self-signed certificate is made at start",
    )
    listeners.add_argument(
        "--metrics-cert-name",
        default="tls.crt",
        metavar="FILE",
        help="certificate file in --metrics-cert-path (default tls.crt)",
    )
    listeners.add_argument(
        "--metrics-cert-key",
        default="tls.key",
        metavar="FILE",
        help="private key file in --metrics-cert-path (default tls.key)",
    )
    listeners.add_argument(
        "--health-probe-bind-address",
        type=parse_bind_address,
        default=":8081",
        metavar="ADDR",
        help="where /healthz and /readyz listen (default :8081)",
    )
    election = parser.add_argument_group("leader election and namespace scope")
    add_bool_flag(election, "leader-elect", help="elect one active replica through a Lease")
    election.add_argument(
        "--leader-election-id",
        default=DEFAULT_LEADER_ELECTION_ID,
        metavar="NAME",
        help=f"name of the leader-election Lease (default {DEFAULT_LEADER_ELECTION_ID})",
    )
    election.add_argument(
        "--leader-election-namespace",
        default="",
        metavar="NS",
        help="namespace of the leader-election Lease (default: the operator's namespace)",
    )
    election.add_argument(
        "--restrictedNamespace",
        dest="restricted_namespace",
        default="",
        metavar="NS",
        help="watch and reconcile this namespace only (namespace-restricted mode)",
    )
    election.add_argument(
        "--namespace-scope-lease-duration",
        type=parse_go_duration,
        default="30s",
        metavar="DURATION",
        help="lease duration of the namespace-scope marker in restricted mode (default 30s)",
    )
    election.add_argument(
        "--namespace-scope-lease-renew-interval",
        type=parse_go_duration,
        default="10s",
        metavar="DURATION",
        help="renew interval of the namespace-scope marker (default 10s)",
    )
    election.add_argument(
        "--operator-version",
        default="unknown",
        metavar="VERSION",
        help="version reported in the namespace-scope marker's holder identity",
    )
    webhooks = parser.add_argument_group("admission webhooks")
    add_bool_flag(webhooks, "enable-webhooks", help="serve the validating admission webhooks")
    webhooks.add_argument(
        "--webhook-port", type=int, default=9443, metavar="PORT", help="HTTPS port (default 9443)"
    )
    webhooks.add_argument(
        # --webhook-cert-path is kubebuilder's name (as --metrics-cert-path); -dir came first.
        "--webhook-cert-path",
        "--webhook-cert-dir",
        dest="webhook_cert_dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="cert-manager mode: serve the certificate in this directory (the mounted Secret "
        "cert-manager writes, e.g. /tmp/k8s-webhook-server/serving-certs), reloaded when it "
        "changes, and neither write a Secret nor inject a CA; without it the operator manages "
        "a self-signed CA and certificate in Secret webhook-server-cert of its namespace and "
        "injects the CA into its labelled webhook configurations",
    )
    webhooks.add_argument(
        "--webhook-cert-name",
        default="tls.crt",
        metavar="FILE",
        help="certificate file in --webhook-cert-path (default tls.crt)",
    )
    webhooks.add_argument(
        "--webhook-cert-key",
        default="tls.key",
        metavar="FILE",
        help="private key file in --webhook-cert-path (default tls.key)",
    )
    add_bool_flag(
        webhooks,
        "manage-crd-conversion",
        default=True,
        help="with --enable-webhooks, cluster-wide: point the conversion webhook of the CRDs "
        "served at v1alpha1 and v1beta1 at this operator's webhook Service and keep its CA there",
    )
    webhooks.add_argument(
        "--conversion-ca-certificate",
        default="",
        metavar="NAMESPACE/NAME",
        help="cert-manager mode: the Certificate whose CA cert-manager's cainjector injects into "
        "those CRDs (annotation cert-manager.io/inject-ca-from); default: the operator injects "
        "the CA itself",
    )
    webhooks.add_argument(
        "--replica-writer",
        dest="replica_writers",
        action="append",
        default=[],
        metavar="USERNAME",
        help="a username (repeatable) allowed to change a graph service's replicas while a "
        "scaling adapter owns them, besides planner-serviceaccount and the operator's own "
        "service account (e.g. this operator's user when it runs outside the cluster)",
    )
    add_operator_settings_arguments(parser)
    components = parser.add_argument_group("reconciliation")
    components.add_argument(
        "--planner-cluster-role-name",
        default="",
        metavar="NAME",
        help="ClusterRole bound to planner-serviceaccount in each namespace with a planner",
    )
    components.add_argument(
        "--max-concurrent-reconciles",
        type=int,
        default=8,
        metavar="N",
        help="reconcile workers per controller (default 8)",
    )
    components.add_argument(
        "--max-concurrent-low-priority-reconciles",
        type=int,
        default=16,
        metavar="N",
        help="more component workers for work that can wait (Services, status), only while no "
        "pod-making work waits (default 16; 0: none)",
    )
    parser.set_defaults(func=_run)
    return parser


def options_from_arguments(
    args: argparse.Namespace, environ: dict[str, str] | None = None
) -> RunOptions:
    """Validate the parsed flags and environment; `ValueError` names the flag at fault."""
    env = dict(os.environ if environ is None else environ)
    log_level = env.get("LOG_LEVEL", "info").lower()
    if log_level not in LOG_LEVELS:
        raise ValueError(f"LOG_LEVEL={log_level!r}: expected one of {', '.join(LOG_LEVELS)}")
    duration = args.namespace_scope_lease_duration
    renew = args.namespace_scope_lease_renew_interval
    if duration <= 0 or renew <= 0 or renew >= duration:
        raise ValueError(
            "--namespace-scope-lease-renew-interval must be positive and shorter than "
            "--namespace-scope-lease-duration"
        )
    if args.max_concurrent_reconciles < 1:
        raise ValueError("--max-concurrent-reconciles must be at least 1")
    if args.max_concurrent_low_priority_reconciles < 0:
        raise ValueError("--max-concurrent-low-priority-reconciles must not be negative")
    if args.metrics_cert_path and not args.metrics_secure:
        raise ValueError("--metrics-cert-path needs --metrics-secure")
    if args.webhook_cert_dir is not None and not args.enable_webhooks:
        raise ValueError("--webhook-cert-path needs --enable-webhooks")
    operator_namespace = _operator_namespace(env)
    image_build = settings_from_environment(env)
    if args.restricted_namespace:  # a namespace-restricted operator reads nothing outside it
        image_build = dataclasses.replace(
            image_build, image_builder_namespace=args.restricted_namespace
        )
    elif not env.get(Env.IMAGE_BUILDER_NAMESPACE):
        image_build = dataclasses.replace(image_build, image_builder_namespace=operator_namespace)
    return RunOptions(
        metrics_address=args.metrics_bind_address,
        metrics_secure=args.metrics_secure,
        metrics_certificate=(
            CertificateFiles(
                Path(args.metrics_cert_path), args.metrics_cert_name, args.metrics_cert_key
            )
            if args.metrics_cert_path
            else None
        ),
        health_address=args.health_probe_bind_address,
        leader_elect=args.leader_elect,
        leader_election_id=args.leader_election_id or DEFAULT_LEADER_ELECTION_ID,
        leader_election_namespace=args.leader_election_namespace or operator_namespace,
        enable_webhooks=args.enable_webhooks,
        webhook_port=args.webhook_port,
        webhook_cert_dir=args.webhook_cert_dir,
        webhook_cert_name=args.webhook_cert_name,
        webhook_cert_key=args.webhook_cert_key,
        manage_crd_conversion=args.manage_crd_conversion,
        conversion_ca_certificate=args.conversion_ca_certificate or None,
        restricted_namespace=args.restricted_namespace or None,
        planner_cluster_role_name=args.planner_cluster_role_name or None,
        operator_version=args.operator_version,
        namespace_scope_lease_duration=duration,
        namespace_scope_lease_renew_interval=renew,
        max_concurrent_reconciles=args.max_concurrent_reconciles,
        max_concurrent_low_priority_reconciles=args.max_concurrent_low_priority_reconciles,
        settings=operator_settings_from_arguments(args, frozenset()),
        operator_namespace=operator_namespace,
        image_build=image_build,
        service_account=env.get("POD_SERVICE_ACCOUNT") or None,
        log_level=log_level,
        replica_writers=tuple(args.replica_writers),
    )


def _operator_namespace(env: dict[str, str]) -> str:
    try:
        from_file = SERVICE_ACCOUNT_NAMESPACE_FILE.read_text().strip()
    except OSError:
        from_file = ""
    return (
        from_file
        or env.get("POD_NAMESPACE")
        or env.get("DYNAMO_SYSTEM_NAMESPACE", DEFAULT_SYSTEM_NAMESPACE)
    )


def _run(args: argparse.Namespace) -> int:
    from manager.app.commands.operator import run_operator  # the heavy imports only for `run`

    try:
        options = options_from_arguments(args)
    except ValueError as error:
        print(f"dynamo-operator run: {error}", flush=True)
        return 2
    return run_operator(options)
