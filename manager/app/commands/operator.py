"""The composition root of `dynamo-operator run`: flags -> manager -> each kind's `setup` ->
webhooks, one Manager with everything in it.

Start order (the manager's, plus two gates of our own): health and metrics listeners; the API
gate (the API server answers and serves our CRDs; until then `/readyz` fails and one log line
says why); served optional APIs (LeaderWorkerSet, Volcano, Istio: watched from the moment they
appear, no restart needed); the Event recorder; the webhook server; the caches (wait for sync:
reconciles never see a half-filled cache, so an operator restart never changes a pod template);
leader election; the controllers. SIGTERM drains in-flight reconciles and stops in reverse order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import kr8s.asyncio

import dynamo_operator.validation
from dynamo_operator.settings import OPTIONAL_API_GROUP_VERSIONS
from manager.app.collector_view import CollectorView
from manager.app.commands.namespace_modes import (
    MARKER_LEASE_NAME,
    ClaimAwareValidator,
    HandOver,
    namespace_marker,
)
from manager.app.commands.run_options import RunOptions
from manager.app.deps import Deps, utc_now
from manager.app.kinds import (
    COMPONENT,
    CUSTOM_KINDS,
    DYNAMO_COMPONENT,
    GRAPH,
    MODEL,
    SCALING_ADAPTER,
    served_optional_apis,
)
from manager.app.reconcilers import (
    component_deployment,
    dynamo_component,
    graph_deployment,
    model,
    scaling_adapter,
)
from manager.runtime import event_loop
from manager.runtime.cache import Cache
from manager.runtime.client import Client, KindRegistry, RestClient
from manager.runtime.client.aiohttp_transport import AiohttpTransport
from manager.runtime.controller import Controller
from manager.runtime.discovery import Discovery, RequiredKinds, ServedApis
from manager.runtime.errors import LeadershipLostError
from manager.runtime.events import EventRecorder
from manager.runtime.identity import Identity
from manager.runtime.kinds import SERVICE_ACCOUNT
from manager.runtime.leaderelection import LeaderElector
from manager.runtime.leaderelection.errors import LeaseMarkerLostError
from manager.runtime.logging import configure_logging, get_logger
from manager.runtime.manager import (
    Manager,
)
from manager.runtime.metrics import (
    DelegatedAuth,
    SecureServing,
    ServingCertificate,
    metrics_server,
)
from manager.runtime.namespace_claims import NamespaceClaims
from manager.runtime.process_owner import ProcessOwner
from manager.runtime.tls import CertificateError, DirectoryCertificates
from manager.runtime.workqueue import DEFAULT_PRIORITY, LOW_PRIORITY
from webhooks import (
    ConversionTarget,
    CrdConversionKeeper,
    OperatorManagedCertificates,
    ReplicaWriters,
    WebhookServer,
    convertible_crd_names,
)
from webhooks.certificates.rotation import CertificatePolicy

__all__ = ["run_operator"]

PRODUCT = "dynamo-operator"
WEBHOOK_SERVICE = "dynamo-operator-webhook-service"
"""The Service in front of the webhook server (the Helm chart creates it under this name)."""
DOMAIN = "nvidia.com"
METRICS_CERTIFICATE_NAME = f"{PRODUCT}-metrics"
"""The common name of the secure metrics endpoint's self-signed certificate."""

log = get_logger(__name__)


def run_operator(options: RunOptions) -> int:
    configure_logging(options.log_level)
    try:
        return event_loop.run(_run, options)
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
        operator = Operator(options, identity, rest)
    except CertificateError as error:
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


class Operator:
    """Flags -> manager (listeners, gates, recorder) -> each kind's setup -> webhooks."""

    def __init__(self, options: RunOptions, identity: Identity, rest: RestClient) -> None:
        self.options = options
        self.owner = (
            ProcessOwner(rest, SERVICE_ACCOUNT, options.operator_namespace, options.service_account)
            if options.service_account
            else None
        )
        kinds = KindRegistry()
        discovery = Discovery(rest, kinds)
        cache = Cache(rest, namespace=options.restricted_namespace)
        # Cluster-wide, keep out of namespaces a namespace-restricted operator has claimed.
        self.claims = (
            None
            if options.restricted_namespace
            else NamespaceClaims(cache, lease_name=MARKER_LEASE_NAME)
        )
        self.settings = dataclasses.replace(options.settings, available_apis=frozenset())
        self.manager = Manager(
            cache=cache,
            leader_elector=self._leader_elector(rest, identity),
            bind_host="0.0.0.0",
            health_port=None,
            metrics_port=None,
            api_availability=rest.availability,
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
        # First, before any setup's listener: what they reconcile again reads these settings.
        served.add_listener(self._on_served_apis)
        self.manager.add(served)
        recorder = EventRecorder(rest, identity)
        self.manager.add(recorder)
        if self.claims is not None:
            self.manager.add(self.claims)
        pod_makers: list[Controller] = []
        components: list[Controller] = []
        view = CollectorView(rest, options.restricted_namespace, utc_now)
        self.manager.add(view)
        self.deps = deps = Deps(
            client=Client(rest, identity, kinds=kinds),
            cache=cache,
            recorder=recorder,
            served_apis=served,
            settings=lambda: self.settings,
            max_concurrent_reconciles=options.max_concurrent_reconciles,
            max_concurrent_low_priority_reconciles=options.max_concurrent_low_priority_reconciles,
            planner_cluster_role_name=options.planner_cluster_role_name,
            claims=self.claims,
            image_build=options.image_build,
            pod_work_waiting=lambda: (
                view.waiting()
                or any(maker.queue.queued_at_or_above(DEFAULT_PRIORITY) for maker in pod_makers)
            ),
            component_work_waiting=lambda: any(
                component.queue.queued_at_or_above(LOW_PRIORITY) for component in components
            ),
            collector_view=view,
        )
        controllers = (
            (component_deployment.setup(self.manager, deps), COMPONENT),
            (graph_deployment.setup(self.manager, deps), GRAPH),
            (model.setup(self.manager, deps), MODEL),
            (dynamo_component.setup(self.manager, deps), DYNAMO_COMPONENT),
            (scaling_adapter.setup(self.manager, deps), SCALING_ADAPTER),
        )
        # Graphs make components and components make the workloads: what gates pods.
        pod_makers.extend(
            controller for controller, kind in controllers if kind in (GRAPH, COMPONENT)
        )
        components.extend(controller for controller, kind in controllers if kind == COMPONENT)
        if self.claims is not None:
            self.claims.add_listener(HandOver(cache.reader, recorder, GRAPH, controllers))
        if options.enable_webhooks:
            self.manager.add(self._webhook_server(rest))

    def _listeners(self, options: RunOptions, rest: RestClient) -> None:
        # The manager's own listeners on the addresses the flags give (0 turns one off).
        if options.health_address is not None:
            host, port = options.health_address
            self.manager.health_server = self.manager.health.server(host=host, port=port)
        if options.metrics_address is not None:
            host, port = options.metrics_address
            secure = (
                SecureServing(
                    DelegatedAuth(rest),
                    ServingCertificate(
                        options.metrics_certificate, self_signed_name=METRICS_CERTIFICATE_NAME
                    ),
                )
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
        self._keep_crd_conversion(rest, certificates)
        server = WebhookServer(
            certificates=certificates,
            validator=(
                dynamo_operator.validation
                if self.claims is None
                else ClaimAwareValidator(self.claims)
            ),
            port=self.options.webhook_port,
            replica_writers=ReplicaWriters.of(
                self.options.replica_writers,
                operator_namespace=self.options.operator_namespace,
                operator_service_account=self.options.service_account,
            ),
        )
        self.manager.health.add_readyz_check("webhook-server", lambda: server.ready)
        return server

    def _keep_crd_conversion(
        self, rest: RestClient, certificates: OperatorManagedCertificates | DirectoryCertificates
    ) -> None:
        """Cluster-wide, the CRDs served at two versions convert through this operator's Service.
        A namespace-restricted operator leaves them alone: a cluster-scoped object is the
        cluster-wide operator's (or the CRD chart's) to configure, as upstream has it."""
        options = self.options
        if not options.manage_crd_conversion or options.restricted_namespace:
            return
        if options.conversion_ca_certificate is not None:
            ca_bundle: Callable[[], bytes | None] = lambda: None  # noqa: E731
        elif isinstance(certificates, OperatorManagedCertificates):
            ca_bundle = lambda: certificates.ca_bundle_pem  # noqa: E731
        else:
            ca_file = certificates.cert_dir / "ca.crt"
            ca_bundle = lambda: ca_file.read_bytes() if ca_file.exists() else None  # noqa: E731
        target = ConversionTarget.service(
            WEBHOOK_SERVICE,
            options.operator_namespace,
            ca_bundle=ca_bundle,
            cert_manager_certificate=options.conversion_ca_certificate,
        )
        keeper = CrdConversionKeeper(rest, target, convertible_crd_names())
        if isinstance(certificates, OperatorManagedCertificates):
            certificates.add_ca_listener(keeper.ca_changed)
        self.manager.add(keeper)

    def _on_served_apis(self, present: frozenset[str]) -> None:
        """Builders use an optional API from the moment the cluster serves it."""
        served = served_optional_apis(present)
        self.settings = dataclasses.replace(self.settings, available_apis=served)
        log.info("optional APIs", served=sorted(served))


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


def _service_dns_names(service: str, namespace: str) -> tuple[str, ...]:
    return (service, f"{service}.{namespace}", f"{service}.{namespace}.svc")
