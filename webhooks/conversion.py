"""ConversionReview ``apiextensions.k8s.io/v1``: the API server asks for objects at another version.

The API server sends every object it must serve at a version other than the one it stored
(v1alpha1, the storage version, read at v1beta1; v1beta1 written and stored as v1alpha1) in a
review with ``desiredAPIVersion``; the answer converts all of them or fails the whole review (the
API server then fails the request that needed it, naming our message). The conversion itself is
``dynamo_operator.conversion``, pure; this module is only the wire around it.

A review that cannot be answered (not JSON, no ``request.uid``) gets HTTP 400 from the route, as an
admission review does; anything else gets a ``Failed`` result whose message names the object and
the field, never an HTTP 500: a conversion bug must read as a clear refusal in ``kubectl``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dynamo_operator.conversion import ConversionError, convert
from webhooks.admission import unwrap_review

CONVERSION_API_VERSION = "apiextensions.k8s.io/v1"
CONVERSION_KIND = "ConversionReview"
CONVERT_PATH = "/convert"


@dataclass(frozen=True, slots=True)
class ConversionRequest:
    uid: str
    desired_api_version: Any
    objects: Any


def parse_conversion_review(body: bytes) -> ConversionRequest:
    """The review's request; UnanswerableReviewError when there is no uid to answer."""
    request = unwrap_review(body, CONVERSION_KIND, CONVERSION_API_VERSION)
    return ConversionRequest(
        request["uid"], request.get("desiredAPIVersion"), request.get("objects")
    )


def answer_conversion(
    request: ConversionRequest,
    convert_one: Callable[[Mapping[str, Any], str], Any] = convert,
) -> dict[str, Any]:
    """The review's response: every object converted (by `convert_one`, `convert` or what
    remembers its answers), or a Failed result naming the first that could not be."""
    desired = request.desired_api_version
    if not isinstance(desired, str) or not desired:
        return failed_conversion(
            request.uid, "request.desiredAPIVersion must be a non-empty string"
        )
    if not isinstance(request.objects, list):
        return failed_conversion(request.uid, "request.objects must be a list")
    converted = []
    for index, obj in enumerate(request.objects):
        if not isinstance(obj, Mapping):
            return failed_conversion(request.uid, f"request.objects[{index}] is not an object")
        try:
            converted.append(convert_one(obj, desired))
        except ConversionError as error:
            return failed_conversion(request.uid, f"{_identify(obj)}: {error}")
    return _wrap(
        {"uid": request.uid, "result": {"status": "Success"}, "convertedObjects": converted}
    )


def _identify(obj: Mapping[str, Any]) -> str:
    """``DynamoGraphDeployment ns/name`` as far as the object says it, bounded."""
    metadata = obj.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    name, namespace, kind = metadata.get("name"), metadata.get("namespace"), obj.get("kind")
    shown = name[:253] if isinstance(name, str) and name else "(unnamed)"
    if isinstance(namespace, str) and namespace:
        shown = f"{namespace[:63]}/{shown}"
    return f"{kind[:63] if isinstance(kind, str) and kind else 'object'} {shown}"


def failed_conversion(uid: str, message: str) -> dict[str, Any]:
    return _wrap({"uid": uid, "result": {"status": "Failed", "message": message}})


def _wrap(response: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": CONVERSION_API_VERSION, "kind": CONVERSION_KIND, "response": response}
