import base64
import json

import pytest

from dynamo_operator.image_build.registry_access import (
    BasicCredentials,
    ImageName,
    RegistryConfigError,
    credentials_for,
    manifest_url,
    parse_challenge,
    parse_image_name,
    token_request,
)


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        (
            "10.1.2.3:30500/dynamo-components:dynamo.frontend.v1",
            ImageName("10.1.2.3:30500", "dynamo-components", "dynamo.frontend.v1"),
        ),
        ("registry.example.com/team/app", ImageName("registry.example.com", "team/app", "latest")),
        ("localhost/app:1", ImageName("localhost", "app", "1")),
        ("nginx", ImageName("docker.io", "library/nginx", "latest")),
        ("user/app:2", ImageName("docker.io", "user/app", "2")),
        ("host:5000/a/b@sha256:abc", ImageName("host:5000", "a/b", "sha256:abc")),
    ],
)
def test_an_image_name_splits_into_registry_repository_and_reference(
    image: str, expected: ImageName
) -> None:
    assert parse_image_name(image) == expected


def test_docker_hub_names_are_asked_at_its_api_host() -> None:
    url = manifest_url(parse_image_name("nginx:1"), secure=True)
    assert url == "https://registry-1.docker.io/v2/library/nginx/manifests/1"
    assert (
        manifest_url(parse_image_name("h:5000/a:1"), secure=False)
        == "http://h:5000/v2/a/manifests/1"
    )


def test_an_invalid_image_name_is_an_error_naming_it() -> None:
    with pytest.raises(RegistryConfigError, match="'host:5000/UPPER:1' is not a valid image name"):
        parse_image_name("host:5000/UPPER:1")


def _config(auths: dict[str, object]) -> str:
    return json.dumps({"auths": auths})


def test_credentials_are_found_by_host_in_either_form() -> None:
    auth = base64.b64encode(b"robot:s3cret:with-colon").decode()
    config = _config(
        {
            "https://registry.example.com/v1/": {"auth": auth},
            "other:5000": {"username": "u", "password": "p"},
        }
    )
    assert credentials_for(config, "registry.example.com") == BasicCredentials(
        "robot", "s3cret:with-colon"
    )
    assert credentials_for(config, "other:5000") == BasicCredentials("u", "p")
    assert credentials_for(config, "elsewhere") is None


def test_docker_hub_credentials_are_under_index_docker_io() -> None:
    config = _config({"https://index.docker.io/v1/": {"username": "hub", "password": "x"}})
    assert credentials_for(config, "docker.io") == BasicCredentials("hub", "x")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("not json", "not JSON"),
        ("{}", "no 'auths' object"),
        (_config({"r": "text"}), r"auths\['r'\] is not an object"),
        (_config({"r": {"auth": "!!!"}}), r"auths\['r'\].auth is not base64"),
        (
            _config({"r": {"auth": base64.b64encode(b"nocolon").decode()}}),
            "neither username nor auth",
        ),
    ],
)
def test_a_malformed_docker_config_says_what_is_wrong(config: str, message: str) -> None:
    with pytest.raises(RegistryConfigError, match=message):
        credentials_for(config, "r")


def test_a_basic_credential_header_is_base64_of_user_and_password() -> None:
    assert BasicCredentials("a", "b").header() == "Basic YTpi"


def test_a_bearer_challenge_gives_the_token_url_for_pulling() -> None:
    challenge = parse_challenge(
        'Bearer realm="https://auth.example.com/token",service="registry.example.com",'
        'scope="repository:team/app:pull"'
    )
    assert challenge.scheme == "bearer"
    name = parse_image_name("registry.example.com/team/app:1")
    assert token_request(challenge, name) == (
        "https://auth.example.com/token",
        {"scope": "repository:team/app:pull", "service": "registry.example.com"},
    )
    bare = parse_challenge('Bearer realm="https://auth/t"')
    assert token_request(bare, name) == ("https://auth/t", {"scope": "repository:team/app:pull"})
    with pytest.raises(RegistryConfigError, match="names no realm"):
        token_request(parse_challenge("Bearer"), name)
