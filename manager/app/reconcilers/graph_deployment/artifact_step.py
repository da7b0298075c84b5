"""The graph's side of a built artifact (``spec.dynamoComponent: name:version``).

The graph makes sure its DynamoComponent exists (``name--version``, every graph naming the
artifact one of its owners, so a second graph builds nothing), and waits for it: while the image
is being checked or built, the graph's DCDs are left as they are (a tag change keeps the old
pods serving until the new image exists), and the graph says which component it waits for and
why. Once the component is available, the artifact's ``dynamo.yaml`` (from the API store) says
which services the graph has, and the graph is expanded into the ordinary graph the builders
know, every service on the built image. The DynamoComponents of the graph's earlier tags are
then let go: deleted when no other graph owns them.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from dynamo_operator.api import DynamoComponent, DynamoGraphDeployment
from dynamo_operator.image_build import (
    ImageBuildError,
    ImageBuildSettings,
    artifact_download_url,
    build_graph_dynamo_component,
    expand_graph_with_artifact,
    parse_artifact_manifest,
)
from dynamo_operator.naming import parse_component_reference
from dynamo_operator.status import StatusFailure, dynamo_component_gate
from manager.app.reconcilers.graph_deployment.artifacts import ArtifactError, ArtifactStore
from manager.runtime.cache import CacheReader
from manager.runtime.client import Client
from manager.runtime.kinds import ResourceKind

__all__ = ["ArtifactStep", "ArtifactVerdict"]


@dataclass(frozen=True, slots=True)
class ArtifactVerdict:
    """Exactly one is set: the graph to build, why it waits, or why it failed."""

    graph: DynamoGraphDeployment | None = None
    waiting: str | None = None
    failure: StatusFailure | None = None
    retry: bool = False
    """The wait is on something no watch reports (the API store): try again later."""


class ArtifactStep:
    def __init__(
        self,
        *,
        client: Client,
        reader: CacheReader,
        store: ArtifactStore,
        settings: ImageBuildSettings,
        kind: ResourceKind,
    ) -> None:
        self._client = client
        self._reader = reader
        self._store = store
        self._settings = settings
        self._kind = kind

    async def resolve(self, graph: DynamoGraphDeployment, namespace: str) -> ArtifactVerdict:
        """What ``graph`` (naming an artifact) deploys now."""
        reference = parse_component_reference(str(graph.spec.dynamo_component))
        name = reference.resource_name
        existing = self._reader.get(self._kind, namespace, name)
        desired = build_graph_dynamo_component(graph, namespace, existing)
        await self._client.apply_if_changed(desired, existing)
        gate = dynamo_component_gate(name, existing)
        if gate.failure is not None:
            return ArtifactVerdict(failure=gate.failure)
        if gate.image is None:
            return ArtifactVerdict(waiting=gate.waiting or f"DynamoComponent {name}")
        assert existing is not None  # an available gate read it
        url = artifact_download_url(self._settings, DynamoComponent.model_validate(existing))
        try:
            text = await self._store.manifest(url)
        except ArtifactError as error:
            return ArtifactVerdict(waiting=f"artifact {reference}: {error}", retry=True)
        try:
            document = yaml.safe_load(text)
        except yaml.YAMLError as error:
            return ArtifactVerdict(failure=_bad_artifact(f"its dynamo.yaml is not YAML: {error}"))
        try:
            expanded = expand_graph_with_artifact(
                graph, parse_artifact_manifest(document), gate.image
            )
        except ImageBuildError as error:
            return ArtifactVerdict(failure=_bad_artifact(str(error)))
        await self._let_go_of_earlier(graph, namespace, name)
        return ArtifactVerdict(graph=expanded)

    async def _let_go_of_earlier(
        self, graph: DynamoGraphDeployment, namespace: str, current: str
    ) -> None:
        """The graph's other DynamoComponents (earlier tags): deleted when it is their only
        owner, else its owner reference removed."""
        uid = graph.metadata.uid
        for component in self._reader.list(self._kind, namespace, owner_uid=uid):
            metadata = component["metadata"]
            if metadata["name"] == current:
                continue
            others = [o for o in metadata.get("ownerReferences") or () if o.get("uid") != uid]
            if not others:
                await self._client.delete(self._kind, namespace, metadata["name"])
            else:
                patch = {"metadata": {"ownerReferences": others}}
                await self._client.merge_patch(self._kind, namespace, metadata["name"], patch)


def _bad_artifact(why: str) -> StatusFailure:
    message = f"spec.dynamoComponent: the artifact cannot be deployed: {why}"
    return StatusFailure.reconcile_error(message)
