"""What the operator writes into a CRD's conversion stanza, and when it writes nothing."""

from __future__ import annotations

import base64
import contextlib
import copy
from collections.abc import AsyncIterator
from typing import Any, cast

import anyio
import pytest

from manager.runtime.client import RestClient, TransportError
from webhooks.crd_conversion import (
    CERT_MANAGER_INJECT_CA_FROM,
    ConversionTarget,
    CrdConversionKeeper,
    conversion_patch,
    convertible_crd_names,
)

CA = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def _crd(
    conversion: dict[str, Any] | None = None, annotations: dict[str, str] | None = None
) -> dict[str, Any]:
    crd: dict[str, Any] = {
        "metadata": {"name": "dynamographdeployments.nvidia.com", "annotations": annotations or {}},
        "spec": {},
    }
    if conversion is not None:
        crd["spec"]["conversion"] = conversion
    return crd


def _applied(crd: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """RFC 7386, as the API server applies it."""
    result = dict(crd)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict):
            current = result.get(key)
            result[key] = _applied(current if isinstance(current, dict) else {}, value)
        else:
            result[key] = value
    return result


def test_the_chart_default_is_pointed_at_the_operators_service_with_its_ca() -> None:
    chart_default = _crd(
        {
            "strategy": "Webhook",
            "webhook": {
                "conversionReviewVersions": ["v1"],
                "clientConfig": {
                    "service": {"namespace": "dynamo-system", "name": "x", "path": "/convert"}
                },
            },
        }
    )
    target = ConversionTarget.service(
        "dynamo-operator-webhook-service", "ops", ca_bundle=lambda: CA
    )
    patch = conversion_patch(chart_default, target)
    assert patch is not None
    patched = _applied(chart_default, patch)
    client_config = patched["spec"]["conversion"]["webhook"]["clientConfig"]
    assert client_config == {
        "service": {
            "name": "dynamo-operator-webhook-service",
            "namespace": "ops",
            "path": "/convert",
            "port": 443,
        },
        "caBundle": base64.b64encode(CA).decode(),
    }
    assert conversion_patch(patched, target) is None, "steady state writes nothing"


def test_a_url_target_replaces_a_service_and_back() -> None:
    on_service = _applied(
        _crd(), conversion_patch(_crd(), ConversionTarget.service("s", "n")) or {}
    )
    url_target = ConversionTarget.url("https://127.0.0.1:9443/", CA)
    on_url = _applied(on_service, conversion_patch(on_service, url_target) or {})
    client_config = on_url["spec"]["conversion"]["webhook"]["clientConfig"]
    assert client_config["url"] == "https://127.0.0.1:9443/convert"
    assert "service" not in client_config, "the API server refuses both url and service"
    back = _applied(on_url, conversion_patch(on_url, ConversionTarget.service("s", "n")) or {})
    assert "url" not in back["spec"]["conversion"]["webhook"]["clientConfig"]


def test_a_rotated_ca_is_written_again() -> None:
    ca = [CA]
    target = ConversionTarget.service("s", "n", ca_bundle=lambda: ca[0])
    crd = _applied(_crd(), conversion_patch(_crd(), target) or {})
    ca[0] = CA.replace(b"MIIB", b"MIIC")
    patch = conversion_patch(crd, target)
    assert patch is not None
    assert patch["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"] == (
        base64.b64encode(ca[0]).decode()
    )


def test_cert_manager_mode_leaves_the_ca_to_the_cainjector() -> None:
    target = ConversionTarget.service("s", "ops", cert_manager_certificate="ops/serving-cert")
    injected = _crd(
        {
            "strategy": "Webhook",
            "webhook": {
                "conversionReviewVersions": ["v1"],
                "clientConfig": {
                    "service": {"name": "s", "namespace": "ops", "path": "/convert", "port": 443},
                    "caBundle": "ZnJvbSBjYWluamVjdG9y",
                },
            },
        },
        {CERT_MANAGER_INJECT_CA_FROM: "ops/serving-cert"},
    )
    assert conversion_patch(injected, target) is None, "the cainjector's caBundle is kept"
    patch = conversion_patch(_crd(), target)
    assert patch is not None
    assert patch["metadata"]["annotations"] == {CERT_MANAGER_INJECT_CA_FROM: "ops/serving-cert"}
    assert "caBundle" not in patch["spec"]["conversion"]["webhook"]["clientConfig"]


def test_the_crds_that_need_conversion_are_the_two_version_ones() -> None:
    assert set(convertible_crd_names()) == {
        "dynamographdeployments.nvidia.com",
        "dynamocomponentdeployments.nvidia.com",
        "dynamographdeploymentscalingadapters.nvidia.com",
    }


def test_a_crd_annotated_for_the_cainjector_keeps_its_ca_in_every_mode() -> None:
    annotated = _crd(annotations={CERT_MANAGER_INJECT_CA_FROM: "ops/serving-cert"})
    patch = conversion_patch(annotated, ConversionTarget.service("s", "n", ca_bundle=lambda: CA))
    assert patch is not None
    assert "caBundle" not in patch["spec"]["conversion"]["webhook"]["clientConfig"]


def test_cert_manager_mode_drops_a_ca_bundle_the_operator_wrote_before_and_only_that() -> None:
    ours = {
        "manager": "dynamo-operator-crd-conversion",
        "fieldsV1": {
            "f:spec": {"f:conversion": {"f:webhook": {"f:clientConfig": {"f:caBundle": {}}}}}
        },
    }
    target = ConversionTarget.service("s", "ops", cert_manager_certificate="ops/serving-cert")
    switched = _crd({"webhook": {"clientConfig": {"caBundle": "b3Vycw=="}}})
    switched["metadata"]["managedFields"] = [ours]
    patch = conversion_patch(switched, target)
    assert patch is not None
    assert patch["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"] is None
    injected = _crd({"webhook": {"clientConfig": {"caBundle": "ZnJvbSBjYWluamVjdG9y"}}})
    injected["metadata"]["managedFields"] = [{**ours, "manager": "cert-manager-cainjector"}]
    patch = conversion_patch(injected, target)
    assert patch is None or "caBundle" not in patch["spec"]["conversion"]["webhook"]["clientConfig"]


class _FlakyApiServer:
    """Lists one CRD of ours; its first watch breaks as an API server restart breaks it, the
    next one stays open until cancelled."""

    def __init__(self) -> None:
        self.crd = _crd()
        self.patches: list[dict[str, Any]] = []
        self.watches = 0
        self.watching = anyio.Event()
        self.patched = anyio.Event()

    async def list_all(self, kind: Any, namespace: Any) -> tuple[list[dict[str, Any]], str]:
        return [copy.deepcopy(self.crd)], "1"

    @contextlib.asynccontextmanager
    async def watch(self, kind: Any, namespace: Any, **_: Any) -> AsyncIterator[Any]:
        self.watches += 1
        if self.watches == 1:
            raise TransportError("stream broken: the API server restarted")
        self.watching.set()
        yield _forever()

    async def merge_patch(self, kind: Any, namespace: Any, name: str, patch: Any, **_: Any) -> Any:
        self.patches.append(patch)
        self.crd = _applied(self.crd, patch)
        self.patched.set()
        return self.crd


async def _forever() -> AsyncIterator[Any]:
    await anyio.sleep_forever()
    yield  # pragma: no cover


@pytest.mark.anyio
async def test_a_broken_watch_is_retried_and_a_new_ca_written_at_once() -> None:
    server = _FlakyApiServer()
    ca = [CA]
    target = ConversionTarget.service("s", "n", ca_bundle=lambda: ca[0])
    keeper = CrdConversionKeeper(
        cast(RestClient, server), target, ["dynamographdeployments.nvidia.com"]
    )
    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            await group.start(keeper.run)
            await server.watching.wait()  # after the broken watch: listed again, watching
            assert server.watches == 2
            assert len(server.patches) == 1, "the second list found nothing to write"
            ca[0] = CA.replace(b"MIIB", b"MIIC")
            server.patched = anyio.Event()
            keeper.ca_changed()
            await server.patched.wait()
            group.cancel_scope.cancel()
    written = server.crd["spec"]["conversion"]["webhook"]["clientConfig"]["caBundle"]
    assert written == base64.b64encode(ca[0]).decode()
