"""Write a one-layer container image as a docker-archive tar (what ``docker save`` writes and
``ctr images import`` reads, naming the image from its RepoTags), without Docker or a registry.

    python3 image_tar.py --tag localhost/pause:local --entrypoint /pause --out pause.tar \
        /path/to/pause:/pause

Each ``SOURCE:DEST`` file goes into the layer at ``DEST``, owned by root, mode 0755. Timestamps are
zero so the same inputs give the same image ID. Standard library only: build-node.sh runs it with
the system python3.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import tarfile
from pathlib import Path


def layer_bytes(files: list[tuple[Path, str]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as layer:
        for source, dest in files:
            info = tarfile.TarInfo(dest.lstrip("/"))
            info.size = source.stat().st_size
            info.mode = 0o755
            with source.open("rb") as data:
                layer.addfile(info, data)
    return buffer.getvalue()


def write_image(out: Path, tag: str, entrypoint: list[str], files: list[tuple[Path, str]]) -> str:
    layer = layer_bytes(files)
    diff_id = "sha256:" + hashlib.sha256(layer).hexdigest()
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Entrypoint": entrypoint, "Env": ["PATH=/"]},
            "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        },
        sort_keys=True,
    ).encode()
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    layer_name = diff_id.removeprefix("sha256:") + "/layer.tar"
    manifest = json.dumps([{"Config": config_name, "RepoTags": [tag], "Layers": [layer_name]}])
    with tarfile.open(out, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, data in (
            (layer_name, layer),
            (config_name, config),
            ("manifest.json", manifest.encode()),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    return config_name.removesuffix(".json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", required=True)
    parser.add_argument("--entrypoint", required=True, nargs="+")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("files", nargs="+", metavar="SOURCE:DEST")
    args = parser.parse_args()
    files = [(Path(source), dest) for source, dest in (f.rsplit(":", 1) for f in args.files)]
    image_id = write_image(args.out, args.tag, args.entrypoint, files)
    print(f"{args.tag} sha256:{image_id} -> {args.out}")


if __name__ == "__main__":
    main()
