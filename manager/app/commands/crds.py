"""``dynamo-operator crds``: print (or write) the CRD manifests generated from the API models."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dynamo_operator.api import GROUP
from dynamo_operator.crd import build_crds
from manager.app.commands.output import dump_yaml_documents


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "crds",
        help="print the CustomResourceDefinitions of the Dynamo kinds",
        description="Print the CRDs as multi-document YAML, or write one file per CRD.",
    )
    parser.add_argument(
        "--output-dir",
        type=Path,
        metavar="DIR",
        help="write nvidia.com_<plural>.yaml files into DIR instead of printing",
    )
    parser.set_defaults(func=run)


def crd_file_name(crd: dict[str, Any]) -> str:
    return f"{GROUP}_{crd['spec']['names']['plural']}.yaml"


def run(args: argparse.Namespace) -> int:
    crds = build_crds()
    output_dir: Path | None = args.output_dir
    if output_dir is None:
        sys.stdout.write(dump_yaml_documents(crds))
        return 0
    output_dir.mkdir(parents=True, exist_ok=True)
    for crd in crds:
        (output_dir / crd_file_name(crd)).write_text(dump_yaml_documents([crd]))
    return 0
