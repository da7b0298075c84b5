"""The secure metrics flags of `run`: controller-runtime's and kubebuilder's names."""

from __future__ import annotations

from pathlib import Path

import pytest

from manager.app.cli import build_parser
from manager.app.commands.go_flags import normalize_go_arguments
from manager.app.commands.run import RunOptions, options_from_arguments
from manager.runtime.metrics import CertificateFiles


def _options(*arguments: str) -> RunOptions:
    parser, go_style = build_parser()
    normalized = normalize_go_arguments(arguments, go_style["run"])
    return options_from_arguments(parser.parse_args(["run", *normalized]), {})


def test_metrics_are_plain_http_on_8080_unless_secured() -> None:
    options = _options()
    assert options.metrics_address == ("0.0.0.0", 8080)
    assert options.metrics_secure is False
    assert options.metrics_certificate is None


def test_the_charts_secure_flags() -> None:
    options = _options("--metrics-bind-address=:8443", "--metrics-secure=true")
    assert options.metrics_address == ("0.0.0.0", 8443)
    assert options.metrics_secure is True
    assert options.metrics_certificate is None  # self-signed, made at start


def test_a_mounted_certificate_with_its_file_names() -> None:
    options = _options(
        "--metrics-secure",
        "--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs",
        "--metrics-cert-name=cert.pem",
        "--metrics-cert-key=key.pem",
    )
    assert options.metrics_certificate == CertificateFiles(
        Path("/tmp/k8s-metrics-server/metrics-certs"), "cert.pem", "key.pem"
    )
    assert _options("--metrics-secure", "--metrics-cert-path=/certs").metrics_certificate == (
        CertificateFiles(Path("/certs"), "tls.crt", "tls.key")
    )


def test_a_certificate_without_secure_serving_is_refused() -> None:
    with pytest.raises(ValueError, match="--metrics-cert-path needs --metrics-secure"):
        _options("--metrics-cert-path=/certs")
