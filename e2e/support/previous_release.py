"""The release users upgrade from: its tree, its operator image and its render, built from git.

``PREVIOUS_RELEASE`` is the last commit before ``nvidia.com/v1beta1`` was served (CRDs with one
version, no conversion webhook, no scaling adapters): the state every existing install is in. Its
tree comes out of this repository's history (``git archive``, cached under ``$DYNAMO_CACHE`` by
commit); its image is built by its own ``hack/image/build.sh`` (cached the same way as ours) and
renamed ``localhost/dynamo-operator:previous`` so that both releases' images live side by side in
the node's containerd.
"""

from __future__ import annotations

import functools
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import yaml

from e2e.support.graphs import ROOT
from e2e.support.operator_image import run_image_build

PREVIOUS_RELEASE = "6eeeb0e2acd991848362672a269d36c6bba1b976"
PREVIOUS_TAG = "previous"
PREVIOUS_IMAGE = f"localhost/dynamo-operator:{PREVIOUS_TAG}"
CACHE = Path(os.environ.get("DYNAMO_CACHE", Path.home() / ".cache" / "dynamo-operator"))


@functools.cache
def previous_tree() -> Path:
    """The previous release's files, extracted once from this repository's history."""
    tree = CACHE / "previous-release" / PREVIOUS_RELEASE
    if (tree / "Dockerfile").is_file():
        return tree
    partial = tree.with_name(tree.name + ".partial")
    subprocess.run(["rm", "-rf", str(partial)], check=True)
    partial.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", PREVIOUS_RELEASE],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        raise RuntimeError(
            f"commit {PREVIOUS_RELEASE} is not in this clone's history (a shallow clone?): "
            + archive.stderr.decode(errors="replace")
        )
    subprocess.run(["tar", "-x", "-C", str(partial)], input=archive.stdout, check=True)
    partial.rename(tree)
    return tree


@functools.cache
def previous_image() -> Path:
    """A docker-archive of the previous release's operator image, named ``PREVIOUS_IMAGE``."""
    built = run_image_build(previous_tree() / "hack" / "image" / "build.sh")
    renamed = built.with_name(f"dynamo-operator-{PREVIOUS_TAG}-{PREVIOUS_RELEASE[:12]}.tar")
    if not renamed.is_file():
        retag_archive(built, renamed, PREVIOUS_IMAGE)
    return renamed


def retag_archive(source: Path, target: Path, name: str) -> None:
    """Copy a docker-archive, its one image named ``name`` (what ``ctr images import`` tags)."""
    partial = target.with_name(target.name + ".partial")
    with tarfile.open(source) as reader, tarfile.open(partial, "w") as writer:
        for member in reader:
            data = reader.extractfile(member) if member.isfile() else None
            if member.name == "manifest.json" and data is not None:
                manifest: list[dict[str, Any]] = json.loads(data.read())
                manifest[0]["RepoTags"] = [name]
                body = json.dumps(manifest).encode()
                member.size = len(body)
                writer.addfile(member, io.BytesIO(body))
            elif member.name == "repositories":
                continue  # legacy tag index; RepoTags is what runtimes read
            else:
                writer.addfile(member, data)
    partial.rename(target)


def render(tree: Path, documents: list[dict[str, Any]], *flags: str) -> list[dict[str, Any]]:
    """What ``dynamo-operator render`` of ``tree`` (that release's code) makes of ``documents``."""
    result = subprocess.run(
        [sys.executable, "-m", "manager.app.cli", "render", "-f", "-", *flags],
        input=yaml.safe_dump_all(documents),
        capture_output=True,
        text=True,
        check=False,
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
    )
    if result.returncode != 0:
        raise RuntimeError(f"render of {tree} failed: {result.stderr[-2000:]}")
    return [document for document in yaml.safe_load_all(result.stdout) if document]
