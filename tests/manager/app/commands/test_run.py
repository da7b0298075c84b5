"""`dynamo-operator run` flags and environment: upstream names, Go spellings, clear refusals."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from manager.app.cli import build_parser, main
from manager.app.commands.go_flags import normalize_go_arguments
from manager.app.commands.run import RunOptions, options_from_arguments


def _options(*arguments: str, env: dict[str, str] | None = None) -> RunOptions:
    parser, go_style = build_parser()
    normalized = normalize_go_arguments(arguments, go_style["run"])
    return options_from_arguments(parser.parse_args(["run", *normalized]), env or {})


def test_defaults_are_upstream_defaults() -> None:
    options = _options()
    assert options.metrics_address == ("0.0.0.0", 8080)
    assert options.health_address == ("0.0.0.0", 8081)
    assert options.leader_elect is False
    assert options.enable_webhooks is False  # as upstream's binary; the Helm chart turns it on
    assert options.leader_election_id == "dynamo.nvidia.com"
    assert options.restricted_namespace is None
    assert options.namespace_scope_lease_duration == 30
    assert options.namespace_scope_lease_renew_interval == 10
    assert options.log_level == "info"
    assert options.operator_version == "unknown"


def test_upstream_values_files_carry_over() -> None:
    options = _options(
        "--leader-elect",
        "--enable-webhooks=true",
        "--restrictedNamespace=team-a",
        "--natsAddr=nats://nats:4222",
        "--etcdAddr",
        "etcd:2379",
        "--ingress-controller-class-name=nginx",
        "--ingress-controller-tls-secret-name=tls",
        "--ingress-host-suffix=example.com",
        "--istio-virtual-service-gateway=istio-system/gw",
        "--planner-cluster-role-name=planner",
        "--operator-version=1.2.3",
        "--namespace-scope-lease-duration=1m",
        "--namespace-scope-lease-renew-interval=15s",
        "--metrics-bind-address=0",
        "-health-probe-bind-address=127.0.0.1:9000",
    )
    assert options.leader_elect is True
    assert options.enable_webhooks is True
    assert options.restricted_namespace == "team-a"
    assert options.settings.nats_addr == "nats://nats:4222"
    assert options.settings.etcd_addr == "etcd:2379"
    assert options.settings.ingress_controller_class_name == "nginx"
    assert options.settings.ingress_controller_tls_secret_name == "tls"
    assert options.settings.ingress_host_suffix == "example.com"
    assert options.settings.istio_virtual_service_gateway == "istio-system/gw"
    assert options.planner_cluster_role_name == "planner"
    assert options.operator_version == "1.2.3"
    assert options.namespace_scope_lease_duration == 60
    assert options.namespace_scope_lease_renew_interval == 15
    assert options.metrics_address is None
    assert options.health_address == ("127.0.0.1", 9000)


def test_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    namespace_file = tmp_path / "namespace"
    monkeypatch.setattr("manager.app.commands.run.SERVICE_ACCOUNT_NAMESPACE_FILE", namespace_file)
    options = _options(env={"LOG_LEVEL": "DEBUG", "DYNAMO_SYSTEM_NAMESPACE": "ops"})
    assert options.log_level == "debug"
    assert options.operator_namespace == "ops"
    assert options.leader_election_namespace == "ops"
    assert _options().operator_namespace == "dynamo"
    assert _options(env={"POD_NAMESPACE": "mine"}).operator_namespace == "mine"
    namespace_file.write_text("in-cluster\n")
    assert _options(env={"POD_NAMESPACE": "mine"}).operator_namespace == "in-cluster"
    assert _options("--leader-election-namespace=kube-system").leader_election_namespace == (
        "kube-system"
    )


@pytest.mark.parametrize(
    ("arguments", "env", "message"),
    [
        ((), {"LOG_LEVEL": "loud"}, "LOG_LEVEL"),
        (("--namespace-scope-lease-renew-interval=30s",), {}, "renew-interval"),
        (("--max-concurrent-reconciles=0",), {}, "max-concurrent-reconciles"),
        (
            ("--max-concurrent-low-priority-reconciles=-1",),
            {},
            "max-concurrent-low-priority-reconciles",
        ),
    ],
)
def test_bad_settings_are_refused_naming_the_setting(
    arguments: tuple[str, ...], env: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        _options(*arguments, env=env)


def test_the_command_line_refuses_bad_flags_with_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", "--namespace-scope-lease-duration=soon"])
    assert exited.value.code == 2
    assert "invalid duration 'soon'" in capsys.readouterr().err


def test_a_boolean_given_a_separate_value_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--leader-elect", "false"])
    assert "--leader-elect=false" in capsys.readouterr().err


def test_help_lists_every_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = capsys.readouterr().out
    for flag in (
        "--metrics-bind-address",
        "--health-probe-bind-address",
        "--leader-elect",
        "--leader-election-id",
        "--leader-election-namespace",
        "--enable-webhooks",
        "--restrictedNamespace",
        "--natsAddr",
        "--etcdAddr",
        "--istio-virtual-service-gateway",
        "--ingress-controller-class-name",
        "--ingress-controller-tls-secret-name",
        "--ingress-host-suffix",
        "--planner-cluster-role-name",
        "--operator-version",
        "--namespace-scope-lease-duration",
        "--namespace-scope-lease-renew-interval",
    ):
        assert flag in text
    assert isinstance(build_parser()[0], argparse.ArgumentParser)
