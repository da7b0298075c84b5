"""LeaderWorkerSets (and Volcano PodGroups) of a multinode component.

One LeaderWorkerSet ``<dcd>-<i>`` per replica, each a single group of ``nodeCount`` pods: a leader
and ``nodeCount - 1`` workers. When the Volcano API exists each group also gets a PodGroup of the
same name with ``minMember = nodeCount`` so its pods are gang-scheduled (all or none); without
Volcano the groups are scheduled by the default scheduler. Pods keep ``nvidia.com/selector`` and
carry ``role: leader|worker``: the component's Service selects the leaders only.
"""

from __future__ import annotations

from dynamo_operator.builders.component import Component
from dynamo_operator.builders.context import BuildContext
from dynamo_operator.builders.labels import child_metadata
from dynamo_operator.builders.merge import JsonDict
from dynamo_operator.builders.pod_template import build_pod_template
from dynamo_operator.constants import Annotations, Labels
from dynamo_operator.naming import leader_worker_set_name
from dynamo_operator.settings import LEADER_WORKER_SET_API_VERSION, POD_GROUP_API_VERSION

VOLCANO_SCHEDULER_NAME = "volcano"


def _group_template(
    component: Component, context: BuildContext, role: str, instance: int, group_name: str | None
) -> JsonDict:
    extra_labels = {Labels.ROLE: role, Labels.INSTANCE_ID: str(instance)}
    extra_annotations = {Annotations.VOLCANO_GROUP_NAME: group_name} if group_name else None
    template = build_pod_template(
        component,
        context,
        "leader" if role == "leader" else "worker",
        extra_labels=extra_labels,
        extra_annotations=extra_annotations,
    )
    if group_name:
        template["spec"]["schedulerName"] = VOLCANO_SCHEDULER_NAME
    return template


def _metadata(component: Component, name: str, instance: int) -> JsonDict:
    return child_metadata(component, name=name, extra_labels={Labels.INSTANCE_ID: str(instance)})


def build_leader_worker_set(
    component: Component, context: BuildContext, instance: int, *, gang_scheduled: bool
) -> JsonDict:
    name = leader_worker_set_name(component.name, instance)
    group_name = name if gang_scheduled else None
    return {
        "apiVersion": LEADER_WORKER_SET_API_VERSION,
        "kind": "LeaderWorkerSet",
        "metadata": _metadata(component, name, instance),
        "spec": {
            "replicas": 1,
            "startupPolicy": "LeaderCreated",
            "leaderWorkerTemplate": {
                "size": component.node_count,
                "leaderTemplate": _group_template(
                    component, context, "leader", instance, group_name
                ),
                "workerTemplate": _group_template(
                    component, context, "worker", instance, group_name
                ),
            },
        },
    }


def build_pod_group(component: Component, instance: int) -> JsonDict:
    name = leader_worker_set_name(component.name, instance)
    return {
        "apiVersion": POD_GROUP_API_VERSION,
        "kind": "PodGroup",
        "metadata": _metadata(component, name, instance),
        "spec": {"minMember": component.node_count},
    }
