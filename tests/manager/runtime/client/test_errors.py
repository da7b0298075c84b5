import orjson
import pytest

from manager.runtime.client import (
    AlreadyExists,
    ApiError,
    Conflict,
    Forbidden,
    Gone,
    Invalid,
    NotFound,
    ServerError,
    TooManyRequests,
)
from manager.runtime.client.errors import error_from_response, error_from_status


def status_body(code: int, reason: str, message: str = "msg", **extra: object) -> bytes:
    return orjson.dumps(
        {
            "kind": "Status",
            "status": "Failure",
            "code": code,
            "reason": reason,
            "message": message,
            **extra,
        }
    )


@pytest.mark.parametrize(
    ("code", "reason", "expected"),
    [
        (404, "NotFound", NotFound),
        (409, "AlreadyExists", AlreadyExists),
        (409, "Conflict", Conflict),
        (410, "Gone", Gone),
        (410, "Expired", Gone),
        (403, "Forbidden", Forbidden),
        (422, "Invalid", Invalid),
        (500, "InternalError", ServerError),
        (503, "ServiceUnavailable", ServerError),
    ],
)
def test_statuses_map_to_the_error_their_reason_names(
    code: int, reason: str, expected: type[ApiError]
) -> None:
    error = error_from_response(code, status_body(code, reason, "the message"))

    assert type(error) is expected
    assert (error.code, error.reason, error.message) == (code, reason, "the message")


def test_already_exists_is_not_caught_as_a_conflict() -> None:
    error = error_from_response(409, status_body(409, "AlreadyExists"))

    assert not isinstance(error, Conflict)


def test_a_non_status_body_still_maps_by_http_code_and_keeps_the_text() -> None:
    error = error_from_response(404, b"404 page not found\n")

    assert isinstance(error, NotFound)
    assert error.message == "404 page not found"


def test_too_many_requests_carries_retry_after_from_the_header_or_the_status() -> None:
    from_header = error_from_response(
        429, status_body(429, "TooManyRequests"), {"Retry-After": "3"}
    )
    from_details = error_from_response(
        429, status_body(429, "TooManyRequests", details={"retryAfterSeconds": 5})
    )

    assert isinstance(from_header, TooManyRequests)
    assert from_header.retry_after == 3.0
    assert isinstance(from_details, TooManyRequests)
    assert from_details.retry_after == 5.0


def test_a_watch_error_event_maps_expired_to_gone() -> None:
    error = error_from_status(
        {"kind": "Status", "code": 410, "reason": "Expired", "message": "too old resource version"}
    )

    assert isinstance(error, Gone)
    assert "too old" in str(error)
