"""The operator chart (`deploy/helm/dynamo-operator`) as `helm template` renders it: what a user
installing it with given values gets. The flags are parsed by `dynamo-operator run`'s own parser,
so a value that maps to a flag the operator would refuse fails here, not in the Pod."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from dynamo_operator.builders import DISCOVERY_RULES
from e2e.support.chart import (
    CRD_CHART,
    OPERATOR_CHART,
    SERVICE_MONITOR_API,
    ChartError,
    flags,
    lint,
    manager_container,
    of_kind,
    one,
    render,
)
from manager.app.cli import build_parser
from manager.app.commands.go_flags import normalize_go_arguments
from manager.app.commands.run import RunOptions, options_from_arguments
from webhooks.manifests import (
    ServiceTarget,
    build_namespace_restricted_webhook_configuration,
    build_validating_webhook_configuration,
)

NAMESPACE = "dynamo-system"
UPSTREAM_VALUES = Path(__file__).with_name("upstream-values.yaml")
RESTRICTED = {"namespaceRestriction": {"enabled": True}}
CERT_MANAGER = {"webhook": {"certManager": {"enabled": True}}}
RBAC_KINDS = ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")


def operator_options(objects: list[dict[str, Any]]) -> RunOptions:
    """What `dynamo-operator run` makes of the rendered container's args and environment."""
    container = manager_container(objects)
    assert container["command"] == ["dynamo-operator"]
    parser, go_style = build_parser(["run"])
    arguments = container["args"]
    arguments = [arguments[0], *normalize_go_arguments(arguments[1:], go_style["run"])]
    environ = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    namespace = one(objects, "Deployment")["metadata"]["namespace"]
    return options_from_arguments(
        parser.parse_args(arguments), {**environ, "POD_NAMESPACE": namespace}
    )


def pod_spec(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return dict(one(objects, "Deployment")["spec"]["template"]["spec"])


def rules_of(objects: list[dict[str, Any]], kind: str, suffix: str) -> list[dict[str, Any]]:
    [role] = [o for o in of_kind(objects, kind) if o["metadata"]["name"].endswith(suffix)]
    return list(role["rules"])


# -- both charts are valid ------------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [{}, RESTRICTED, CERT_MANAGER, {"controllerManager": {"replicas": 2}}],
    ids=["default", "restricted", "cert-manager", "replicas-2"],
)
def test_operator_chart_lints(values: dict[str, Any]) -> None:
    assert "0 chart(s) failed" in lint(OPERATOR_CHART, values=values)


def test_crd_chart_installs_the_generated_crds_and_keeps_them_on_uninstall() -> None:
    assert "0 chart(s) failed" in lint(CRD_CHART)
    crds = render(CRD_CHART, release="dynamo-operator-crds", namespace="default")
    generated = sorted((CRD_CHART / "generated").glob("*.yaml"))
    assert len(crds) == len(generated) == 6
    import yaml

    for crd, path in zip(sorted(crds, key=lambda c: c["metadata"]["name"]), generated, strict=True):
        source = yaml.safe_load(path.read_text())
        assert crd["spec"] == source["spec"]
        assert crd["metadata"]["name"] == source["metadata"]["name"]
        assert crd["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"


# -- values -> flags --------------------------------------------------------------------------


def test_default_install_is_cluster_wide_leader_elected_with_webhooks_and_secure_metrics() -> None:
    objects = render(namespace=NAMESPACE)
    options = operator_options(objects)
    assert options.restricted_namespace is None
    assert options.leader_elect
    assert (options.leader_election_id, options.leader_election_namespace) == (
        "dynamo.nvidia.com",
        NAMESPACE,
    )
    assert options.enable_webhooks
    assert options.webhook_port == 9443
    assert options.webhook_cert_dir is None  # operator-managed certificates
    assert options.metrics_secure
    assert options.metrics_address == ("0.0.0.0", 8443)
    assert options.health_address == ("0.0.0.0", 8081)
    assert options.planner_cluster_role_name == "dynamo-operator-planner"
    assert options.settings.discovery_cluster_role_name == "dynamo-operator-k8s-service-discovery"
    assert options.operator_version == "0.1.0"
    assert options.operator_namespace == NAMESPACE
    assert manager_container(objects)["image"] == "dynamo-operator:0.1.0"


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"natsAddr": "nats://n:4222"}, {"--natsAddr": "nats://n:4222"}),
        ({"etcdAddr": "etcd:2379"}, {"--etcdAddr": "etcd:2379"}),
        (
            {"dynamo": {"ingress": {"enabled": True, "className": "nginx", "tlsSecretName": "t"}}},
            {
                "--ingress-controller-class-name": "nginx",
                "--ingress-controller-tls-secret-name": "t",
            },
        ),
        ({"dynamo": {"ingress": {"enabled": False, "className": "nginx"}}}, {}),
        (
            {"dynamo": {"istio": {"enabled": True, "gateway": "istio-system/gw"}}},
            {"--istio-virtual-service-gateway": "istio-system/gw"},
        ),
        ({"dynamo": {"istio": {"enabled": False, "gateway": "gw"}}}, {}),
        (
            {"dynamo": {"ingressHostSuffix": "example.com"}},
            {"--ingress-host-suffix": "example.com"},
        ),
        (
            {"controllerManager": {"leaderElection": {"id": "other", "namespace": "kube-system"}}},
            {"--leader-election-id": "other", "--leader-election-namespace": "kube-system"},
        ),
        (
            {"controllerManager": {"manager": {"image": {"tag": "v9"}}}},
            {"--operator-version": "v9"},
        ),
        ({"webhook": {"enabled": False}}, {"--enable-webhooks": "false"}),
        ({"metricsService": {"enabled": False}}, {"--metrics-bind-address": "0"}),
    ],
)
def test_values_become_flags(values: dict[str, Any], expected: dict[str, str]) -> None:
    rendered = flags(render(values=values))
    baseline = flags(render())
    changed = {name: value for name, value in rendered.items() if baseline.get(name) != value}
    assert changed == expected
    operator_options(render(values=values))  # and the operator accepts them


def test_settings_reach_the_operator() -> None:
    values = {
        "natsAddr": "nats://n:4222",
        "etcdAddr": "etcd:2379",
        "dynamo": {
            "ingress": {"enabled": True, "className": "nginx", "tlsSecretName": "tls"},
            "istio": {"enabled": True, "gateway": "gw"},
            "ingressHostSuffix": "example.com",
        },
    }
    settings = operator_options(render(values=values)).settings
    assert settings.nats_addr == "nats://n:4222"
    assert settings.etcd_addr == "etcd:2379"
    assert settings.ingress_controller_class_name == "nginx"
    assert settings.ingress_controller_tls_secret_name == "tls"
    assert settings.istio_virtual_service_gateway == "gw"
    assert settings.ingress_host_suffix == "example.com"


def test_image_build_values_reach_the_operator() -> None:
    values = {
        "imageBuild": {
            "apiStoreEndpoint": "http://store.dynamo:8080",
            "registry": {"server": "10.0.0.1:5000", "secure": False, "secretName": "push"},
            "engine": "kaniko",
            "estargz": True,
            "timeout": "20m",
            "images": {"kaniko": "localhost/kaniko:1", "downloader": "localhost/tools:1"},
        }
    }
    build = operator_options(render(values=values)).image_build
    assert build.api_store_endpoint == "http://store.dynamo:8080"
    assert build.docker_registry_server == "10.0.0.1:5000"
    assert not build.docker_registry_secure
    assert build.docker_registry_secret_name == "push"
    assert build.build_engine == "kaniko"
    assert build.estargz_enabled
    assert build.default_build_timeout.total_seconds() == 1200
    assert (build.kaniko_image, build.downloader_image) == (
        "localhost/kaniko:1",
        "localhost/tools:1",
    )
    # Unset: the operator's defaults, the builder configuration read in the release namespace.
    defaults = operator_options(render()).image_build
    assert defaults.docker_registry_server is None
    assert defaults.docker_registry_secure
    assert defaults.image_builder_namespace == one(render(), "Deployment")["metadata"]["namespace"]


def test_restricted_mode_manages_its_namespace_without_leader_election() -> None:
    values = {
        "namespaceRestriction": {
            "enabled": True,
            "targetNamespace": "team-a",
            "lease": {"duration": "20s", "renewInterval": "5s"},
        }
    }
    options = operator_options(render(namespace="dynamo-team-a", values=values))
    assert options.restricted_namespace == "team-a"
    assert not options.leader_elect
    assert options.namespace_scope_lease_duration == 20
    assert options.namespace_scope_lease_renew_interval == 5
    assert options.planner_cluster_role_name is None
    assert options.settings.discovery_cluster_role_name is None  # a Role per graph, as upstream
    default_target = operator_options(render(namespace="team-b", values=RESTRICTED))
    assert default_target.restricted_namespace == "team-b"


def test_the_cluster_wide_operator_keeps_the_crds_conversion_webhook_and_only_it() -> None:
    def arguments(values: dict[str, Any]) -> list[str]:
        (deployment,) = of_kind(render(values=values), "Deployment")
        (manager,) = deployment["spec"]["template"]["spec"]["containers"]
        return [a for a in manager["args"] if "conversion" in a]

    def conversion_rules(values: dict[str, Any]) -> list[dict[str, Any]]:
        objects = render(values=values)
        return [
            r
            for _, r in all_rules(objects)
            if "customresourcedefinitions" in r.get("resources", ())
        ]

    assert arguments({}) == [], "operator-managed: it injects its own CA"
    assert conversion_rules({}) == [
        {
            "apiGroups": ["apiextensions.k8s.io"],
            "resources": ["customresourcedefinitions"],
            "verbs": ["list", "watch"],
        },
        {
            "apiGroups": ["apiextensions.k8s.io"],
            "resources": ["customresourcedefinitions"],
            "verbs": ["patch"],
            "resourceNames": [
                "dynamographdeployments.nvidia.com",
                "dynamocomponentdeployments.nvidia.com",
                "dynamographdeploymentscalingadapters.nvidia.com",
            ],
        },
    ]
    assert arguments(CERT_MANAGER) == [
        f"--conversion-ca-certificate={NAMESPACE}/dynamo-operator-serving-cert"
    ], "cert-manager's cainjector fills the CRDs' caBundle from the serving Certificate"
    restricted = {"namespaceRestriction": {"enabled": True}}
    assert arguments(restricted) == ["--manage-crd-conversion=false"]
    assert conversion_rules(restricted) == []
    assert conversion_rules({"webhook": {"enabled": False}}) == []


def test_restricted_mode_refuses_standbys() -> None:
    with pytest.raises(ChartError, match=r"replicas must be 1"):
        render(values={**RESTRICTED, "controllerManager": {"replicas": 2}})


def test_extra_args_come_first_so_the_chart_flags_win() -> None:
    """Upstream's default args name a plain-HTTP metrics address; the chart's secure one wins."""
    extra = ["--metrics-bind-address=127.0.0.1:8080", "--max-concurrent-reconciles=3"]
    objects = render(values={"controllerManager": {"manager": {"args": extra}}})
    args = manager_container(objects)["args"]
    assert args[1:3] == extra
    options = operator_options(objects)
    assert options.metrics_address == ("0.0.0.0", 8443)
    assert options.metrics_secure
    assert options.max_concurrent_reconciles == 3


def test_an_upstream_values_file_installs() -> None:
    objects = render(namespace="dynamo-team-a", values_files=[UPSTREAM_VALUES])
    options = operator_options(objects)
    container = manager_container(objects)
    spec = pod_spec(objects)
    assert container["image"] == "registry.example.com/dynamo-operator:v2.0.0-beta"
    assert options.restricted_namespace == "team-a"
    assert options.namespace_scope_lease_duration == 45
    assert options.operator_version == "v2.0.0-beta"
    assert options.settings.nats_addr == "nats://nats.dynamo-system.svc:4222"
    assert options.settings.ingress_controller_class_name == "nginx"
    assert options.settings.ingress_host_suffix == "dynamo.example.com"
    assert options.metrics_secure
    assert options.metrics_address == ("0.0.0.0", 8443)
    assert spec["imagePullSecrets"] == [{"name": "docker-imagepullsecret"}]
    assert spec["tolerations"][0]["key"] == "dedicated"
    assert "nodeAffinity" in spec["affinity"]
    assert container["resources"]["requests"] == {"cpu": "512m", "memory": "1Gi"}
    account = one(objects, "ServiceAccount")
    assert account["metadata"]["annotations"] == {"iam.example.com/role": "dynamo"}
    configuration = one(objects, "ValidatingWebhookConfiguration")
    for webhook in configuration["webhooks"]:
        assert (webhook["failurePolicy"], webhook["timeoutSeconds"]) == ("Ignore", 5)
    assert container["securityContext"]["readOnlyRootFilesystem"] is True


# -- the Pod ----------------------------------------------------------------------------------


def test_the_operator_runs_locked_down() -> None:
    objects = render()
    spec = pod_spec(objects)
    container = manager_container(objects)
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["securityContext"]["runAsUser"] == 65532
    assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    security = container["securityContext"]
    assert security["runAsNonRoot"] is True
    assert security["runAsUser"] == 65532
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"] == {"drop": ["ALL"]}
    assert security["seccompProfile"] == {"type": "RuntimeDefault"}
    # The only writable directory is an emptyDir on /tmp.
    [tmp] = [m for m in container["volumeMounts"] if m["mountPath"] == "/tmp"]
    [volume] = [v for v in spec["volumes"] if v["name"] == tmp["name"]]
    assert "emptyDir" in volume
    [namespace] = [e for e in container["env"] if e["name"] == "POD_NAMESPACE"]
    assert namespace["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.namespace"}}


def test_probes_and_ports() -> None:
    container = manager_container(render())
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"health": 8081, "https": 8443, "webhook-server": 9443}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "health"}


def test_scheduling_values_reach_the_pod() -> None:
    toleration = {"key": "realnode", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    values = {
        "controllerManager": {
            "nodeSelector": {"realnode": "true"},
            "tolerations": [toleration],
            "manager": {
                "image": {
                    "repository": "localhost/dynamo-operator",
                    "tag": "dev",
                    "pullPolicy": "Never",
                }
            },
        }
    }
    objects = render(values=values)
    spec = pod_spec(objects)
    assert spec["nodeSelector"] == {"realnode": "true"}
    assert spec["tolerations"] == [toleration]
    container = manager_container(objects)
    assert container["image"] == "localhost/dynamo-operator:dev"
    assert container["imagePullPolicy"] == "Never"


def test_services_select_the_operator_pod() -> None:
    objects = render()
    pod_labels = one(objects, "Deployment")["spec"]["template"]["metadata"]["labels"]
    webhook = one(objects, "Service", "dynamo-operator-webhook-service")
    metrics = one(objects, "Service", "dynamo-operator-metrics-service")
    for service in (webhook, metrics):
        assert service["spec"]["selector"].items() <= pod_labels.items()
    assert webhook["spec"]["ports"] == [
        {"name": "https", "port": 443, "protocol": "TCP", "targetPort": "webhook-server"}
    ]
    assert metrics["spec"]["ports"][0]["port"] == 8443
    assert metrics["spec"]["ports"][0]["targetPort"] == "https"


def test_a_disruption_budget_only_with_standbys() -> None:
    assert of_kind(render(), "PodDisruptionBudget") == []
    objects = render(values={"controllerManager": {"replicas": 2}})
    budget = one(objects, "PodDisruptionBudget")
    assert budget["spec"]["minAvailable"] == 1
    pod_labels = one(objects, "Deployment")["spec"]["template"]["metadata"]["labels"]
    assert budget["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()


# -- metrics ------------------------------------------------------------------------------


def test_service_monitor_only_where_prometheus_operator_is_served() -> None:
    assert of_kind(render(), "ServiceMonitor") == []
    objects = render(api_versions=[SERVICE_MONITOR_API])
    monitor = one(objects, "ServiceMonitor")
    [endpoint] = monitor["spec"]["endpoints"]
    assert endpoint["scheme"] == "https"
    assert endpoint["port"] == "https"
    assert endpoint["bearerTokenFile"] == "/var/run/secrets/kubernetes.io/serviceaccount/token"
    assert endpoint["tlsConfig"] == {"insecureSkipVerify": True}
    service = one(objects, "Service", "dynamo-operator-metrics-service")
    assert (
        monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    )
    disabled = render(
        values={"metricsService": {"enabled": False}}, api_versions=[SERVICE_MONITOR_API]
    )
    assert of_kind(disabled, "ServiceMonitor") == []
    assert [s["metadata"]["name"] for s in of_kind(disabled, "Service")] == [
        "dynamo-operator-webhook-service"
    ]


def test_scrapers_get_a_metrics_reader_cluster_role() -> None:
    assert rules_of(render(), "ClusterRole", "-metrics-reader") == [
        {"nonResourceURLs": ["/metrics"], "verbs": ["get"]}
    ]


def test_the_dashboard_is_a_configmap_grafana_picks_up() -> None:
    dashboard = one(render(), "ConfigMap")
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    [(name, content)] = dashboard["data"].items()
    shipped = (OPERATOR_CHART / "dashboards" / "dynamo-operator.json").read_text()
    assert name == "dynamo-operator.json"
    assert json.loads(content) == json.loads(shipped)
    assert of_kind(render(values={"dashboard": {"enabled": False}}), "ConfigMap") == []


# -- RBAC -------------------------------------------------------------------------------------


def all_rules(objects: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{o['kind']} {o['metadata']['name']}", rule)
        for o in of_kind(objects, "Role", "ClusterRole")
        for rule in o["rules"]
    ]


@pytest.mark.parametrize("values", [{}, RESTRICTED], ids=["cluster-wide", "restricted"])
def test_rbac_names_every_verb_and_resource(values: dict[str, Any]) -> None:
    for role, rule in all_rules(render(values=values)):
        for field in ("apiGroups", "resources", "verbs", "resourceNames", "nonResourceURLs"):
            assert "*" not in (rule.get(field) or ()), (role, rule)


@pytest.mark.parametrize("values", [{}, RESTRICTED], ids=["cluster-wide", "restricted"])
def test_secrets_are_read_only_but_the_webhook_certificate(values: dict[str, Any]) -> None:
    secret_rules = [
        rule
        for _, rule in all_rules(render(values=values))
        if "secrets" in rule.get("resources", ())
    ]
    assert secret_rules == [
        {"apiGroups": [""], "resources": ["pods", "secrets"], "verbs": ["list", "watch"]},
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]},
        {
            "apiGroups": [""],
            "resources": ["secrets"],
            "verbs": ["get", "update"],
            "resourceNames": ["webhook-server-cert"],
        },
    ]
    cert_manager = render(values={**values, **CERT_MANAGER})
    assert [
        r["verbs"] for _, r in all_rules(cert_manager) if "secrets" in r.get("resources", ())
    ] == [["list", "watch"]]


def test_cluster_wide_mode_grants_one_cluster_role_and_the_leader_election_role() -> None:
    objects = render()
    assert sorted(o["metadata"]["name"] for o in of_kind(objects, "ClusterRole")) == [
        "dynamo-operator-crd-conversion-role",
        "dynamo-operator-k8s-service-discovery",
        "dynamo-operator-manager-role",
        "dynamo-operator-metrics-auth-role",
        "dynamo-operator-metrics-reader",
        "dynamo-operator-planner",
        "dynamo-operator-webhook-ca-injection-role",
    ]
    assert [
        (o["metadata"]["name"], o["metadata"]["namespace"]) for o in of_kind(objects, "Role")
    ] == [
        ("dynamo-operator-leader-election-role", NAMESPACE),
        ("dynamo-operator-webhook-certificate-role", NAMESPACE),
    ]
    bindings = of_kind(objects, "ClusterRoleBinding", "RoleBinding")
    assert {b["roleRef"]["name"] for b in bindings} == {
        o["metadata"]["name"] for o in of_kind(objects, "Role", "ClusterRole")
    } - {
        "dynamo-operator-metrics-reader",
        "dynamo-operator-planner",
        "dynamo-operator-k8s-service-discovery",
    }
    for binding in bindings:
        assert binding["subjects"] == [
            {
                "kind": "ServiceAccount",
                "name": "dynamo-operator-controller-manager",
                "namespace": NAMESPACE,
            }
        ]
    bind = [r for _, r in all_rules(objects) if r["verbs"] == ["bind"]]
    assert bind == [
        {
            "apiGroups": ["rbac.authorization.k8s.io"],
            "resources": ["clusterroles"],
            "verbs": ["bind"],
            "resourceNames": ["dynamo-operator-planner"],
        }
    ]


def test_the_discovery_cluster_role_grants_what_a_graphs_own_role_would() -> None:
    """Cluster-wide, graphs' accounts are bound to the chart's ClusterRole instead of a Role
    each: it must let Dynamo's pods do exactly what their own Role would."""
    [role] = [
        o
        for o in of_kind(render(), "ClusterRole")
        if o["metadata"]["name"] == "dynamo-operator-k8s-service-discovery"
    ]
    assert role["rules"] == list(DISCOVERY_RULES)
    # Graphs outlive the release (helm uninstall leaves them running): so does their access.
    assert role["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    assert not [
        o
        for o in of_kind(render(values=RESTRICTED), "ClusterRole")
        if o["metadata"]["name"].endswith("-k8s-service-discovery")
    ]


def test_restricted_mode_is_namespaced_but_for_the_documented_exceptions() -> None:
    """The manager Role in the target namespace; cluster-scoped only what must be: the CA
    injection into this release's webhook configuration and the metrics reviews (README:
    Install, RBAC)."""
    objects = render(
        namespace="dynamo-team-a",
        values={"namespaceRestriction": {"enabled": True, "targetNamespace": "team-a"}},
    )
    roles = {(o["metadata"]["name"], o["metadata"]["namespace"]) for o in of_kind(objects, "Role")}
    assert roles == {
        ("dynamo-operator-manager-role", "team-a"),
        ("dynamo-operator-webhook-certificate-role", "dynamo-team-a"),
    }
    cluster_roles = {o["metadata"]["name"]: o["rules"] for o in of_kind(objects, "ClusterRole")}
    assert cluster_roles == {
        "dynamo-operator-dynamo-team-a-webhook-ca-injection-role": [
            {
                "apiGroups": ["admissionregistration.k8s.io"],
                "resources": ["validatingwebhookconfigurations"],
                "verbs": ["list", "watch"],
            },
            {
                "apiGroups": ["admissionregistration.k8s.io"],
                "resources": ["validatingwebhookconfigurations"],
                "verbs": ["patch"],
                "resourceNames": ["dynamo-operator-validating-team-a"],
            },
        ],
        "dynamo-operator-dynamo-team-a-metrics-auth-role": [
            {
                "apiGroups": ["authentication.k8s.io"],
                "resources": ["tokenreviews"],
                "verbs": ["create"],
            },
            {
                "apiGroups": ["authorization.k8s.io"],
                "resources": ["subjectaccessreviews"],
                "verbs": ["create"],
            },
        ],
        "dynamo-operator-dynamo-team-a-metrics-reader": [
            {"nonResourceURLs": ["/metrics"], "verbs": ["get"]}
        ],
    }
    manager_rules = rules_of(objects, "Role", "-manager-role")
    assert {"clusterroles"} & {r for rule in manager_rules for r in rule["resources"]} == set()
    # cert-manager certificates and no metrics endpoint: nothing cluster-scoped at all.
    minimal = render(values={**RESTRICTED, **CERT_MANAGER, "metricsService": {"enabled": False}})
    assert of_kind(minimal, "ClusterRole", "ClusterRoleBinding") == []


# -- webhooks -------------------------------------------------------------------------------


def without_chart_labels(configuration: dict[str, Any]) -> dict[str, Any]:
    metadata = configuration["metadata"]
    label = "nvidia.com/dynamo-operator-namespace"
    return {
        **configuration,
        "metadata": {"name": metadata["name"], "labels": {label: metadata["labels"][label]}},
    }


def test_the_webhook_configuration_is_what_the_operator_injects_its_ca_into() -> None:
    rendered = one(render(), "ValidatingWebhookConfiguration")
    target = ServiceTarget("dynamo-operator-webhook-service", NAMESPACE)
    assert without_chart_labels(rendered) == build_validating_webhook_configuration(
        target, name="dynamo-operator-validating", operator_namespace=NAMESPACE
    )
    restricted = one(
        render(
            namespace="dynamo-team-a",
            values={"namespaceRestriction": {"enabled": True, "targetNamespace": "team-a"}},
        ),
        "ValidatingWebhookConfiguration",
    )
    assert without_chart_labels(restricted) == build_namespace_restricted_webhook_configuration(
        ServiceTarget("dynamo-operator-webhook-service", "dynamo-team-a"),
        namespace="team-a",
        name="dynamo-operator-validating",
        operator_namespace="dynamo-team-a",
    )


def test_no_hook_jobs_for_certificates() -> None:
    for values in ({}, RESTRICTED, CERT_MANAGER):
        objects = render(values=values)
        assert of_kind(objects, "Job") == []
        assert not any("helm.sh/hook" in (o["metadata"].get("annotations") or {}) for o in objects)


def test_cert_manager_mode() -> None:
    objects = render(values=CERT_MANAGER)
    issuers = {o["metadata"]["name"]: o["spec"] for o in of_kind(objects, "Issuer")}
    assert issuers == {
        "dynamo-operator-selfsigned-issuer": {"selfSigned": {}},
        "dynamo-operator-ca-issuer": {"ca": {"secretName": "dynamo-operator-root-ca"}},
    }
    root = one(objects, "Certificate", "dynamo-operator-root-ca")["spec"]
    assert root["isCA"] is True
    assert (root["duration"], root["renewBefore"]) == ("87600h", "720h")
    assert root["issuerRef"]["name"] == "dynamo-operator-selfsigned-issuer"
    serving = one(objects, "Certificate", "dynamo-operator-serving-cert")["spec"]
    assert serving["secretName"] == "webhook-server-cert"
    assert (serving["duration"], serving["renewBefore"]) == ("8760h", "360h")
    service = "dynamo-operator-webhook-service"
    assert serving["dnsNames"] == [
        service,
        f"{service}.{NAMESPACE}",
        f"{service}.{NAMESPACE}.svc",
        f"{service}.{NAMESPACE}.svc.cluster.local",
    ]
    assert serving["issuerRef"] == {
        "name": "dynamo-operator-ca-issuer",
        "kind": "Issuer",
        "group": "cert-manager.io",
    }
    configuration = one(objects, "ValidatingWebhookConfiguration")
    assert configuration["metadata"]["annotations"] == {
        "cert-manager.io/inject-ca-from": f"{NAMESPACE}/dynamo-operator-serving-cert"
    }
    assert all("caBundle" not in w["clientConfig"] for w in configuration["webhooks"])
    assert_serves_the_mounted_secret(objects, "webhook-server-cert")
    # Your issuer instead of the chart's CA.
    mine = {"name": "corp-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"}
    objects = render(values={"webhook": {"certManager": {"enabled": True, "issuerRef": mine}}})
    assert of_kind(objects, "Issuer") == []
    assert [c["metadata"]["name"] for c in of_kind(objects, "Certificate")] == [
        "dynamo-operator-serving-cert"
    ]
    assert one(objects, "Certificate")["spec"]["issuerRef"] == mine


def test_an_external_certificate() -> None:
    ca = base64.b64encode(b"-----BEGIN CERTIFICATE-----\n...").decode()
    values = {
        "webhook": {"certificateSecret": {"external": True, "name": "my-cert"}, "caBundle": ca}
    }
    objects = render(values=values)
    configuration = one(objects, "ValidatingWebhookConfiguration")
    assert {w["clientConfig"]["caBundle"] for w in configuration["webhooks"]} == {ca}
    assert "annotations" not in configuration["metadata"]
    assert of_kind(objects, "Certificate", "Issuer") == []
    assert_serves_the_mounted_secret(objects, "my-cert")
    with pytest.raises(ChartError, match=r"needs webhook\.caBundle"):
        render(values={"webhook": {"certificateSecret": {"external": True}}})


def assert_serves_the_mounted_secret(objects: list[dict[str, Any]], secret: str) -> None:
    container = manager_container(objects)
    path = "/tmp/k8s-webhook-server/serving-certs"
    assert operator_options(objects).webhook_cert_dir == Path(path)
    [mount] = [m for m in container["volumeMounts"] if m["mountPath"] == path]
    assert mount["readOnly"] is True
    [volume] = [v for v in pod_spec(objects)["volumes"] if v["name"] == mount["name"]]
    assert volume["secret"]["secretName"] == secret
    # No Secret write, no CA injection: neither permission is granted.
    names = [o["metadata"]["name"] for o in of_kind(objects, "Role", "ClusterRole")]
    assert not any("webhook" in name for name in names), names
