"""REST client metrics with client-go's names and labels, on the default Prometheus registry.

`rest_client_requests_total{method!="GET"}` is the write counter that proves zero writes at steady
state; `code` is `<error>` when no HTTP answer arrived, as in client-go.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from prometheus_client import Counter, Histogram

__all__ = ["REQUESTS", "REQUEST_DURATION", "host_label", "record_request"]

REQUESTS = Counter(
    "rest_client_requests_total",
    "Number of HTTP requests, partitioned by status code, method, and host.",
    ["code", "method", "host"],
)

REQUEST_DURATION = Histogram(
    "rest_client_request_duration_seconds",
    "Request latency in seconds. Broken down by verb, and host.",
    ["verb", "host"],
    buckets=(0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0),
)

NO_RESPONSE_CODE = "<error>"


def host_label(server_url: str) -> str:
    """`host:port` of the API server, the value client-go puts in the `host` label."""
    return urlsplit(server_url).netloc or server_url


def record_request(method: str, host: str, code: int | None, seconds: float) -> None:
    REQUESTS.labels(str(code) if code is not None else NO_RESPONSE_CODE, method, host).inc()
    REQUEST_DURATION.labels(method, host).observe(seconds)
