"""``DYN_DEPLOYMENT_CONFIG`` in a graph's envs, checked before its components are generated.

The operator reads it when the graph generates its components
(``dynamo_operator.deployment_config``): a value that is not the JSON it reads, or whose resources
are not quantities, is refused here, naming the variable's ``value``, instead of a graph whose
components cannot be generated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from dynamo_operator.api import DynamoGraphDeployment, EnvVar
from dynamo_operator.constants import Env
from dynamo_operator.deployment_config import DeploymentConfigError, parse_deployment_config
from dynamo_operator.field_paths import join_path
from dynamo_operator.validation.collector import IssueCollector
from dynamo_operator.validation.quantities import parse_quantity

__all__ = ["check_deployment_configs"]


def check_deployment_configs(graph: DynamoGraphDeployment, issues: IssueCollector) -> None:
    _check_envs(graph.spec.envs, "spec.envs", issues)
    for name, service in graph.spec.services.items():
        _check_envs(service.envs, join_path("spec.services", name, "envs"), issues)


def _check_envs(envs: Iterable[EnvVar] | None, path: str, issues: IssueCollector) -> None:
    for index, env in enumerate(envs or ()):
        if env.name != Env.DYN_DEPLOYMENT_CONFIG or env.value_from is not None:
            continue
        where = join_path(path, index, "value")
        try:
            config = parse_deployment_config(env.value or "")
        except DeploymentConfigError as error:
            issues.error(where, str(error))
            continue
        for service, overrides in config.services.items():
            amounts: Mapping[str, str] = {
                **{key.upper(): value for key, value in overrides.resources.items()},
                **{f"Custom.{key}": value for key, value in (overrides.custom or {}).items()},
            }
            for key, amount in amounts.items():
                if parse_quantity(amount) is None:
                    issues.error(
                        where,
                        f"{Env.DYN_DEPLOYMENT_CONFIG} {service}.ServiceArgs.Resources.{key}: "
                        f"'{amount}' is not a quantity such as 2, 500m or 8Gi",
                    )
