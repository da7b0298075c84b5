"""Golden builder Jobs: ``golden/job/<case>/input.yaml`` holds the operator's settings
(``ImageBuildSettings`` keyword arguments), the ConfigMap's decoded ``builderConfig`` and the
component; ``expected.yaml`` the Job. Regenerate after an intended change with
``DYNAMO_UPDATE_GOLDENS=1 pytest tests/dynamo_operator/image_build`` and review the diff.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_operator.api import DynamoComponent
from dynamo_operator.image_build import (
    SPEC_HASH_ANNOTATION,
    BuildEngine,
    BuilderConfig,
    ImageBuildError,
    ImageBuildSettings,
    build_image_builder_job,
    component_image,
    parse_builder_config,
)
from dynamo_operator.image_build.job import image_builder_job_name, spec_hash

GOLDEN = Path(__file__).parent / "golden" / "job"
CASES = sorted(path.name for path in GOLDEN.iterdir() if (path / "input.yaml").exists())
UPDATE = os.environ.get("DYNAMO_UPDATE_GOLDENS") == "1"


class _NoAliasDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def _string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # The downloader's script reads as a script, not one escaped line.
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_NoAliasDumper.add_representer(str, _string)


def load_case(case: str) -> tuple[DynamoComponent, ImageBuildSettings, BuilderConfig]:
    loaded = yaml.safe_load((GOLDEN / case / "input.yaml").read_text())
    values = dict(loaded["settings"])
    if "build_engine" in values:
        values["build_engine"] = BuildEngine(values["build_engine"])
    return (
        DynamoComponent.model_validate(loaded["component"]),
        ImageBuildSettings(**values),
        parse_builder_config(loaded.get("builderConfig") or {}),
    )


def build_case(case: str) -> dict[str, Any]:
    component, settings, config = load_case(case)
    return build_image_builder_job(
        component, settings, component_image(component, settings), config
    )


@pytest.mark.parametrize("case", CASES)
def test_job_matches_golden(case: str) -> None:
    job = build_case(case)
    path = GOLDEN / case / "expected.yaml"
    if UPDATE:
        path.write_text(yaml.dump(job, Dumper=_NoAliasDumper, sort_keys=False, width=100))
    assert path.exists(), f"no golden for {case}; run with DYNAMO_UPDATE_GOLDENS=1"
    assert job == yaml.safe_load(path.read_text())


@pytest.mark.parametrize("case", CASES)
def test_the_job_is_deterministic_and_never_mutates_the_component(case: str) -> None:
    component, settings, config = load_case(case)
    pristine = copy.deepcopy(component.to_wire())
    image = component_image(component, settings)

    first = build_image_builder_job(component, settings, image, config)

    assert first == build_image_builder_job(component, settings, image, config)
    assert component.to_wire() == pristine
    assert "&id" not in yaml.dump(first, Dumper=yaml.SafeDumper)


def test_the_name_and_hash_change_exactly_when_the_build_would() -> None:
    component, settings, config = load_case("buildkit")
    image = component_image(component, settings)
    job = build_image_builder_job(component, settings, image, config)
    hash_value = job["metadata"]["annotations"][SPEC_HASH_ANNOTATION]

    assert hash_value == spec_hash(job)
    assert (
        job["metadata"]["name"]
        == f"dynamo-image-builder-frontend--jh2o6dqzpsgfued4-{hash_value[:10]}"
    )

    relabelled = component.model_copy(deep=True)
    relabelled.metadata.uid = "another-uid"
    same = build_image_builder_job(relabelled, settings, image, config)
    assert same["metadata"]["annotations"] == job["metadata"]["annotations"]

    changed = component.model_copy(deep=True)
    changed.spec.build_args = ["A=1"]
    other = build_image_builder_job(changed, settings, image, config)
    assert other["metadata"]["annotations"][SPEC_HASH_ANNOTATION] != hash_value
    assert other["metadata"]["name"] != job["metadata"]["name"]


def test_a_long_component_name_still_gives_a_label_sized_job_name() -> None:
    name = image_builder_job_name("a" * 40 + "-" + "b" * 40, "0123456789abcdef")

    assert len(name) <= 63
    assert name == "dynamo-image-builder-" + "a" * 31 + "-0123456789"


def test_the_timeout_is_the_deadline_and_defaults_to_the_operator_s() -> None:
    component, settings, config = load_case("buildkit")
    image = component_image(component, settings)

    assert (
        build_image_builder_job(component, settings, image, config)["spec"]["activeDeadlineSeconds"]
        == 3600
    )

    bad = component.model_copy(deep=True)
    bad.spec.image_build_timeout = "0s"
    with pytest.raises(ImageBuildError, match=r"spec\.imageBuildTimeout"):
        build_image_builder_job(bad, settings, image, config)


def test_an_extra_pod_spec_cannot_take_the_builder_s_containers() -> None:
    component, settings, config = load_case("buildkit")
    component.spec.image_builder_extra_pod_spec = {"volumes": []}

    with pytest.raises(ImageBuildError, match="volumes is set by the operator"):
        build_image_builder_job(component, settings, "r/x:1", config)
