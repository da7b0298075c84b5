from typing import Any

import pytest

from dynamo_operator.image_build import BuilderConfig, BuilderConfigError, parse_builder_config


def test_no_config_map_adds_nothing() -> None:
    assert parse_builder_config({}) == BuilderConfig()


def test_every_upstream_key_is_read() -> None:
    config = parse_builder_config(
        {
            "build_args": ["PIP_INDEX_URL=http://pypi.local"],
            "builder_args": ["--progress=plain"],
            "extra_pod_metadata": {"labels": {"team": "ml"}, "annotations": {"a": "b"}},
            "extra_pod_spec": {"nodeSelector": {"pool": "build"}, "priorityClassName": "low"},
            "extra_container_env": [{"name": "HTTP_PROXY", "value": "http://proxy:3128"}],
            "default_image_builder_container_resources": {"limits": {"memory": "8Gi"}},
        }
    )

    assert config == BuilderConfig(
        build_args=("PIP_INDEX_URL=http://pypi.local",),
        builder_args=("--progress=plain",),
        extra_pod_labels={"team": "ml"},
        extra_pod_annotations={"a": "b"},
        extra_pod_spec={"nodeSelector": {"pool": "build"}, "priorityClassName": "low"},
        extra_container_env=({"name": "HTTP_PROXY", "value": "http://proxy:3128"},),
        default_container_resources={"limits": {"memory": "8Gi"}},
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"build_arg": ["A=1"]}, "key build_arg: unknown key; known: build_args, builder_args"),
        ({"build_args": "A=1"}, "key build_args: must be a list of strings"),
        ({"builder_args": [1]}, "key builder_args: must be a list of strings"),
        ({"extra_pod_metadata": ["x"]}, "key extra_pod_metadata: must be an object"),
        ({"extra_pod_metadata": {"label": {}}}, "unknown field label (labels, annotations)"),
        ({"extra_pod_metadata": {"labels": {"a": 1}}}, "labels: must map strings to strings"),
        ({"extra_pod_spec": {"containers": []}}, "containers is set by the operator"),
        ({"extra_container_env": [{"value": "x"}]}, "extra_container_env[0]: must be an env var"),
        ({"default_image_builder_container_resources": "4Gi"}, "must be an object"),
    ],
)
def test_a_bad_value_names_the_key_and_why(data: dict[str, Any], message: str) -> None:
    with pytest.raises(BuilderConfigError) as raised:
        parse_builder_config(data)

    assert str(raised.value).startswith("ConfigMap dynamo-image-builder-config key ")
    assert message in str(raised.value)
