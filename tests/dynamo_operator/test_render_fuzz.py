"""Fuzz: validation answers any document, and `render` never crashes on what validation accepts.

The second property guards a past bug class: `validate` called documents valid that
`render` then crashed on (`mainContainer.env: "A=1"`, `volumes: 5`, a string command in a
multinode SGLang worker, `-tp 0`). Documents are drawn valid field by field except for the
free-form pod parts, of which about one in three has a wrong shape, or with about one
field in ten wrong; whatever validation lets through must render and serialise, with every
optional API and with none.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from dynamo_operator.render import render_objects
from dynamo_operator.settings import ALL_OPTIONAL_APIS, OperatorSettings
from dynamo_operator.validation import validate_create, validate_update
from manager.app.commands.output import dump_objects
from tests.fixtures.documents import FUZZ, documents

SETTINGS = {
    "all optional APIs": OperatorSettings(
        available_apis=ALL_OPTIONAL_APIS, ingress_controller_class_name="nginx"
    ),
    "no optional API": OperatorSettings(
        available_apis=frozenset(), istio_virtual_service_gateway="gw", nats_addr="nats://n"
    ),
}


@FUZZ
@given(document=documents(wrong=5), old=documents(wrong=5))
def test_validation_answers_any_document_without_raising(
    document: dict[str, Any], old: dict[str, Any]
) -> None:
    result = validate_create(document)
    event("valid" if result.allowed else "invalid")
    assert all(str(issue) for issue in (*result.errors, *result.warnings))
    validate_update(document, old)


@pytest.mark.parametrize("settings", SETTINGS.values(), ids=SETTINGS.keys())
@hypothesis_settings(FUZZ, max_examples=500)  # the render property: twice the budget
@given(
    documents=st.lists(documents(wrong=0, loose=3) | documents(wrong=10), min_size=1, max_size=3)
)
def test_what_validation_accepts_renders_and_serialises(
    documents: list[dict[str, Any]], settings: OperatorSettings
) -> None:
    accepted = [document for document in documents if validate_create(document).allowed]
    event(f"{len(accepted)} of {len(documents)} accepted")
    rendered = render_objects(accepted, settings, default_namespace="default")
    dump_objects(rendered.objects, "yaml")
    dump_objects(rendered.objects, "json")
