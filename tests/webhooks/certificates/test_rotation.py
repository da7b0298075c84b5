"""When operator-managed certificates are kept, renewed or replaced; what the Secret holds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cryptography import x509

from manager.runtime.tls.key_pair import subject_alternative_names
from webhooks.certificates.rotation import (
    CertificatePolicy,
    ManagedCertificates,
    plan_certificates,
)

NOW = datetime(2026, 6, 1, tzinfo=UTC)
POLICY = CertificatePolicy(
    dns_names=("svc", "svc.ns", "svc.ns.svc", "svc.ns.svc.cluster.local"),
    ip_addresses=("127.0.0.1",),
    ca_validity=timedelta(days=3650),
    serving_validity=timedelta(days=365),
    renew_before=timedelta(days=30),
)


def cas_in(bundle: bytes) -> list[x509.Certificate]:
    return x509.load_pem_x509_certificates(bundle)


def test_nothing_yet_generates_ca_and_serving_pair() -> None:
    planned = plan_certificates(None, POLICY, NOW)
    assert subject_alternative_names(planned.serving.certificate) == POLICY.names
    planned.serving.certificate.verify_directly_issued_by(planned.ca.certificate)
    assert [ca.subject for ca in cas_in(planned.ca_bundle_pem)] == [planned.ca.certificate.subject]


def test_good_certificates_are_kept() -> None:
    current = plan_certificates(None, POLICY, NOW)
    assert plan_certificates(current, POLICY, NOW + timedelta(days=300)) is current


def test_serving_pair_is_renewed_within_renew_before_keeping_the_ca() -> None:
    current = plan_certificates(None, POLICY, NOW)
    later = NOW + timedelta(days=336)  # 29 days left on the serving certificate
    renewed = plan_certificates(current, POLICY, later)
    assert renewed is not current
    assert renewed.ca == current.ca
    assert renewed.ca_bundle_pem == current.ca_bundle_pem
    assert renewed.serving.not_after == later + POLICY.serving_validity
    renewed.serving.certificate.verify_directly_issued_by(current.ca.certificate)


def test_renew_before_is_configurable() -> None:
    current = plan_certificates(None, POLICY, NOW)
    eager = CertificatePolicy(
        dns_names=POLICY.dns_names,
        ip_addresses=POLICY.ip_addresses,
        renew_before=timedelta(days=300),
    )
    assert plan_certificates(current, eager, NOW + timedelta(days=100)) is not current
    assert plan_certificates(current, POLICY, NOW + timedelta(days=100)) is current


def test_serving_pair_missing_a_required_name_is_replaced() -> None:
    current = plan_certificates(None, POLICY, NOW)
    moved = CertificatePolicy(dns_names=("other.ns.svc",))
    replaced = plan_certificates(current, moved, NOW)
    assert replaced.ca == current.ca
    assert "other.ns.svc" in subject_alternative_names(replaced.serving.certificate)


def test_expiring_ca_is_replaced_and_the_old_one_stays_trusted() -> None:
    short = CertificatePolicy(dns_names=("svc",), ca_validity=timedelta(days=60))
    current = plan_certificates(None, short, NOW)
    later = NOW + timedelta(days=40)
    replaced = plan_certificates(current, short, later)
    assert replaced.ca.cert_pem != current.ca.cert_pem
    trusted = cas_in(replaced.ca_bundle_pem)
    assert [ca.serial_number for ca in trusted] == [
        replaced.ca.certificate.serial_number,
        current.ca.certificate.serial_number,
    ]
    replaced.serving.certificate.verify_directly_issued_by(replaced.ca.certificate)


def test_expired_old_ca_is_dropped_from_the_bundle() -> None:
    short = CertificatePolicy(dns_names=("svc",), ca_validity=timedelta(days=60))
    current = plan_certificates(None, short, NOW)
    replaced = plan_certificates(current, short, NOW + timedelta(days=61))
    assert len(cas_in(replaced.ca_bundle_pem)) == 1


def test_secret_data_round_trips_with_the_documented_keys() -> None:
    current = plan_certificates(None, POLICY, NOW)
    data = current.to_secret_data()
    assert set(data) == {"tls.crt", "tls.key", "ca.crt", "ca.key"}
    restored = ManagedCertificates.from_secret_data(data)
    assert restored == current
    assert plan_certificates(restored, POLICY, NOW) is restored


def test_unreadable_secret_data_means_regenerate() -> None:
    current = plan_certificates(None, POLICY, NOW)
    data = current.to_secret_data()
    assert ManagedCertificates.from_secret_data(None) is None
    assert ManagedCertificates.from_secret_data({**data, "ca.key": "!!not base64"}) is None
    assert ManagedCertificates.from_secret_data({"tls.crt": data["tls.crt"]}) is None
    other = plan_certificates(None, POLICY, NOW).to_secret_data()
    assert ManagedCertificates.from_secret_data({**data, "ca.key": other["ca.key"]}) is None
    garbled = ManagedCertificates.from_secret_data({**data, "tls.crt": other["ca.crt"]})
    assert garbled is not None
    assert plan_certificates(garbled, POLICY, NOW) is not garbled


def test_renewal_due_is_the_earliest_expiry_minus_renew_before() -> None:
    current = plan_certificates(None, POLICY, NOW)
    assert current.renewal_due(POLICY) == NOW + timedelta(days=365 - 30)
