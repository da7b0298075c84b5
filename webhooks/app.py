"""The aiohttp application: one POST route per endpoint, answering AdmissionReviews.

Every route answers within the request, whatever the body: HTTP 400 with a plain-text reason when
the body cannot be answered as a review, otherwise HTTP 200 with a review whose ``response.uid``
echoes the request. A bug in a validator becomes a well-formed denial with ``status.code`` 500,
never an HTTP 500 (the upstream handler chain recovers panics the same way).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import orjson
import structlog
from aiohttp import web

from webhooks.admission import MAX_BODY_BYTES, parse_review
from webhooks.endpoints import ENDPOINTS, WebhookEndpoint
from webhooks.errors import MalformedReviewError, UnanswerableReviewError
from webhooks.handlers import Decision, ResourceValidator, decide
from webhooks.metrics import (
    DURATION_SECONDS,
    IN_FLIGHT,
    LATENCY_SECONDS,
    REQUESTS_TOTAL,
    RequestProblem,
    operation_label,
    record_decision,
)

_log = structlog.get_logger("webhooks")


class AdmissionRoute:
    """The request handler of one endpoint, with its metrics."""

    def __init__(self, endpoint: WebhookEndpoint, validator: ResourceValidator) -> None:
        self._endpoint = endpoint
        self._validator = validator
        self._in_flight = IN_FLIGHT.labels(endpoint.path)
        self._latency = LATENCY_SECONDS.labels(endpoint.path)

    async def handle(self, http_request: web.Request) -> web.Response:
        started = time.perf_counter()
        self._in_flight.inc()
        try:
            response = await self._respond(http_request)
        finally:
            self._in_flight.dec()
        REQUESTS_TOTAL.labels(self._endpoint.path, str(response.status)).inc()
        self._latency.observe(time.perf_counter() - started)
        return response

    async def _respond(self, http_request: web.Request) -> web.Response:
        try:
            body = await _read_body(http_request)
            request = parse_review(body)
        except UnanswerableReviewError as error:
            return self._bad_request(str(error))
        except MalformedReviewError as error:
            record_decision(self._endpoint.kind, None, denial=RequestProblem.MALFORMED_REQUEST)
            denial = Decision(allowed=False, message=str(error), code=400)
            return _review_response(denial.to_review(error.uid))
        started = time.perf_counter()
        decision = self._decide(request)
        operation = operation_label(request.operation)
        DURATION_SECONDS.labels(self._endpoint.kind, operation).observe(
            time.perf_counter() - started
        )
        record_decision(self._endpoint.kind, operation, denial=decision.denial)
        return _review_response(decision.to_review(request.uid))

    def _decide(self, request: Any) -> Decision:
        try:
            return decide(self._endpoint, request, self._validator)
        except Exception:
            # The request boundary: a validator bug must deny (failurePolicy Fail would anyway)
            # with a clear message instead of an HTTP 500 the apiserver reports as a call failure.
            _log.exception(
                "validator failed",
                kind=self._endpoint.kind,
                namespace=request.namespace,
                name=request.name,
                op=str(request.operation),
            )
            return Decision(
                allowed=False,
                message=f"internal error while validating {self._endpoint.kind}",
                code=500,
                denial=RequestProblem.INTERNAL_ERROR,
            )

    def _bad_request(self, message: str) -> web.Response:
        record_decision(self._endpoint.kind, None, denial=RequestProblem.MALFORMED_REQUEST)
        _log.warning("unanswerable admission request", webhook=self._endpoint.path, error=message)
        return web.Response(status=400, text=message + "\n")


async def _read_body(http_request: web.Request) -> bytes:
    if http_request.content_type != "application/json":
        raise UnanswerableReviewError(
            f"Content-Type must be application/json, got {http_request.content_type!r}"
        )
    declared = http_request.content_length
    if declared is not None and declared > MAX_BODY_BYTES:
        raise UnanswerableReviewError(
            f"request body of {declared} bytes exceeds the limit of {MAX_BODY_BYTES} bytes"
        )
    try:
        return await http_request.read()
    except web.HTTPRequestEntityTooLarge:
        raise UnanswerableReviewError(
            f"request body exceeds the limit of {MAX_BODY_BYTES} bytes"
        ) from None


def _review_response(review: dict[str, Any]) -> web.Response:
    return web.Response(body=orjson.dumps(review), content_type="application/json")


def build_app(
    validator: ResourceValidator, endpoints: Iterable[WebhookEndpoint] = ENDPOINTS
) -> web.Application:
    app = web.Application(client_max_size=MAX_BODY_BYTES)
    for endpoint in endpoints:
        app.router.add_post(endpoint.path, AdmissionRoute(endpoint, validator).handle)
    return app
