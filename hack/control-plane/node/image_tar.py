"""Write a one-layer container image as a docker-archive tar (what ``docker save`` writes and
``ctr images import`` reads, naming the image from its RepoTags), without Docker or a registry.

    python3 image_tar.py --tag localhost/pause:local --entrypoint /pause --out pause.tar \
        /path/to/pause:/pause
    python3 image_tar.py --tag localhost/busybox:1.35 --entrypoint /bin/sh --env PATH=/bin \
        --symlink /bin/sh:busybox --dir /tmp:1777 --out busybox.tar /bin/busybox:/bin/busybox

Each ``SOURCE:DEST`` file goes into the layer at ``DEST``, owned by root, mode 0755; ``--symlink
LINK:TARGET`` adds a symbolic link and ``--dir PATH:MODE`` an empty directory (octal mode, e.g. a
world-writable ``/tmp``). ``--env`` replaces the default ``PATH=/``. Timestamps are zero so the same
inputs give the same image ID. Standard library only: the build scripts run it with the system
python3.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import tarfile
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class LayerContent:
    files: list[tuple[Path, str]]
    symlinks: list[tuple[str, str]] = field(default_factory=list)
    directories: list[tuple[str, int]] = field(default_factory=list)


def layer_bytes(content: LayerContent) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as layer:
        # Directories first, so a runtime creates them with their mode before files land in them.
        for path, mode in content.directories:
            info = tarfile.TarInfo(path.strip("/"))
            info.type = tarfile.DIRTYPE
            info.mode = mode
            layer.addfile(info)
        for source, dest in content.files:
            info = tarfile.TarInfo(dest.lstrip("/"))
            info.size = source.stat().st_size
            info.mode = 0o755
            with source.open("rb") as data:
                layer.addfile(info, data)
        for link, target in content.symlinks:
            info = tarfile.TarInfo(link.lstrip("/"))
            info.type = tarfile.SYMTYPE
            info.linkname = target
            info.mode = 0o777
            layer.addfile(info)
    return buffer.getvalue()


def write_image(
    out: Path,
    tag: str,
    entrypoint: list[str],
    content: LayerContent,
    env: list[str] | None = None,
) -> str:
    layer = layer_bytes(content)
    diff_id = "sha256:" + hashlib.sha256(layer).hexdigest()
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Entrypoint": entrypoint, "Env": env or ["PATH=/"]},
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


def _pairs(values: list[str] | None) -> list[tuple[str, str]]:
    return [(left, right) for left, right in (v.rsplit(":", 1) for v in values or [])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", required=True)
    parser.add_argument("--entrypoint", required=True, nargs="+")
    parser.add_argument("--env", action="append", metavar="NAME=VALUE")
    parser.add_argument("--symlink", action="append", metavar="LINK:TARGET")
    parser.add_argument("--dir", action="append", metavar="PATH:MODE")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("files", nargs="+", metavar="SOURCE:DEST")
    # Intermixed: the build scripts put files between options (a shared list of busybox options).
    args = parser.parse_intermixed_args()
    content = LayerContent(
        files=[(Path(source), dest) for source, dest in _pairs(args.files)],
        symlinks=_pairs(args.symlink),
        directories=[(path, int(mode, 8)) for path, mode in _pairs(args.dir)],
    )
    image_id = write_image(args.out, args.tag, args.entrypoint, content, args.env)
    print(f"{args.tag} sha256:{image_id} -> {args.out}")


if __name__ == "__main__":
    main()
