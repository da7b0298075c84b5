"""Reading a Prometheus ``/metrics`` page, once for every test and benchmark: fetch it over HTTP or
HTTPS (with a bearer token, verified or not), parse it into samples, and sum the samples of one
series whose labels include some.

``Samples`` keys each sample by its name and its sorted labels, so two scrapes subtract."""

from __future__ import annotations

import ssl
import urllib.error
import urllib.request
from collections.abc import Iterable
from pathlib import Path

from prometheus_client import Metric
from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def fetch(
    url: str, *, token: str | None = None, ca_file: Path | None = None, timeout: float = 10.0
) -> tuple[int, str]:
    """GET ``url``: (status, body), status 0 (and the error as body) when nothing answered.

    Over HTTPS without ``ca_file`` the certificate is not verified, as a ServiceMonitor with
    ``insecureSkipVerify`` scrapes a self-signed endpoint."""
    context = None
    if url.startswith("https:"):
        context = ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
        if ca_file is None:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(url)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except (urllib.error.URLError, OSError) as error:
        return 0, str(error)


def parse(text: str) -> Samples:
    """Every sample of a text exposition."""
    return of_families(text_string_to_metric_families(text))


def of_families(families: Iterable[Metric]) -> Samples:
    """Every sample of collected metric families (a registry's ``collect()``, or a parse)."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in families
        for sample in family.samples
    }


def total(samples: Samples, name: str, /, **labels: str) -> float:
    """The sum of the samples of ``name`` whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(
        value
        for (sample, sample_labels), value in samples.items()
        if sample == name and wanted <= set(sample_labels)
    )


def requests_by_method(samples: Samples) -> dict[str, float]:
    """API requests a client made, by HTTP method (``rest_client_requests_total``)."""
    methods: dict[str, float] = {}
    for (name, labels), value in samples.items():
        if name == "rest_client_requests_total":
            method = dict(labels).get("method", "")
            methods[method] = methods.get(method, 0.0) + value
    return methods


def writes(samples: Samples) -> float:
    """Mutating API requests (every method but GET)."""
    return sum(value for method, value in requests_by_method(samples).items() if method != "GET")
