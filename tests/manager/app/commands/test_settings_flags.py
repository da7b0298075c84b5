"""The operator-settings flags: upstream names, one definition shared by render and run."""

from __future__ import annotations

import argparse

import pytest

from dynamo_operator.settings import OperatorSettings
from manager.app.commands.settings_flags import (
    add_operator_settings_arguments,
    operator_settings_from_arguments,
)


def _settings(*argv: str) -> OperatorSettings:
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_operator_settings_arguments(parser)
    return operator_settings_from_arguments(parser.parse_args(argv), frozenset({"lws"}))


def test_every_upstream_flag_reaches_its_setting() -> None:
    settings = _settings(
        "--natsAddr=nats://nats:4222",
        "--etcdAddr=http://etcd:2379",
        "--ingress-controller-class-name=nginx",
        "--ingress-controller-tls-secret-name=wildcard-tls",
        "--ingress-host-suffix=example.com",
        "--istio-virtual-service-gateway=istio-system/gateway",
    )

    assert settings == OperatorSettings(
        nats_addr="nats://nats:4222",
        etcd_addr="http://etcd:2379",
        ingress_controller_class_name="nginx",
        ingress_controller_tls_secret_name="wildcard-tls",
        ingress_host_suffix="example.com",
        istio_virtual_service_gateway="istio-system/gateway",
        available_apis=frozenset({"lws"}),
    )


def test_no_flags_and_empty_values_mean_unset() -> None:
    expected = OperatorSettings(available_apis=frozenset({"lws"}))

    assert _settings() == expected
    assert _settings("--natsAddr=", "--ingress-controller-class-name", "") == expected


@pytest.mark.parametrize("flag", ["--nats-addr", "--ingress-class-name", "--tls-secret-name"])
def test_only_the_upstream_spellings_exist(flag: str) -> None:
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_operator_settings_arguments(parser)

    with pytest.raises((argparse.ArgumentError, SystemExit)):
        parser.parse_args([f"{flag}=x"])
