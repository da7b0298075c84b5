"""ConversionError names the field and the reason."""

from __future__ import annotations

from dynamo_operator.conversion import ConversionError


def test_the_message_names_the_field_then_the_reason() -> None:
    error = ConversionError("spec.services", "must be an object")
    assert (error.path, error.reason) == ("spec.services", "must be an object")
    assert str(error) == "spec.services: must be an object"
    assert str(ConversionError("", "not an object")) == "not an object"
    assert isinstance(error, ValueError)
