"""Kubernetes Events about the objects the controllers manage, de-duplicated like client-go."""

from manager.runtime.events.correlator import Correlation, Correlator, PendingEvent
from manager.runtime.events.recorder import EventRecorder

__all__ = ["Correlation", "Correlator", "EventRecorder", "PendingEvent"]
