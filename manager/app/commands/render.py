"""``dynamo-operator render``: print every object the operator would create, without a cluster.

Only the object stream goes to stdout so it can be piped into ``kubectl apply -f -``; warnings and
diagnostics go to stderr. Documents are validated first, as ``validate`` does (documents of other
kinds are named and skipped), and nothing is rendered unless every one passes. A v1beta1 document
is rendered from its v1alpha1 conversion, as the operator reconciles it: the same children as its
v1alpha1 twin.
"""

from __future__ import annotations

import argparse
import sys
from typing import get_args

from dynamo_operator.errors import RenderError
from dynamo_operator.render import render_objects
from dynamo_operator.settings import ALL_OPTIONAL_APIS, OptionalApi
from manager.app.commands.documents import (
    EXIT_INVALID,
    CheckedDocument,
    add_filename_argument,
    printable,
    screen_input,
)
from manager.app.commands.output import dump_objects
from manager.app.commands.settings_flags import (
    add_operator_settings_arguments,
    operator_settings_from_arguments,
)

DEFAULT_NAMESPACE = "default"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "render",
        help="print the Kubernetes objects the operator would create",
        description=(
            "Render DynamoGraphDeployments and DynamoComponentDeployments (nvidia.com/v1alpha1 "
            "or nvidia.com/v1beta1) into every object the operator creates (recursively), as on "
            "a cluster with LeaderWorkerSet, Volcano and Istio installed unless --without says "
            "otherwise. kubernetes.io/dockerconfigjson Secrets among the documents feed image "
            "pull secret discovery; documents of other kinds are named and skipped."
        ),
    )
    add_filename_argument(parser)
    parser.add_argument("-o", "--output", choices=["yaml", "json"], default="yaml")
    parser.add_argument(
        "-n", "--namespace", default=DEFAULT_NAMESPACE, help="namespace for objects that name none"
    )
    add_operator_settings_arguments(parser)
    parser.add_argument(
        "--planner-cluster-role-name",
        default="",
        metavar="NAME",
        help="as for run: ClusterRole bound to planner-serviceaccount where a graph has a planner",
    )
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        choices=sorted(get_args(OptionalApi)),
        help="render as on a cluster without this optional API (repeatable)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    screened = screen_input(args.files, args.namespace)
    for line in screened.notices:
        _diagnose(line)
    _report_validation(screened.checked)
    if screened.exit_code:
        return screened.exit_code
    try:
        rendered = render_objects(
            screened.renderable(),
            operator_settings_from_arguments(args, ALL_OPTIONAL_APIS - frozenset(args.without)),
            default_namespace=args.namespace,
            planner_cluster_role_name=args.planner_cluster_role_name or None,
        )
    except RenderError as error:
        _diagnose(str(error))
        return EXIT_INVALID
    for warning in rendered.warnings:
        _diagnose(f"warning: {warning}")
    sys.stdout.write(dump_objects(rendered.objects, args.output))
    return 0


def _report_validation(documents: list[CheckedDocument]) -> None:
    for checked in documents:
        for issue in checked.result.errors:
            _diagnose(f"error: {checked.document.label}: {issue}")
        for issue in checked.result.warnings:
            _diagnose(f"warning: {checked.document.label}: {issue}")


def _diagnose(line: str) -> None:
    print(printable(f"dynamo-operator render: {line}"), file=sys.stderr)
