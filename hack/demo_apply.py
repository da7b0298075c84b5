"""Apply a graph and everything `dynamo-operator render` builds for it, as the reconcilers will.

Render output carries owner references without UIDs (it never talks to a cluster); here each
object is applied in render order, parents first, and its children's owner references get the UID
the API server gave the parent, so garbage collection works as it will under the operator.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def kubectl(*args: str, stdin: str | None = None) -> str:
    command = [os.environ["KUBECTL"], *args]
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"demo: {' '.join(args[:3])} failed: {done.stderr.strip()}")
    return done.stdout


def server_side_apply(obj: dict[str, Any]) -> dict[str, Any]:
    out = kubectl(
        "apply",
        "--server-side",
        "--field-manager=dynamo-operator",
        "--force-conflicts",
        "-o",
        "json",
        "-f",
        "-",
        stdin=json.dumps(obj),
    )
    applied: dict[str, Any] = json.loads(out)
    return applied


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--namespace", required=True)
    parser.add_argument("--graph", type=Path, required=True)
    args = parser.parse_args()
    rendered = subprocess.run(
        [
            sys.executable,
            "-m",
            "manager.cli",
            "render",
            "-o",
            "json",
            "-n",
            args.namespace,
            "--without",
            "volcano",
            "--without",
            "istio",
            "-f",
            str(args.graph),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    graph = json.loads(kubectl("apply", "-n", args.namespace, "-o", "json", "-f", str(args.graph)))
    uids = {(graph["kind"], graph["metadata"]["name"]): graph["metadata"]["uid"]}
    for obj in json.loads(rendered):
        for owner in obj["metadata"].get("ownerReferences", []):
            owner["uid"] = uids[(owner["kind"], owner["name"])]
        applied = server_side_apply(obj)
        uids[(applied["kind"], applied["metadata"]["name"])] = applied["metadata"]["uid"]
        print(f"applied {applied['kind']}/{applied['metadata']['name']}", file=sys.stderr)


if __name__ == "__main__":
    main()
