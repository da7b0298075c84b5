"""``dynamo-operator webhook-server``: the admission webhooks alone, without the manager."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from manager.runtime import event_loop
from manager.runtime.logging import LOG_LEVELS, configure_logging
from webhooks import ReplicaWriters, convertible_crd_names
from webhooks.endpoints import DEFAULT_PORT
from webhooks.standalone import CertMode, serve_standalone


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "webhook-server",
        help="serve the validating admission webhooks without a Kubernetes connection",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="HTTPS port (default 9443)")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on")
    parser.add_argument(
        "--cert-dir",
        type=Path,
        required=True,
        help="directory with tls.crt and tls.key (reloaded when they change)",
    )
    parser.add_argument(
        "--cert-mode",
        choices=[mode.value for mode in CertMode],
        default=CertMode.SELF_SIGNED.value,
        help="self-signed: keep a localhost pair and its CA (ca.crt) in the directory, generated "
        "when missing or unusable and renewed before expiry (files written by anyone else are "
        "never replaced); files: wait for externally managed files, e.g. from cert-manager",
    )
    parser.add_argument(
        "--configure-crd-conversion",
        action="store_true",
        help="also point the conversion webhook of the CRDs served at two versions "
        "(DynamoGraphDeployment, DynamoComponentDeployment, DynamoGraphDeploymentScalingAdapter) "
        "at this server's URL and CA, through the kubeconfig, and keep them so: for a server run "
        "outside the cluster (in cluster, `dynamo-operator run` does it for its Service)",
    )
    parser.add_argument(
        "--replica-writer",
        dest="replica_writers",
        action="append",
        default=[],
        metavar="USERNAME",
        help="a username (repeatable) allowed to change a graph service's replicas while a "
        "scaling adapter owns them, besides planner-serviceaccount and, with POD_NAMESPACE and "
        "POD_SERVICE_ACCOUNT set, the operator's service account",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    level = os.environ.get("LOG_LEVEL", "info")
    if level not in LOG_LEVELS:
        print(
            f"dynamo-operator webhook-server: LOG_LEVEL={level!r}: expected one of "
            f"{', '.join(LOG_LEVELS)}",
            file=sys.stderr,
        )
        return 2
    # JSON lines, chosen here: unconfigured, structlog would pick a renderer by what is installed.
    configure_logging(level)

    def announce(message: str) -> None:
        print(message, flush=True)

    failure: OSError | None = None
    try:
        event_loop.run(
            lambda: serve_standalone(
                args.cert_dir,
                host=args.host,
                port=args.port,
                cert_mode=CertMode(args.cert_mode),
                announce=announce,
                crd_conversion=convertible_crd_names() if args.configure_crd_conversion else (),
                replica_writers=ReplicaWriters.of(
                    args.replica_writers,
                    operator_namespace=os.environ.get("POD_NAMESPACE"),
                    operator_service_account=os.environ.get("POD_SERVICE_ACCOUNT"),
                ),
            ),
        )
    except* OSError as errors:  # the address is taken, the port is privileged...
        failure = errors.exceptions[0]  # type: ignore[assignment]
    if failure is not None:
        reason = " ".join(str(failure).split())
        print(
            f"dynamo-operator webhook-server: cannot serve on {args.host}:{args.port}: {reason}",
            file=sys.stderr,
        )
        return 1
    return 0
