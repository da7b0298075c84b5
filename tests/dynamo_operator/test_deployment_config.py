from __future__ import annotations

import pytest

from dynamo_operator.deployment_config import (
    DeploymentConfigError,
    ServiceOverrides,
    deployment_config_text,
    parse_deployment_config,
)


def test_service_arguments_are_read_whatever_the_case_of_their_names() -> None:
    config = parse_deployment_config(
        '{"A": {"ServiceArgs": {"Workers": 2, "Resources": {"CPU": "2", "memory": "2Gi",'
        ' "Gpu": "1", "Custom": {"example.com/fpga": "1"}}}}, "B": {"serviceargs": {"workers": 0}},'
        ' "C": null, "D": {"port": 1}}'
    )

    assert config.services == {
        "A": ServiceOverrides(
            workers=2,
            resources={"cpu": "2", "memory": "2Gi", "gpu": "1"},
            custom={"example.com/fpga": "1"},
        ),
        "B": ServiceOverrides(workers=0),
        "D": ServiceOverrides(),
    }


def test_the_frontend_port_is_written_back_as_go_writes_json() -> None:
    config = parse_deployment_config('{"F": {"port": 8080, "b": "<&>"}, "A": {"z": 1.5}}')

    assert config.with_frontend_port("F") == (
        '{"A":{"z":1.5},"F":{"b":"\\u003c\\u0026\\u003e","port":8000}}'
    )
    assert config.with_frontend_port("Other") == (
        '{"A":{"z":1.5},"F":{"b":"\\u003c\\u0026\\u003e","port":8080}}'
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "DYN_DEPLOYMENT_CONFIG is not JSON"),
        ("NaN", "DYN_DEPLOYMENT_CONFIG is not JSON"),
        ("[1]", "DYN_DEPLOYMENT_CONFIG must be a JSON object keyed by service name"),
        ('{"A": 1}', "DYN_DEPLOYMENT_CONFIG A must be a JSON object"),
        ('{"A": {"ServiceArgs": []}}', "DYN_DEPLOYMENT_CONFIG A.ServiceArgs must be a JSON object"),
        ('{"A": {"ServiceArgs": {"Workers": 2.5}}}', "A.ServiceArgs.Workers must be a whole"),
        ('{"A": {"ServiceArgs": {"Workers": true}}}', "A.ServiceArgs.Workers must be a whole"),
        ('{"A": {"ServiceArgs": {"Workers": -1}}}', "A.ServiceArgs.Workers must be a whole"),
        ('{"A": {"ServiceArgs": {"Resources": {"GPU": 1}}}}', "A.ServiceArgs.Resources.GPU must"),
    ],
)
def test_what_the_operator_cannot_read_is_an_error_saying_what(text: str, message: str) -> None:
    with pytest.raises(DeploymentConfigError, match=message):
        parse_deployment_config(text)


def test_null_configures_nothing() -> None:
    assert parse_deployment_config("null").services == {}


def test_the_value_is_read_from_the_variable_unless_it_comes_from_elsewhere() -> None:
    name = "DYN_DEPLOYMENT_CONFIG"
    assert (
        deployment_config_text([{"name": "X", "value": "1"}, {"name": name, "value": "{}"}]) == "{}"
    )
    assert deployment_config_text([{"name": name}]) == ""
    assert deployment_config_text([{"name": name, "valueFrom": {"configMapKeyRef": {}}}]) is None
    assert deployment_config_text(None) is None
