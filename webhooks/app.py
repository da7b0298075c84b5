"""The aiohttp application: one POST route per endpoint, answering AdmissionReviews, and
``/convert``, answering the API server's ConversionReviews (``webhooks/conversion.py``).

Every route answers within the request, whatever the body: HTTP 400 with a plain-text reason when
the body cannot be answered as a review (not JSON, too large, a compressed body that does not
decompress), HTTP 408 when the body does not arrive within ``BODY_TIMEOUT_SECONDS`` (a
Content-Length larger than what is sent would otherwise hold the connection forever), otherwise
HTTP 200 with a review whose ``response.uid`` echoes the request. A bug in a validator becomes a
well-formed denial with ``status.code`` 500, never an HTTP 500 (the upstream handler chain recovers
panics the same way); it is logged as a bounded plain-text traceback, never with the request's
content, so no log renderer can spend the event loop pretty-printing user data.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Iterable
from typing import Any

import anyio
import orjson
from aiohttp import web

from manager.runtime.logging import get_logger
from webhooks.admission import MAX_BODY_BYTES, parse_review
from webhooks.conversion import (
    CONVERT_PATH,
    ConversionRequest,
    answer_conversion,
    failed_conversion,
    parse_conversion_review,
)
from webhooks.conversion_memo import ConversionMemo
from webhooks.endpoints import ENDPOINTS, WebhookEndpoint
from webhooks.errors import (
    BodyTimeoutError,
    ClientGoneError,
    MalformedReviewError,
    UnanswerableReviewError,
    UnreadableBodyError,
)
from webhooks.handlers import Decision, ResourceValidator, decide, decide_malformed
from webhooks.metrics import (
    DURATION_SECONDS,
    IN_FLIGHT,
    LATENCY_SECONDS,
    REQUESTS_TOTAL,
    RequestProblem,
    operation_label,
    record_decision,
)
from webhooks.replica_writers import PLANNERS_ONLY, ReplicaWriters

_log = get_logger(__name__)

# The API server gives a webhook 10 s (timeoutSeconds) for the whole call; a body still missing
# after that will never be waited for by anyone.
BODY_TIMEOUT_SECONDS = 10.0
_MAX_LOGGED_TRACEBACK = 4000  # characters: the last frames and the error, never a novel


class _MeasuredRoute:
    """A route's request handler with controller-runtime's webhook metrics (in flight, latency,
    requests by HTTP code), labelled by its path; subclasses answer in ``_respond``."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._in_flight = IN_FLIGHT.labels(path)
        self._latency = LATENCY_SECONDS.labels(path)

    async def handle(self, http_request: web.Request) -> web.Response:
        started = time.perf_counter()
        self._in_flight.inc()
        try:
            response = await self._respond(http_request)
        finally:
            self._in_flight.dec()
        REQUESTS_TOTAL.labels(self._path, str(response.status)).inc()
        self._latency.observe(time.perf_counter() - started)
        return response

    async def _respond(self, http_request: web.Request) -> web.Response:
        raise NotImplementedError


class AdmissionRoute(_MeasuredRoute):
    """The request handler of one endpoint, with its metrics."""

    def __init__(
        self,
        endpoint: WebhookEndpoint,
        validator: ResourceValidator,
        replica_writers: ReplicaWriters = PLANNERS_ONLY,
    ) -> None:
        super().__init__(endpoint.path)
        self._endpoint = endpoint
        self._validator = validator
        self._replica_writers = replica_writers

    async def _respond(self, http_request: web.Request) -> web.Response:
        try:
            body = await _read_body(http_request)
            request = parse_review(body)
        except UnreadableBodyError as error:
            return self._bad_request(str(error), status=error.status, close=True)
        except UnanswerableReviewError as error:
            return self._bad_request(str(error))
        except MalformedReviewError as error:
            decision = decide_malformed(error)
            record_decision(self._endpoint.kind, None, denial=decision.denial)
            return _review_response(decision.to_review(error.uid))
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
            return decide(self._endpoint, request, self._validator, self._replica_writers)
        except Exception as error:
            # The request boundary: a validator bug must deny (failurePolicy Fail would anyway)
            # with a clear message instead of an HTTP 500 the apiserver reports as a call failure.
            # The traceback goes out as bounded text, not as exc_info: a renderer given the
            # exception could render its frames' locals, which hold the request's object.
            _log.error(
                "validator failed",
                kind=self._endpoint.kind,
                namespace=request.namespace[:253],
                name=request.name[:253],
                op=str(request.operation),
                error=_bounded_traceback(error),
            )
            return Decision(
                allowed=False,
                message=f"internal error while validating {self._endpoint.kind}",
                code=500,
                denial=RequestProblem.INTERNAL_ERROR,
            )

    def _bad_request(self, message: str, *, status: int = 400, close: bool = False) -> web.Response:
        record_decision(self._endpoint.kind, None, denial=RequestProblem.MALFORMED_REQUEST)
        _log.warning("unanswerable admission request", webhook=self._endpoint.path, error=message)
        response = web.Response(status=status, text=message + "\n")
        if close:
            response.force_close()
        return response


class ConversionRoute(_MeasuredRoute):
    """``/convert``: ConversionReviews, with the same metrics and body rules as admission."""

    def __init__(self) -> None:
        super().__init__(CONVERT_PATH)
        self.memo = ConversionMemo()

    async def _respond(self, http_request: web.Request) -> web.Response:
        try:
            request = parse_conversion_review(await _read_body(http_request))
        except UnreadableBodyError as error:
            return _plain_refusal(str(error), status=error.status, close=True)
        except UnanswerableReviewError as error:
            return _plain_refusal(str(error))
        return _review_response(self._answer(request))

    def _answer(self, request: ConversionRequest) -> dict[str, Any]:
        try:
            return answer_conversion(request, self.memo.convert)
        except Exception as error:
            # As for admission: a bug is a clear Failed result, its traceback bounded text.
            _log.error("conversion failed", error=_bounded_traceback(error))
            return failed_conversion(request.uid, "internal error while converting")


def _plain_refusal(message: str, *, status: int = 400, close: bool = False) -> web.Response:
    _log.warning("unanswerable conversion request", error=message)
    response = web.Response(status=status, text=message + "\n")
    if close:
        response.force_close()
    return response


def _bounded_traceback(error: BaseException) -> str:
    text = "".join(traceback.format_exception(error, limit=-20))
    if len(text) <= _MAX_LOGGED_TRACEBACK:
        return text
    return "..." + text[-_MAX_LOGGED_TRACEBACK:]


async def _read_body(http_request: web.Request) -> bytes:
    if http_request.content_type != "application/json":
        raise UnanswerableReviewError(
            f"Content-Type must be application/json, got {http_request.content_type!r}"
        )
    declared = http_request.content_length
    if declared is not None and declared > MAX_BODY_BYTES:
        raise UnreadableBodyError(
            f"request body of {declared} bytes exceeds the limit of {MAX_BODY_BYTES} bytes"
        )
    try:
        with anyio.fail_after(BODY_TIMEOUT_SECONDS):
            return await http_request.read()
    except (ConnectionError, web.RequestPayloadError) as error:
        # aiohttp keeps the error on the request's payload, and the error's traceback holds the
        # frames that hold the request: a cycle, with what was read of the body, that only the
        # cyclic collector frees, and an idle server runs none (200 clients leaving halfway
        # through their bodies kept 170 MB). Dropping the traceback frees it all at once.
        error.__traceback__ = None
        if isinstance(error, ConnectionError):
            raise ClientGoneError("the client left before sending its whole body") from None
        # A Content-Encoding (gzip, deflate) whose data does not decompress, or a broken chunk.
        raise UnreadableBodyError(
            "request body cannot be read: it is not valid for its Content-Encoding "
            "or Transfer-Encoding"
        ) from None
    except TimeoutError:
        raise BodyTimeoutError(
            f"request body not received within {BODY_TIMEOUT_SECONDS:g} seconds"
        ) from None
    except web.HTTPRequestEntityTooLarge:
        raise UnreadableBodyError(
            f"request body exceeds the limit of {MAX_BODY_BYTES} bytes"
        ) from None


def _review_response(review: dict[str, Any]) -> web.Response:
    return web.Response(body=orjson.dumps(review), content_type="application/json")


def build_app(
    validator: ResourceValidator,
    endpoints: Iterable[WebhookEndpoint] = ENDPOINTS,
    replica_writers: ReplicaWriters = PLANNERS_ONLY,
) -> web.Application:
    """``replica_writers``: who may change replicas a scaling adapter owns (planners only by
    default; the operator passes its own identity)."""
    app = web.Application(client_max_size=MAX_BODY_BYTES)
    for endpoint in endpoints:
        route = AdmissionRoute(endpoint, validator, replica_writers)
        app.router.add_post(endpoint.path, route.handle)
    app.router.add_post(CONVERT_PATH, ConversionRoute().handle)
    return app
