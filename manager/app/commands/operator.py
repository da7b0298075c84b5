"""The composition root of `dynamo-operator run`: flags -> one Manager with everything in it.

Start order (the manager's, plus two gates of our own): health and metrics listeners; the API
gate (the API server answers and serves our CRDs; until then `/readyz` fails and one log line
says why); served optional APIs (LeaderWorkerSet, Volcano, Istio: watched from the moment they
appear, no restart needed); the Event recorder; the webhook server; the caches (wait for sync:
reconciles never see a half-filled cache, so an operator restart never changes a pod template);
leader election; the controllers. SIGTERM drains in-flight reconciles and stops in reverse order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import anyio
import kr8s.asyncio

import dynamo_operator.validation
from dynamo_operator.settings import OPTIONAL_API_GROUP_VERSIONS, OptionalApi
from manager.app.commands.namespace_modes import (
    MARKER_LEASE_NAME,
    ClaimAwareValidator,
    HandOver,
    namespace_marker,
)
from manager.app.commands.operator_model import MODEL, add_model_controller
from manager.app.commands.run import RunOptions
from manager.app.kinds import (
    COMPONENT,
    COMPONENT_CHILDREN,
    CUSTOM_KINDS,
    GRAPH,
    MANAGED_SELECTOR,
    OPTIONAL_KINDS,
    register_cache_options,
)
from manager.app.metrics import MeteredReconciler, ResourceCounter
from manager.app.reconcilers.component_deployment.reconciler import (
    ComponentDeploymentReconciler,
    ComponentKinds,
    discovery_access_requests,
    pod_requests,
    secret_requests,
)
from manager.app.reconcilers.graph_deployment.reconciler import (
    GraphDeploymentReconciler,
    GraphKinds,
)
from manager.runtime.builder import ControllerBuilder
from manager.runtime.cache import Cache, CacheReader
from manager.runtime.client import Client, KindRegistry, RestClient
from manager.runtime.client.aiohttp_transport import AiohttpTransport
from manager.runtime.controller import Controller, Reconciler, Request
from manager.runtime.discovery import Discovery, RequiredKinds, ServedApis
from manager.runtime.events import EventRecorder
from manager.runtime.handler import EnqueueHandler, enqueue_for_owner
from manager.runtime.identity import Identity
from manager.runtime.kinds import (
    DEPLOYMENT,
    HORIZONTAL_POD_AUTOSCALER,
    INGRESS,
    PERSISTENT_VOLUME_CLAIM,
    POD,
    ROLE,
    ROLE_BINDING,
    SECRET,
    SERVICE,
    SERVICE_ACCOUNT,
)
from manager.runtime.leaderelection import LeaderElector
from manager.runtime.leaderelection.marker import LeaseMarkerLostError
from manager.runtime.logging import configure_logging, get_logger
from manager.runtime.manager import LeadershipLostError, Manager
from manager.runtime.metrics import (
    CertificateFilesError,
    DelegatedAuth,
    SecureServing,
    ServingCertificate,
    metrics_server,
)
from manager.runtime.namespace_claims import ClaimAware, NamespaceClaims
from manager.runtime.predicate import (
    AnnotationsChanged,
    GenerationChanged,
    LabelsChanged,
    Predicate,
    or_,
)
from manager.runtime.process_owner import ProcessOwner
from webhooks import DirectoryCertificates, OperatorManagedCertificates, WebhookServer
from webhooks.certificates.rotation import CertificatePolicy

__all__ = ["COMPONENT", "GRAPH", "run_operator"]

PRODUCT = "dynamo-operator"
WEBHOOK_SERVICE = "dynamo-operator-webhook-service"
"""The Service in front of the webhook server (the Helm chart creates it under this name)."""
DOMAIN = "nvidia.com"

log = get_logger("dynamo_operator.run")


def run_operator(options: RunOptions) -> int:
    configure_logging(options.log_level)
    try:
        return anyio.run(_run, options, backend="asyncio")
    except KeyboardInterrupt:
        return 130


async def _run(options: RunOptions) -> int:
    identity = Identity.for_product(PRODUCT, domain=DOMAIN, version=options.operator_version)
    try:
        api = kr8s.asyncio.Api(bypass_factory=True)  # no request yet: the API gate makes the first
        await api.auth
    except (ValueError, KeyError, OSError) as error:
        log.error("no Kubernetes credentials", error=str(error))
        return 1
    rest = RestClient(AiohttpTransport(api, user_agent=identity.user_agent))
    try:
        operator = _Operator(options, identity, rest)
    except CertificateFilesError as error:
        log.error("cannot serve metrics", error=str(error))
        await rest.transport.aclose()
        return 1
    try:
        await operator.manager.run(handle_signals=True)
    except LeadershipLostError:
        return 1
    except BaseExceptionGroup as group:
        return _exit_code(group)
    finally:
        await rest.transport.aclose()
    return 0


class _Operator:
    """Builds the manager and keeps what the listeners of served APIs need."""

    def __init__(self, options: RunOptions, identity: Identity, rest: RestClient) -> None:
        self.options = options
        self.owner = (
            ProcessOwner(rest, SERVICE_ACCOUNT, options.operator_namespace, options.service_account)
            if options.service_account
            else None
        )
        self.kinds = KindRegistry()
        discovery = Discovery(rest, self.kinds)
        self.cache = Cache(rest, namespace=options.restricted_namespace)
        # Cluster-wide, keep out of namespaces a namespace-restricted operator has claimed.
        self.claims = (
            None
            if options.restricted_namespace
            else NamespaceClaims(self.cache, lease_name=MARKER_LEASE_NAME)
        )
        self.settings = dataclasses.replace(options.settings, available_apis=frozenset())
        self.manager = Manager(
            cache=self.cache,
            leader_elector=self._leader_elector(rest, identity),
            bind_host="0.0.0.0",
            health_port=None,
            metrics_port=None,
        )
        self._listeners(options, rest)
        self.manager.add(RequiredKinds(discovery, list(CUSTOM_KINDS.values())))
        if options.restricted_namespace:
            self.manager.add(
                namespace_marker(
                    rest,
                    identity,
                    namespace=options.restricted_namespace,
                    operator_version=options.operator_version,
                    duration=options.namespace_scope_lease_duration,
                    renew_interval=options.namespace_scope_lease_renew_interval,
                    owner=self.owner,
                )
            )
        served = ServedApis(discovery, OPTIONAL_API_GROUP_VERSIONS.values())
        served.add_listener(lambda present: self._on_served_apis(discovery, present))
        self.manager.add(served)
        self.recorder = EventRecorder(rest, identity)
        self.manager.add(self.recorder)
        if self.claims is not None:
            self.manager.add(self.claims)
        if options.enable_webhooks:
            self.manager.add(self._webhook_server(rest))
        register_cache_options(self.cache)
        client = Client(rest, identity, kinds=self.kinds)
        self.components = self._component_controller(client)
        graphs = self._graph_controller(client)
        models = add_model_controller(
            self.manager,
            self.cache,
            client,
            self.recorder,
            max_concurrent_reconciles=options.max_concurrent_reconciles,
            wrap=self._claim_aware,
        )
        if self.claims is not None:
            self.claims.add_listener(
                HandOver(
                    self.cache.reader,
                    self.recorder,
                    GRAPH,
                    ((graphs, GRAPH), (self.components, COMPONENT), (models, MODEL)),
                )
            )
        exclude = self.claims.is_claimed if self.claims is not None else None
        self.manager.add(ResourceCounter(self.cache.reader, GRAPH, exclude=exclude))

    def _listeners(self, options: RunOptions, rest: RestClient) -> None:
        # The manager's own listeners on the addresses the flags give (0 turns one off).
        if options.health_address is not None:
            host, port = options.health_address
            self.manager.health_server = self.manager.health.server(host=host, port=port)
        if options.metrics_address is not None:
            host, port = options.metrics_address
            secure = (
                SecureServing(DelegatedAuth(rest), ServingCertificate(options.metrics_certificate))
                if options.metrics_secure
                else None
            )
            self.manager.metrics_server = metrics_server(host=host, port=port, secure=secure)

    def _leader_elector(self, rest: RestClient, identity: Identity) -> LeaderElector | None:
        if not self.options.leader_elect:
            return None
        if self.options.restricted_namespace:
            log.info("leader election is off in namespace-restricted mode")
            return None
        return LeaderElector(
            rest,
            identity,
            name=self.options.leader_election_id,
            namespace=self.options.leader_election_namespace,
            owner=self.owner,
        )

    def _webhook_server(self, rest: RestClient) -> WebhookServer:
        certificates = (
            DirectoryCertificates(
                self.options.webhook_cert_dir,
                cert_name=self.options.webhook_cert_name,
                key_name=self.options.webhook_cert_key,
            )
            if self.options.webhook_cert_dir is not None
            else OperatorManagedCertificates(
                namespace=self.options.operator_namespace,
                policy=CertificatePolicy(
                    dns_names=_service_dns_names(WEBHOOK_SERVICE, self.options.operator_namespace)
                ),
                api=rest,
                owner=self.owner,
            )
        )
        server = WebhookServer(
            certificates=certificates,
            validator=(
                dynamo_operator.validation
                if self.claims is None
                else ClaimAwareValidator(self.claims)
            ),
            port=self.options.webhook_port,
        )
        self.manager.health.add_readyz_check("webhook-server", lambda: server.ready)
        return server

    def _component_controller(self, client: Client) -> Controller:
        reconciler = ComponentDeploymentReconciler(
            client=client,
            reader=self.cache.reader,
            recorder=self.recorder,
            kinds=ComponentKinds(
                component=COMPONENT,
                children=(*COMPONENT_CHILDREN, *OPTIONAL_KINDS.values()),
            ),
            settings=lambda: self.settings,
            now=_now,
        )
        return (
            ControllerBuilder(self.manager)
            .named("dynamocomponentdeployment")
            .for_(COMPONENT, _spec_or_metadata_changed())
            .owns(DEPLOYMENT)
            # Every owner, not only the controller: a base model's Service is shared by the
            # components serving it, none of them its controller.
            .watches(SERVICE, enqueue_for_owner(COMPONENT, only_controller=False))
            .owns(INGRESS)
            .owns(HORIZONTAL_POD_AUTOSCALER)
            .watches(POD, pod_requests)
            .watches(SECRET, secret_requests(COMPONENT))
            .watches(SERVICE_ACCOUNT, discovery_access_requests(COMPONENT))
            .watches(ROLE, discovery_access_requests(COMPONENT))
            .watches(ROLE_BINDING, discovery_access_requests(COMPONENT))
            .with_options(max_concurrent_reconciles=self.options.max_concurrent_reconciles)
            .complete(self._claim_aware(MeteredReconciler(reconciler, COMPONENT.kind)))
        )

    def _graph_controller(self, client: Client) -> Controller:
        reconciler = GraphDeploymentReconciler(
            client=client,
            reader=self.cache.reader,
            recorder=self.recorder,
            kinds=GraphKinds(graph=GRAPH, component=COMPONENT),
            settings=lambda: self.settings,
            planner_cluster_role_name=self.options.planner_cluster_role_name,
            now=_now,
        )
        return (
            ControllerBuilder(self.manager)
            .named("dynamographdeployment")
            .for_(GRAPH, _spec_or_metadata_changed())
            .owns(COMPONENT)
            .watches(PERSISTENT_VOLUME_CLAIM, _graphs_in_namespace)
            .with_options(max_concurrent_reconciles=self.options.max_concurrent_reconciles)
            .complete(self._claim_aware(MeteredReconciler(reconciler, GRAPH.kind)))
        )

    def _claim_aware(self, reconciler: Reconciler) -> Reconciler:
        return reconciler if self.claims is None else ClaimAware(reconciler, self.claims)

    def _on_served_apis(self, discovery: Discovery, present: frozenset[str]) -> None:
        """Use an optional API from the moment the cluster serves it: cache and watch its
        kind, and reconcile every component again so multinode ones get their workloads."""
        served: frozenset[OptionalApi] = frozenset(
            name for name, version in OPTIONAL_API_GROUP_VERSIONS.items() if version in present
        )
        self.settings = dataclasses.replace(self.settings, available_apis=served)
        for name in served:
            kind = OPTIONAL_KINDS[name]
            if kind in self.kinds:
                continue
            self.kinds.add(kind)
            informer = self.cache.register(kind, label_selector=MANAGED_SELECTOR)
            handler = EnqueueHandler(
                self.components.queue, enqueue_for_owner(COMPONENT), self.cache.reader
            )
            self.components.watch(informer, handler)
        log.info("optional APIs", served=sorted(served))
        if self.cache.reader.has_synced(COMPONENT):
            for dcd in self.cache.reader.list(COMPONENT):
                metadata = dcd["metadata"]
                self.components.queue.add(Request(metadata["namespace"], metadata["name"]))


def _exit_code(group: BaseExceptionGroup[BaseException]) -> int:
    """One clear line for the failures an operator meets outside its code (a port taken, the
    namespace marker not kept); anything else is a bug and keeps its traceback."""
    if (lost := group.subgroup(LeaseMarkerLostError)) is not None:
        log.error("namespace marker not kept; exiting", error=str(_first(lost)))
        return 1
    if (unbound := group.subgroup(OSError)) is not None:
        log.error("cannot listen", error=str(_first(unbound)))
        return 1
    raise group


def _first(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


def _spec_or_metadata_changed() -> Predicate:
    # Status-only updates (our own writes) need no reconcile; labels and annotations reach the
    # children, so their changes do.
    return or_(GenerationChanged, LabelsChanged, AnnotationsChanged)


def _graphs_in_namespace(claim: dict[str, Any], reader: CacheReader) -> Iterable[Request]:
    """The graphs that name a claim in `spec.pvcs`: a created or deleted claim changes their
    readiness."""
    metadata = claim.get("metadata") or {}
    namespace, name = metadata.get("namespace") or "", metadata.get("name")
    return [
        Request(namespace, dgd["metadata"]["name"])
        for dgd in reader.list(GRAPH, namespace)
        if any(pvc.get("name") == name for pvc in (dgd.get("spec") or {}).get("pvcs") or ())
    ]


def _service_dns_names(service: str, namespace: str) -> tuple[str, ...]:
    return (service, f"{service}.{namespace}", f"{service}.{namespace}.svc")


def _now() -> datetime:
    return datetime.now(UTC)
