"""Generated certificates: names, chain of trust, validity and key matching."""

from __future__ import annotations

import ssl
from datetime import UTC, datetime, timedelta

import pytest
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from manager.runtime.tls.errors import CertificateError
from manager.runtime.tls.key_pair import (
    LOCAL_DNS_NAMES,
    LOCAL_IP_ADDRESSES,
    KeyPair,
    generate_ca,
    generate_client_pair,
    generate_serving_pair,
    serving_dns_names,
    subject_alternative_names,
)

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def test_serving_names_cover_every_service_dns_form() -> None:
    assert serving_dns_names("dynamo-webhook", "dynamo") == (
        "dynamo-webhook",
        "dynamo-webhook.dynamo",
        "dynamo-webhook.dynamo.svc",
        "dynamo-webhook.dynamo.svc.cluster.local",
    )


def test_serving_certificate_carries_sans_and_is_signed_by_the_ca() -> None:
    ca = generate_ca(NOW, timedelta(days=3650))
    names = (*serving_dns_names("svc", "ns"), *LOCAL_DNS_NAMES)
    serving = generate_serving_pair(
        ca, NOW, timedelta(days=365), dns_names=names, ip_addresses=LOCAL_IP_ADDRESSES
    )
    assert subject_alternative_names(serving.certificate) == {*names, "127.0.0.1"}
    serving.certificate.verify_directly_issued_by(ca.certificate)
    constraints = ca.certificate.extensions.get_extension_for_class(x509.BasicConstraints)
    assert constraints.value.ca is True
    assert serving.not_after == NOW + timedelta(days=365)


def test_serving_certificate_never_outlives_its_ca() -> None:
    ca = generate_ca(NOW, timedelta(days=10))
    serving = generate_serving_pair(ca, NOW, timedelta(days=365), dns_names=["svc"])
    assert serving.not_after == ca.not_after


def test_a_serving_certificate_may_name_its_subject() -> None:
    ca = generate_ca(NOW, timedelta(days=30))
    serving = generate_serving_pair(
        ca, NOW, timedelta(days=30), dns_names=["localhost"], common_name="kube-apiserver"
    )
    assert serving.certificate.subject.rfc4514_string() == "CN=kube-apiserver"


def test_a_client_certificate_names_a_user_and_group_and_is_signed_by_the_ca() -> None:
    ca = generate_ca(NOW, timedelta(days=10))
    client = generate_client_pair(
        ca, NOW, timedelta(days=365), common_name="system:node:n1", organization="system:nodes"
    )

    # What an API server trusting the CA authenticates: CN the user, O a group.
    assert client.certificate.subject.rfc4514_string() == "CN=system:node:n1,O=system:nodes"
    client.certificate.verify_directly_issued_by(ca.certificate)
    usage = client.certificate.extensions.get_extension_for_class(x509.ExtendedKeyUsage)
    assert list(usage.value) == [ExtendedKeyUsageOID.CLIENT_AUTH]
    assert subject_alternative_names(client.certificate) == frozenset()
    assert client.not_after == ca.not_after  # never outlives its CA
    client.check(NOW)


def test_generated_pair_loads_into_an_ssl_context(tmp_path: object) -> None:
    ca = generate_ca(NOW, timedelta(days=30))
    serving = generate_serving_pair(ca, NOW, timedelta(days=30), dns_names=["localhost"])
    context = ssl.create_default_context(cadata=ca.cert_pem.decode())
    assert context.cert_store_stats()["x509_ca"] == 1
    serving.check(NOW)


def test_check_rejects_mismatched_key_expired_and_not_yet_valid() -> None:
    ca = generate_ca(NOW, timedelta(days=30))
    first = generate_serving_pair(ca, NOW, timedelta(days=30), dns_names=["a"])
    second = generate_serving_pair(ca, NOW, timedelta(days=30), dns_names=["b"])
    with pytest.raises(CertificateError, match="does not match"):
        KeyPair(first.cert_pem, second.key_pem).check(NOW)
    with pytest.raises(CertificateError, match="expired"):
        first.check(NOW + timedelta(days=31))
    with pytest.raises(CertificateError, match="not valid before"):
        first.check(NOW - timedelta(days=1))


def test_garbage_is_a_certificate_error() -> None:
    with pytest.raises(CertificateError):
        KeyPair(b"not a certificate", b"nor a key").check(NOW)


def test_a_name_is_required() -> None:
    ca = generate_ca(NOW, timedelta(days=30))
    with pytest.raises(CertificateError, match="at least one"):
        generate_serving_pair(ca, NOW, timedelta(days=30), dns_names=[])
