"""The DynamoComponent controller: a built artifact's image, found in the registry or built by a
Job."""

from manager.app.reconcilers.dynamo_component.reconciler import (
    FORCE_BUILD_ANNOTATION,
    DynamoComponentReconciler,
)
from manager.app.reconcilers.dynamo_component.registry import (
    HttpImageRegistry,
    ImageCheck,
    ImageRegistry,
)
from manager.app.reconcilers.dynamo_component.setup import setup

__all__ = [
    "FORCE_BUILD_ANNOTATION",
    "DynamoComponentReconciler",
    "HttpImageRegistry",
    "ImageCheck",
    "ImageRegistry",
    "setup",
]
