"""``dynamo-operator webhook-server``: the admission webhooks alone, without the manager."""

from __future__ import annotations

import argparse
from pathlib import Path

import anyio

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
        help="self-signed: generate a localhost pair (and ca.crt) when the directory has none; "
        "files: wait for externally managed files, e.g. from cert-manager",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    def announce(message: str) -> None:
        print(message, flush=True)

    anyio.run(
        lambda: serve_standalone(
            args.cert_dir,
            host=args.host,
            port=args.port,
            cert_mode=CertMode(args.cert_mode),
            announce=announce,
        ),
        backend="asyncio",
    )
    return 0
