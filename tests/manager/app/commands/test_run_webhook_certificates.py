"""The webhook certificate flags of `run`: operator-managed by default, cert-manager's mounted
files with --webhook-cert-path (kubebuilder's name; --webhook-cert-dir is the same flag)."""

from __future__ import annotations

from pathlib import Path

import pytest

from manager.app.cli import build_parser, main
from manager.app.commands.go_flags import normalize_go_arguments
from manager.app.commands.run import RunOptions, options_from_arguments

MOUNT = "/tmp/k8s-webhook-server/serving-certs"  # controller-runtime's default cert dir


def _options(*arguments: str) -> RunOptions:
    parser, go_style = build_parser()
    normalized = normalize_go_arguments(arguments, go_style["run"])
    return options_from_arguments(parser.parse_args(["run", *normalized]), {})


def test_without_a_directory_the_operator_manages_its_certificates() -> None:
    options = _options("--enable-webhooks")
    assert options.webhook_cert_dir is None
    assert (options.webhook_cert_name, options.webhook_cert_key) == ("tls.crt", "tls.key")


@pytest.mark.parametrize("flag", ["--webhook-cert-path", "--webhook-cert-dir"])
@pytest.mark.parametrize("spelling", ["=", " "])
def test_cert_manager_mode_serves_the_mounted_secret(flag: str, spelling: str) -> None:
    options = _options("--enable-webhooks", *f"{flag}{spelling}{MOUNT}".split(" "))
    assert options.webhook_cert_dir == Path(MOUNT)
    assert (options.webhook_cert_name, options.webhook_cert_key) == ("tls.crt", "tls.key")


def test_file_names_in_the_directory() -> None:
    options = _options(
        "--enable-webhooks",
        f"--webhook-cert-path={MOUNT}",
        "--webhook-cert-name=cert.pem",
        "--webhook-cert-key=key.pem",
    )
    assert (options.webhook_cert_name, options.webhook_cert_key) == ("cert.pem", "key.pem")


def test_a_directory_without_webhooks_is_refused() -> None:
    with pytest.raises(ValueError, match="--webhook-cert-path needs --enable-webhooks"):
        _options(f"--webhook-cert-path={MOUNT}")


def test_help_documents_the_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag in ("--webhook-cert-path", "--webhook-cert-dir", "--webhook-cert-name"):
        assert flag in text
    assert "--webhook-cert-key" in text
    assert "cert-manager mode" in text
