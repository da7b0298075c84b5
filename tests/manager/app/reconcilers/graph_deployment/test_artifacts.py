"""The graph controller's reading of an artifact's dynamo.yaml, against the API-store stand-in
over loopback HTTP."""

from collections.abc import Iterator

import pytest

from e2e.support.api_store import ApiStore, running_api_store
from manager.app.reconcilers.graph_deployment.artifacts import ArtifactError, HttpArtifactStore

pytestmark = pytest.mark.anyio


def url(store: ApiStore, tag: str) -> str:
    name, version = tag.split(":")
    return f"{store.endpoint}/api/v1/dynamo_components/{name}/versions/{version}/download"


MANIFEST = "service: Frontend\nservices:\n  - name: Frontend\n"


@pytest.fixture
def store() -> Iterator[ApiStore]:
    with running_api_store("127.0.0.1") as store:
        yield store


async def test_the_manifest_is_read_once_per_artifact_version(store: ApiStore) -> None:
    store.publish("frontend:v1", {"dynamo.yaml": MANIFEST, "env/docker/Dockerfile": "FROM x\n"})
    client = HttpArtifactStore()

    assert await client.manifest(url(store, "frontend:v1")) == MANIFEST
    assert await client.manifest(url(store, "frontend:v1")) == MANIFEST
    assert store.downloads["frontend:v1"] == 1


async def test_a_manifest_under_dot_slash_is_found(store: ApiStore) -> None:
    store.publish("frontend:v2", {"./dynamo.yaml": MANIFEST})
    assert await HttpArtifactStore().manifest(url(store, "frontend:v2")) == MANIFEST


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (None, "answered HTTP 404 for http://127.0.0.1:"),
        ({"src/dynamo.yaml": MANIFEST}, "has no dynamo.yaml at its top level"),
    ],
)
async def test_a_missing_artifact_or_manifest_is_an_error_that_says_which(
    store: ApiStore, files: dict[str, str] | None, message: str
) -> None:
    if files is not None:
        store.publish("frontend:v3", files)
    client = HttpArtifactStore()
    with pytest.raises(ArtifactError, match=message):
        await client.manifest(url(store, "frontend:v3"))
    store.publish("frontend:v3", {"dynamo.yaml": MANIFEST})  # a failure is not remembered
    assert await client.manifest(url(store, "frontend:v3")) == MANIFEST


async def test_an_unreachable_store_is_an_error_naming_the_url() -> None:
    client = HttpArtifactStore(timeout=2)
    unreachable = "http://127.0.0.1:9/api/v1/dynamo_components/frontend/versions/v1/download"
    with pytest.raises(
        ArtifactError, match=r"could not be reached at http://127\.0\.0\.1:9/api/v1/"
    ):
        await client.manifest(unreachable)


async def test_a_body_that_is_not_a_tar_is_an_error(store: ApiStore) -> None:
    store.put("frontend:v4", b"<html>login page</html>")
    with pytest.raises(ArtifactError, match="is not a tar archive"):
        await HttpArtifactStore().manifest(url(store, "frontend:v4"))
