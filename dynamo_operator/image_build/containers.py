"""The two containers of an image builder pod: the downloader (init) and the builder.

The downloader fetches the artifact tar into the ``/workspace`` emptyDir and unpacks it there; the
builder builds ``/workspace/env/docker/Dockerfile`` with ``/workspace`` as context and pushes the
image. Both run their program directly (no shell around the builder), so build args and image
names are passed as separate words and never need quoting. Both report their last log lines as
their termination message (``FallbackToLogsOnError``): a failed build's reason reaches the pod's
status, where the controller reads it without the logs API.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from dynamo_operator.image_build.settings import BuildEngine, ImageBuildSettings

JsonDict = dict[str, Any]

WORKSPACE_VOLUME: Final = "workspace"
WORKSPACE: Final = "/workspace"
DOCKERFILE_DIRECTORY: Final = f"{WORKSPACE}/env/docker"
DOCKERFILE_NAME: Final = "Dockerfile"
DOCKER_CONFIG_VOLUME: Final = "docker-config"
DOWNLOADER_CONTAINER: Final = "downloader"
BUILDER_CONTAINER: Final = "builder"
ARTIFACT_URL_ENV: Final = "DYNAMO_COMPONENT_URL"
ARTIFACT_ENV: Final = "DYNAMO_COMPONENT"
DOCKER_CONFIG_PATHS: Final = {
    # kaniko's image looks there by default; buildctl honours DOCKER_CONFIG wherever it points.
    BuildEngine.KANIKO: "/kaniko/.docker",
    BuildEngine.BUILDKIT: "/docker-config",
    BuildEngine.BUILDKIT_ROOTLESS: "/docker-config",
}
ROOTLESS_USER_ID: Final = 1000

# wget first (busybox has it), curl otherwise; either fails on an HTTP error status. The tar lands
# outside the build context, which must hold only the artifact. A gzipped tar is told apart by
# `gzip -t`: busybox's tar does not detect compression on its own.
DOWNLOAD_SCRIPT: Final = f"""set -eu
archive=/tmp/dynamo-component.tar
echo "downloading ${ARTIFACT_ENV} from ${ARTIFACT_URL_ENV}"
if command -v wget >/dev/null 2>&1; then
  wget -q -O "$archive" "${ARTIFACT_URL_ENV}"
elif command -v curl >/dev/null 2>&1; then
  curl --fail --silent --show-error --location --output "$archive" "${ARTIFACT_URL_ENV}"
else
  echo "the downloader image has neither wget nor curl" >&2
  exit 1
fi
if gzip -t "$archive" 2>/dev/null; then
  tar -xzf "$archive" -C {WORKSPACE}
else
  tar -xf "$archive" -C {WORKSPACE}
fi
rm -f "$archive"
if [ ! -f {DOCKERFILE_DIRECTORY}/{DOCKERFILE_NAME} ]; then
  echo "the artifact has no env/docker/{DOCKERFILE_NAME}" >&2
  exit 1
fi
echo "unpacked ${ARTIFACT_ENV} into {WORKSPACE}"
"""

DOWNLOADER_RESOURCES: Final[JsonDict] = {
    "requests": {"cpu": "100m", "memory": "128Mi"},
    "limits": {"cpu": "1", "memory": "1Gi"},
}


def workspace_mount() -> JsonDict:
    return {"name": WORKSPACE_VOLUME, "mountPath": WORKSPACE}


def build_downloader_container(
    settings: ImageBuildSettings,
    artifact: str,
    download_url: str,
    env_from: Sequence[JsonDict],
) -> JsonDict:
    container: JsonDict = {
        "name": DOWNLOADER_CONTAINER,
        "image": settings.downloader_image,
        "command": ["sh", "-c", DOWNLOAD_SCRIPT],
        "env": [
            {"name": ARTIFACT_ENV, "value": artifact},
            {"name": ARTIFACT_URL_ENV, "value": download_url},
        ],
        "resources": DOWNLOADER_RESOURCES,
        "volumeMounts": [workspace_mount()],
        "terminationMessagePolicy": "FallbackToLogsOnError",
    }
    if env_from:
        container["envFrom"] = [dict(source) for source in env_from]
    return container


def buildkit_command(
    settings: ImageBuildSettings, image: str, build_args: Sequence[str], extra: Sequence[str]
) -> list[str]:
    """``buildctl --addr $BUILDKIT_URL build ...`` pushing ``image``."""
    output = f"type=image,name={image},push=true"
    if not settings.docker_registry_secure:
        output += ",registry.insecure=true"
    if settings.estargz_enabled:
        output += ",compression=estargz,oci-mediatypes=true,force-compression=true"
    command = [
        "buildctl",
        "--addr",
        settings.buildkit_url,
        "build",
        "--frontend",
        "dockerfile.v0",
        "--local",
        f"context={WORKSPACE}",
        "--local",
        f"dockerfile={DOCKERFILE_DIRECTORY}",
        "--opt",
        f"filename={DOCKERFILE_NAME}",
        "--output",
        output,
    ]
    for argument in build_args:
        command += ["--opt", f"build-arg:{argument}"]
    return [*command, *extra]


def kaniko_command(
    settings: ImageBuildSettings, image: str, build_args: Sequence[str], extra: Sequence[str]
) -> list[str]:
    """kaniko's executor building ``image`` from the workspace and pushing it."""
    command = [
        "/kaniko/executor",
        f"--context=dir://{WORKSPACE}",
        f"--dockerfile={DOCKERFILE_DIRECTORY}/{DOCKERFILE_NAME}",
        f"--destination={image}",
    ]
    if not settings.docker_registry_secure:
        command += ["--insecure", "--insecure-pull"]
    command += [f"--build-arg={argument}" for argument in build_args]
    return [*command, *extra]


def build_builder_container(
    settings: ImageBuildSettings,
    image: str,
    build_args: Sequence[str],
    builder_args: Sequence[str],
    docker_config_secret: str | None,
) -> JsonDict:
    engine = settings.build_engine
    if engine is BuildEngine.KANIKO:
        command = kaniko_command(settings, image, build_args, builder_args)
    else:
        command = buildkit_command(settings, image, build_args, builder_args)
    env: list[JsonDict] = []
    mounts = [workspace_mount()]
    if docker_config_secret:
        env.append({"name": "DOCKER_CONFIG", "value": DOCKER_CONFIG_PATHS[engine]})
        mounts.append(
            {
                "name": DOCKER_CONFIG_VOLUME,
                "mountPath": DOCKER_CONFIG_PATHS[engine],
                "readOnly": True,
            }
        )
    if engine is BuildEngine.KANIKO and settings.estargz_enabled:
        env.append({"name": "GGCR_EXPERIMENT_ESTARGZ", "value": "1"})
    container: JsonDict = {
        "name": BUILDER_CONTAINER,
        "image": settings.builder_image,
        "command": command[:1],
        "args": command[1:],
        "env": env,
        "volumeMounts": mounts,
        "terminationMessagePolicy": "FallbackToLogsOnError",
    }
    if engine is BuildEngine.BUILDKIT_ROOTLESS:
        container["securityContext"] = {
            "runAsUser": ROOTLESS_USER_ID,
            "runAsGroup": ROOTLESS_USER_ID,
            "runAsNonRoot": True,
        }
    return container
