"""Kubernetes Events about the objects the controllers manage, de-duplicated like client-go."""

from manager.events.correlator import Correlation, Correlator, PendingEvent
from manager.events.recorder import EventRecorder

__all__ = ["Correlation", "Correlator", "EventRecorder", "PendingEvent"]
