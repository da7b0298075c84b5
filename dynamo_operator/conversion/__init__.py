"""Conversion between the v1alpha1 and v1beta1 forms of our kinds, on wire dicts.

``convert(obj, api_version)`` is what the conversion webhook calls for each object of a
ConversionReview: DynamoGraphDeployment, DynamoComponentDeployment and
DynamoGraphDeploymentScalingAdapter. It is pure, never modifies its input, and raises only
``ConversionError``. It is lossless: converting an object valid at its version to the other
version and back gives the object again, exactly; what the other version cannot say travels in
one annotation of the converted object (``PRESERVED_ANNOTATIONS``; the format is described in
``preserved.py``) and is consumed on the way back. Edits made at either version to a field both
express show at the other. ``beta_path`` maps a v1alpha1 field path (what validation reports) to
where a v1beta1 user wrote it.
"""

from dynamo_operator.conversion.dispatch import ALPHA_API_VERSION, BETA_API_VERSION, convert
from dynamo_operator.conversion.errors import ConversionError
from dynamo_operator.conversion.paths import beta_path
from dynamo_operator.conversion.preserved import PRESERVED_ANNOTATIONS

__all__ = [
    "ALPHA_API_VERSION",
    "BETA_API_VERSION",
    "PRESERVED_ANNOTATIONS",
    "ConversionError",
    "beta_path",
    "convert",
]
